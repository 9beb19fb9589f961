import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { samples } from '../../test/support/samples';
import { buildPath, type Endpoint } from './catalog';
import {
  chance,
  deepNesting,
  edgeNumber,
  hostileString,
  hostileUrn,
  int,
  markUrns,
  parseEmbeddedJson,
  pick,
  randomText,
  RAW,
  serialize,
  urnsIn,
  type Gen,
} from './values';

/**
 * Request generation. Request `index` of a run depends only on (seed, index) and the context, so any request can be
 * rebuilt from its seed and index (`test/fuzzing/fuzz.ts --seed S --replay I`).
 */

export type TokenChoice = 'none' | 'read' | 'write' | 'admin';

export interface Tokens {
  read: string;
  write: string;
  admin: string;
  /** Expired, wrongly signed, wrong issuer, alg none, no expiry, subject not a urn, unknown scope, HS512… */
  bad: string[];
}

/** URNs of the fixed sample dataset: read by the fuzzer, never written. */
export interface SampleUrns {
  dataset: string;
  upstream: string;
  tag: string;
  user: string;
  term: string;
  chart: string;
}

export interface FuzzContext {
  seed: number;
  /** In every URN the run may write. */
  marker: string;
  sample: SampleUrns;
  endpoints: Endpoint[];
  tokens: Tokens;
  bodyLimitBytes: number;
}

export interface FuzzRequest {
  index: number;
  /** Endpoint label (`POST /aspects?action=ingestProposal`), or `(unknown path)` / `(http)`. */
  endpoint: string;
  /** Which generator made it, e.g. `mutation:body:hostile`. */
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** A 2xx answer may have written (its URNs are attributed to the run). */
  writes: boolean;
}

/** A valid request of one endpoint before rendering: raw (unencoded) path and query values, body as a value. */
interface Base {
  path: Record<string, string>;
  query: [string, string][];
  body?: unknown;
  token: TokenChoice;
}

export function requestSeed(seed: number, index: number): number {
  return createHash('sha256').update(`${seed}:${index}`).digest().readInt32LE(0);
}

// ---------------------------------------------------------------------------------------------------------------
// Valid requests, per operation. Writes go to URNs carrying the marker; reads also hit the sample dataset.

function names(ctx: FuzzContext) {
  const m = ctx.marker;
  return {
    ds: (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,${m}ds${i},PROD)`,
    tag: (i: number) => `urn:li:tag:${m}tag${i}`,
    user: (i: number) => `urn:li:corpuser:${m}user${i}`,
    group: (i: number) => `urn:li:corpGroup:${m}group${i}`,
    term: (i: number) => `urn:li:glossaryTerm:${m}term${i}`,
    chart: (i: number) => `urn:li:chart:(looker,${m}chart${i})`,
    test: (i: number) => `urn:li:test:${m}test${i}`,
  };
}

const ASPECTS_BY_TYPE: Record<string, string[]> = {
  dataset: ['status', 'datasetProperties', 'ownership', 'globalTags', 'upstreamLineage', 'deprecation', 'schemaMetadata', 'glossaryTerms', 'institutionalMemory', 'subTypes', 'datasetProfile', 'datasetUsageStatistics'],
};

function aspectValue(g: Gen, ctx: FuzzContext, name: string): unknown {
  const n = names(ctx);
  const stamp = { time: 1581407189000 + int(g, 0, 1000), actor: n.user(int(g, 0, 3)) };
  switch (name) {
    case 'status':
      return { removed: chance(g, 0.5) };
    case 'datasetProperties':
      return { name: `table ${int(g, 0, 99)}`, description: `described ${int(g, 0, 9999)}`, customProperties: { team: `t${int(g, 0, 9)}`, tier: 'gold' } };
    case 'ownership':
      return { owners: [{ owner: n.user(int(g, 0, 3)), type: pick(g, ['DATAOWNER', 'TECHNICAL_OWNER', 'BUSINESS_OWNER']) }, { owner: n.group(0), type: 'DATAOWNER' }], lastModified: stamp };
    case 'globalTags':
      return { tags: [{ tag: n.tag(int(g, 0, 4)) }] };
    case 'upstreamLineage':
      return { upstreams: [{ dataset: n.ds(int(g, 0, 9)), type: 'TRANSFORMED', auditStamp: stamp }] };
    case 'deprecation':
      return { deprecated: true, note: 'old', actor: n.user(0), decommissionTime: null };
    case 'glossaryTerms':
      return { terms: [{ urn: n.term(int(g, 0, 2)) }], auditStamp: stamp };
    case 'institutionalMemory':
      return { elements: [{ url: 'https://example.com/doc', description: 'doc', createStamp: stamp }] };
    case 'subTypes':
      return { typeNames: ['view'] };
    case 'schemaMetadata':
      return Object.values(samples(ctx.marker).snapshots.dataset['com.linkedin.metadata.snapshot.DatasetSnapshot'].aspects[2])[0];
    case 'datasetProfile':
      return { timestampMillis: 1672531200000 + int(g, 0, 1000) * 86_400_000, rowCount: int(g, 0, 1e6), columnCount: int(g, 1, 50) };
    case 'datasetUsageStatistics':
      return { timestampMillis: 1672531200000 + int(g, 0, 1000) * 86_400_000, eventGranularity: { unit: 'DAY', multiple: 1 }, uniqueUserCount: int(g, 0, 9), totalSqlQueries: int(g, 0, 99) };
    case 'tagProperties':
      return { name: `tag ${int(g, 0, 9)}`, description: 'a tag' };
    case 'testInfo':
      return {
        name: 'has owner',
        category: 'Governance',
        description: 'fuzz',
        definition: { type: 'JSON', json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'ownership.owners.owner', operator: 'exists' }] }) },
      };
    default:
      return { removed: false };
  }
}

function proposalFor(g: Gen, ctx: FuzzContext) {
  const n = names(ctx);
  const kind = int(g, 0, 9);
  let urn: string;
  let aspectName: string;
  if (kind <= 6) {
    urn = n.ds(int(g, 0, 9));
    aspectName = pick(g, ASPECTS_BY_TYPE.dataset);
  } else if (kind === 7) {
    urn = n.tag(int(g, 0, 4));
    aspectName = pick(g, ['tagProperties', 'ownership', 'status']);
  } else if (kind === 8) {
    urn = n.test(int(g, 0, 2));
    aspectName = 'testInfo';
  } else {
    urn = n.chart(int(g, 0, 2));
    aspectName = pick(g, ['status', 'globalTags', 'ownership']);
  }
  const entityType = urn.split(':')[2];
  const remove = aspectName === 'status' && chance(g, 0.1);
  return {
    entityType,
    entityUrn: urn,
    changeType: remove ? 'DELETE' : 'UPSERT',
    aspectName,
    ...(remove ? {} : { aspect: { value: JSON.stringify(aspectValue(g, ctx, aspectName)), contentType: 'application/json' } }),
    ...(chance(g, 0.2) ? { systemMetadata: { runId: `${ctx.marker}run`, lastObserved: 1 } } : {}),
  };
}

function readUrn(g: Gen, ctx: FuzzContext): string {
  const n = names(ctx);
  return pick(g, [ctx.sample.dataset, ctx.sample.upstream, ctx.sample.tag, ctx.sample.user, ctx.sample.term, ctx.sample.chart, n.ds(int(g, 0, 9)), n.tag(0), n.test(0)]);
}

const ENTITY_TYPES = ['dataset', 'chart', 'dashboard', 'tag', 'corpuser', 'corpGroup', 'glossaryTerm'];
const RELATIONSHIPS = ['OwnedBy', 'TaggedWith', 'DownstreamOf', 'TermedWith', 'Consumes', 'Contains', 'IsPassing', 'IsFailing', 'IsMemberOfGroup'];

function searchFilter(g: Gen, ctx: FuzzContext): unknown {
  const criterion = () =>
    pick(g, [
      { field: 'platform', value: 'urn:li:dataPlatform:hive', condition: 'EQUAL' },
      { field: 'origin', value: 'PROD' },
      { field: 'tags', values: [ctx.sample.tag], condition: 'EQUAL' },
      { field: 'name', value: 'orders', condition: pick(g, ['CONTAIN', 'START_WITH', 'END_WITH']) },
      { field: 'removed', value: 'true', negated: true },
      { field: 'rowCount', value: '10', condition: pick(g, ['GREATER_THAN', 'LESS_THAN_OR_EQUAL_TO']) },
    ]);
  return chance(g, 0.5) ? { or: [{ and: [criterion(), criterion()] }, { and: [criterion()] }] } : { criteria: [criterion()] };
}

const graphqlQueries = (urn: string) => [
  `{ dataset(urn: ${JSON.stringify(urn)}) { urn deprecation { deprecated decommissionTime note actor replacement } } }`,
  `query q($urn: String!) { dataset(urn: $urn) { urn deprecation { deprecated } } }`,
];

function graphqlBase(g: Gen, ctx: FuzzContext): { body: Record<string, unknown>; token: TokenChoice } {
  const n = names(ctx);
  switch (int(g, 0, 3)) {
    case 0: {
      const urn = readUrn(g, ctx);
      const [inline, withVariables] = graphqlQueries(urn);
      return chance(g, 0.5) ? { body: { query: inline }, token: 'read' } : { body: { query: withVariables, variables: { urn } }, token: 'read' };
    }
    case 1:
      return {
        body: {
          query: 'mutation u($input: UpdateDeprecationInput!) { updateDeprecation(input: $input) }',
          variables: { input: { urn: n.ds(int(g, 0, 9)), deprecated: chance(g, 0.5), note: 'fuzz', decommissionTime: 1700000000000 } },
          operationName: 'u',
        },
        token: 'write',
      };
    case 2:
      return {
        body: {
          query: 'mutation b($input: BatchUpdateDeprecationInput!) { batchUpdateDeprecation(input: $input) }',
          variables: {
            input: {
              deprecated: true,
              note: 'fuzz',
              resources: [{ resourceUrn: n.ds(int(g, 0, 9)) }, { resourceUrn: n.ds(int(g, 0, 9)), subResourceType: 'DATASET_FIELD', subResource: 'field_foo' }],
            },
          },
        },
        token: 'write',
      };
    default:
      return { body: { query: '{ __schema { queryType { name } types { name kind } } }' }, token: 'read' };
  }
}

function exampleBody(e: Endpoint, ctx: FuzzContext): unknown {
  if (e.exampleRequest === undefined || JSON.stringify(e.exampleRequest).includes('…')) return undefined;
  return markUrns(e.exampleRequest, ctx.marker);
}

/** A minimal body from a JSON Schema: required properties with a value of their type (for operations the fuzzer does not know). */
function minimalFromSchema(schema: Record<string, unknown> | undefined): unknown {
  if (!schema) return undefined;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((name) => [name, minimalFromSchema(properties[name])]));
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    default:
      return 'x';
  }
}

function defaultToken(g: Gen, e: Endpoint): TokenChoice {
  if (e.scope === 'none') return chance(g, 0.8) ? 'none' : 'read';
  if (e.tokenOptional) return chance(g, 0.7) ? 'none' : e.scope;
  return e.scope;
}

function validBase(g: Gen, ctx: FuzzContext, e: Endpoint): Base {
  const n = names(ctx);
  const token = defaultToken(g, e);
  const example = chance(g, 0.3) ? exampleBody(e, ctx) : undefined;
  const withBody = (body: unknown, t: TokenChoice = token): Base => ({ path: {}, query: [], body: example ?? body, token: t });
  switch (e.operationId) {
    case 'ingestProposal':
      return withBody({ proposal: proposalFor(g, ctx), ...(chance(g, 0.2) ? { async: pick(g, ['false', true]) } : {}) });
    case 'ingestProposalBatch':
      return withBody({ proposals: Array.from({ length: int(g, 1, 4) }, () => proposalFor(g, ctx)) });
    case 'ingestSnapshot': {
      const snapshots = Object.values(samples(ctx.marker).snapshots);
      return withBody({ entity: { value: pick(g, snapshots) } });
    }
    case 'deleteEntity':
      return withBody({ urn: pick(g, [n.ds(int(g, 0, 9)), n.tag(int(g, 0, 4)), n.chart(0), n.user(int(g, 0, 3))]) });
    case 'getEntityV2':
      return { path: { urn: readUrn(g, ctx) }, query: chance(g, 0.5) ? [['aspects', pick(g, ['List(ownership,status)', 'datasetProperties', 'List(globalTags)'])]] : [], token };
    case 'getEntity':
      return { path: { urn: readUrn(g, ctx) }, query: [], token };
    case 'getVersionedAspect':
      return { path: { urn: readUrn(g, ctx) }, query: [['aspect', pick(g, ['datasetProperties', 'ownership', 'status', 'tagProperties'])], ['version', String(pick(g, [0, 0, 1, 2, -1]))]], token };
    case 'getRelationships':
      return {
        path: {},
        query: [
          ['urn', readUrn(g, ctx)],
          ['direction', pick(g, ['INCOMING', 'OUTGOING'])],
          ['types', pick(g, ['List(OwnedBy,TaggedWith)', 'DownstreamOf', 'List(DownstreamOf,Consumes)'])],
          ...(chance(g, 0.3) ? ([['start', '0'], ['count', String(int(g, 0, 50))]] as [string, string][]) : []),
        ],
        token,
      };
    case 'getRelatedEntities':
      return {
        path: {},
        query: [['urn', readUrn(g, ctx)], ['direction', pick(g, ['INCOMING', 'OUTGOING'])], ['relationshipTypes', pick(g, RELATIONSHIPS)], ['relationshipTypes', pick(g, RELATIONSHIPS)]],
        token,
      };
    case 'search':
      return withBody({
        input: pick(g, ['*', 'orders', `${ctx.marker}ds1`, 'tags:fuzz', 'name:orders AND origin:PROD', 'order*', 'description:"kept for"']),
        entity: pick(g, ENTITY_TYPES),
        start: int(g, 0, 20),
        count: int(g, 0, 50),
        ...(chance(g, 0.4) ? { filter: searchFilter(g, ctx) } : {}),
      });
    case 'browse':
      return withBody({ path: pick(g, ['/', '/prod', '/prod/hive', `/prod/hive/${ctx.marker}`]), entity: pick(g, ENTITY_TYPES), start: 0, limit: int(g, 0, 20), ...(chance(g, 0.3) ? { filter: searchFilter(g, ctx) } : {}) });
    case 'autocomplete':
      return withBody({ query: pick(g, ['ord', 'fuzz', 'Sample', 'a']), entity: pick(g, ENTITY_TYPES), limit: int(g, 1, 20), ...(chance(g, 0.3) ? { field: 'name' } : {}) });
    case 'evaluateTests': {
      const push = chance(g, 0.3);
      return withBody({ urn: n.ds(int(g, 0, 9)), ...(push ? { push: true } : {}), ...(chance(g, 0.5) ? { testUrns: [n.test(0), n.test(1)] } : {}) }, push ? 'write' : 'read');
    }
    case 'getTimeseriesAspectValues':
      return withBody({
        urn: pick(g, [ctx.sample.dataset, n.ds(int(g, 0, 9))]),
        entity: 'dataset',
        aspect: pick(g, ['datasetProfile', 'datasetUsageStatistics']),
        ...(chance(g, 0.5) ? { startTimeMillis: 1672531200000, endTimeMillis: 1772531200000 } : {}),
        ...(chance(g, 0.3) ? { limit: int(g, 1, 100) } : {}),
        ...(chance(g, 0.2) ? { latestValue: true } : {}),
      });
    case 'getEsTaskStatus':
      return withBody(chance(g, 0.5) ? { task: 'oTUltX4IQMOUUVeiohTt8A:12345' } : { nodeId: 'oTUltX4IQMOUUVeiohTt8A', taskId: int(g, 0, 99999) });
    case 'truncateTimeseriesAspect':
      return withBody({ entityType: 'dataset', aspect: pick(g, ['datasetUsageStatistics', 'datasetProfile']), endTimeMillis: 1672531200000, dryRun: true });
    case 'getIndexSizes':
      return withBody(undefined);
    case 'restoreIndices':
      return withBody(chance(g, 0.5) ? { urn: n.ds(int(g, 0, 9)) } : { urnLike: `urn:li:dataset:(urn:li:dataPlatform:hive,${ctx.marker}%`, batchSize: int(g, 1, 10) });
    case 'applyRetention':
      return withBody({ urn: n.ds(int(g, 0, 9)), ...(chance(g, 0.5) ? { aspectName: pick(g, ASPECTS_BY_TYPE.dataset) } : {}) });
    case 'graphql': {
      const q = graphqlBase(g, ctx);
      return { path: {}, query: [], body: q.body, token: q.token };
    }
    case 'rpcDocs':
      return { path: {}, query: chance(g, 0.5) ? [['q', pick(g, ['search', 'entities', 'token'])]] : [], token };
    default: {
      const pathValues = Object.fromEntries(e.pathParams.map((p) => [p, readUrn(g, ctx)]));
      const query = e.queryParams.filter((p) => p.required).map((p) => [p.name, String(minimalFromSchema(p.schema) ?? 'x')] as [string, string]);
      return { path: pathValues, query, body: e.method === 'GET' ? undefined : (example ?? minimalFromSchema(e.bodySchema)), token };
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Mutations of one field of a valid body.

const EMBED = Symbol('embedded JSON');
type Segment = string | number | typeof EMBED;

function slotsOf(value: unknown, path: Segment[] = [], out: Segment[][] = [], depth = 0): Segment[][] {
  out.push(path);
  if (depth > 12 || out.length > 400) return out;
  if (typeof value === 'string') {
    const embedded = parseEmbeddedJson(value);
    if (embedded !== undefined) slotsOf(embedded, [...path, EMBED], out, depth + 1);
  } else if (Array.isArray(value)) value.slice(0, 20).forEach((v, i) => slotsOf(v, [...path, i], out, depth + 1));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) slotsOf(v, [...path, k], out, depth + 1);
  return out;
}

function getAt(value: unknown, path: Segment[]): unknown {
  let v = value;
  for (const s of path) v = s === EMBED ? parseEmbeddedJson(v as string) : (v as Record<string | number, unknown>)?.[s];
  return v;
}

const DELETE = Symbol('delete');

/** A copy of `value` with the node at `path` replaced by `fn(node)` (DELETE removes it). */
function updateAt(value: unknown, path: Segment[], fn: (v: unknown) => unknown): unknown {
  if (path.length === 0) return fn(value);
  const [head, ...rest] = path;
  if (head === EMBED) return serialize(updateAt(parseEmbeddedJson(value as string), rest, fn));
  if (Array.isArray(value)) {
    const copy = value.slice();
    const next = updateAt(copy[head as number], rest, fn);
    if (next === DELETE) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  const next = updateAt(copy[head as string], rest, fn);
  if (next === DELETE) delete copy[head as string];
  else copy[head as string] = next;
  return copy;
}

function wrongType(g: Gen, v: unknown): unknown {
  const options: unknown[] = [null, true, false, 0, -1, 1.5, 'x', '', [], {}, [v], { value: v }, RAW('1e400')];
  return pick(
    g,
    options.filter((o) => typeof o !== typeof v || (Array.isArray(o) !== Array.isArray(v))),
  );
}

/** Bytes a value takes, roughly (to stay under or go over the body limit on purpose). */
const sizeOf = (v: unknown) => Buffer.byteLength(serialize(v));

function mutateValue(g: Gen, ctx: FuzzContext, v: unknown, budget: number): { value: unknown; op: string } {
  const op = pick(g, ['type', 'hostile', 'hostile', 'delete', 'unknown', 'huge', 'nest', 'number', 'empty', 'enum', 'proto']);
  const isUrn = typeof v === 'string' && v.startsWith('urn:');
  switch (op) {
    case 'type':
      return { value: wrongType(g, v), op };
    case 'hostile':
      return { value: isUrn || chance(g, 0.15) ? hostileUrn(g, ctx.marker) : hostileString(g), op };
    case 'delete':
      return { value: DELETE, op };
    case 'unknown':
      if (v && typeof v === 'object' && !Array.isArray(v)) return { value: { ...v, [pick(g, ['__proto__', 'constructor', '$where', 'x', hostileString(g).slice(0, 50)])]: hostileString(g) }, op };
      return { value: hostileString(g), op: 'hostile' };
    case 'huge': {
      if (Array.isArray(v)) {
        const element = v[0] ?? 1;
        const count = Math.max(1, Math.min(pick(g, [1000, 10_001, 100_000]), Math.floor(budget / Math.max(2, sizeOf(element) + 1))));
        return { value: Array.from({ length: count }, () => element), op };
      }
      if (v && typeof v === 'object') {
        const count = Math.min(pick(g, [1000, 20_000]), Math.floor(budget / 20));
        return { value: Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, `v${i}`])), op };
      }
      return { value: 'x'.repeat(Math.max(1, Math.min(pick(g, [10_001, 100_000, 1_000_000]), budget))), op };
    }
    case 'nest':
      return { value: RAW(deepNesting(Math.min(pick(g, [64, 1000, 10_000, 50_000]), Math.floor(budget / 6)), pick(g, ['array', 'object']))), op };
    case 'number':
      return { value: edgeNumber(g), op };
    case 'empty':
      return { value: Array.isArray(v) ? [] : v && typeof v === 'object' ? {} : '', op };
    case 'enum':
      return { value: typeof v === 'string' ? pick(g, [v.toLowerCase(), v.toUpperCase(), ` ${v}`, `${v} `, `${v}\u0000`, v + v, v.slice(1)]) : wrongType(g, v), op };
    default:
      return { value: pick(g, [{ __proto__: { polluted: true } }, JSON.parse('{"__proto__":{"polluted":true}}'), { constructor: { prototype: { polluted: true } } }]), op };
  }
}

function mutateBody(g: Gen, ctx: FuzzContext, body: unknown): { body: unknown; op: string } {
  const slots = slotsOf(body);
  const path = pick(g, slots);
  const budget = Math.max(0, Math.floor(ctx.bodyLimitBytes * 0.9) - sizeOf(body));
  const { value, op } = mutateValue(g, ctx, getAt(body, path), budget);
  return { body: path.length === 0 && value === DELETE ? undefined : updateAt(body, path, () => value), op };
}

// ---------------------------------------------------------------------------------------------------------------
// Query strings and path parameters.

/** Percent-encodes the UTF-8 bytes of a string (lone surrogates become U+FFFD, as any client would send them). */
export function encode(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

const BROKEN_PERCENT = ['%', '%%', '%G1', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '%FF', '%FE%FF', '%00', '%0', 'a%2', '%u0041', '%25%32%35', '%2F..%2F..%2F'];
const LIST_FORMS = ['List(', 'List()', 'List(,)', 'List(a,,b)', 'List(List(a))', ' List(a)', 'list(a)', 'List(a', 'List)a(', `List(${'a,'.repeat(2000)}a)`];

/** Query pairs are raw (already encoded) strings in the rendered request; mutate one. */
function mutateQuery(g: Gen, ctx: FuzzContext, e: Endpoint, query: [string, string][]): { query: [string, string][]; op: string } {
  const q = query.map(([k, v]) => [k, encode(v)] as [string, string]);
  const names = [...new Set([...q.map(([k]) => k), ...e.queryParams.map((p) => p.name)])];
  const name = names.length > 0 ? pick(g, names) : 'x';
  const op = pick(g, ['drop', 'repeat', 'hostile', 'broken', 'list', 'number', 'unknown', 'empty', 'novalue', 'action']);
  const without = q.filter(([k]) => k !== name);
  switch (op) {
    case 'drop':
      return { query: without, op };
    case 'repeat':
      return { query: [...q, [name, encode(pick(g, [hostileString(g), ...q.filter(([k]) => k === name).map(([, v]) => decodeSafe(v))]))]], op };
    case 'hostile':
      return { query: [...without, [name, encode(name === 'urn' || chance(g, 0.2) ? hostileUrn(g, ctx.marker) : hostileString(g))]], op };
    case 'broken':
      return { query: [...without, [name, pick(g, BROKEN_PERCENT) + encode(pick(g, ['', 'x', ctx.sample.dataset]))]], op };
    case 'list':
      return { query: [...without, [name, encode(pick(g, LIST_FORMS))]], op };
    case 'number':
      return { query: [...without, [name, encode(String(edgeNumber(g)).replace(/^\u0001raw\u0001(.*)\u0001raw\u0001$/, '$1'))]], op };
    case 'unknown':
      return { query: [...q, [encode(pick(g, ['x', '__proto__', 'constructor', 'action[]', 'a[b]', hostileString(g).slice(0, 100)])), encode(hostileString(g).slice(0, 1000))]], op };
    case 'empty':
      return { query: [...without, [name, '']], op };
    case 'novalue':
      return { query: [...without, [name, '\u0000novalue']], op };
    default:
      // The action travels in the query too: repeated, empty or hostile (buildPath adds the real one first).
      return { query: [...q, ['action', encode(pick(g, ['', 'search', 'delete', 'ingestProposal', 'List(search)', hostileString(g).slice(0, 200)]))]], op };
  }
}

function decodeSafe(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

function mutatePathValue(g: Gen, ctx: FuzzContext, value: string): { raw: string; op: string } {
  switch (int(g, 0, 5)) {
    case 0:
      return { raw: encode(hostileUrn(g, ctx.marker)), op: 'hostile-urn' };
    case 1:
      return { raw: pick(g, BROKEN_PERCENT) + encode(value), op: 'broken-percent' };
    case 2:
      return { raw: encode(value).replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%28/g, '(').replace(/%29/g, ')'), op: 'unencoded' };
    case 3:
      return { raw: encode(encode(value)), op: 'double-encoded' };
    case 4:
      return { raw: pick(g, ['', '%20', '.', '..', '%2e%2e', 'a/b', encode(value) + '/extra', encode(value) + '%2F']), op: 'odd' };
    default:
      return { raw: encode(hostileString(g)), op: 'hostile' };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering, guards and the categories.

function authHeader(ctx: FuzzContext, token: TokenChoice): Record<string, string> {
  return token === 'none' ? {} : { authorization: `Bearer ${ctx.tokens[token]}` };
}

interface Draft {
  endpoint: Endpoint;
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  token: TokenChoice;
  /** The body as a value when it is JSON we built (for the guards). */
  value?: unknown;
}

function render(e: Endpoint, base: Base, kind: string, pathRaw?: Record<string, string>, queryRaw?: [string, string][]): Draft {
  const pathValues = pathRaw ?? Object.fromEntries(Object.entries(base.path).map(([k, v]) => [k, encode(v)]));
  const query = queryRaw ?? base.query.map(([k, v]) => [k, encode(v)] as [string, string]);
  const hasBody = base.body !== undefined;
  return {
    endpoint: e,
    kind,
    method: e.method,
    path: buildPath(e, pathValues, query),
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    body: hasBody ? Buffer.from(serialize(base.body)) : undefined,
    token: base.token,
    value: base.body,
  };
}

const PLATFORM = /^urn:li:dataPlatform:[A-Za-z0-9_-]+$/;

/** The body as the service could read it: the sent bytes parsed as JSON (undefined when they are not JSON). */
function sentJson(d: Draft): unknown {
  if (!d.body) return {};
  try {
    return JSON.parse(d.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Keeps the run's writes on its own entities: a request that could write something not carrying the marker (or would
 * run a destructive admin operation) has its token swapped for an expired one, so it is refused before it runs.
 * Judged on the bytes sent, so a body the service might read differently (compressed, another charset) counts as unsafe.
 */
function guard(ctx: FuzzContext, d: Draft): Draft {
  // Judged on the request as sent, not the endpoint it was made from: a read sent as DELETE (wrong-method) or with
  // another `action` (a mutated query) reaches a route that writes, and several of those need no token. Any operation
  // that needs the write or admin scope may write (OpenAPI's entity routes too), and may name what it writes in its
  // path as well as in its body.
  const writingAction = /[?&]action=(delete|deleteAll|deleteReferences|ingest|ingestProposal|ingestProposalBatch|batchIngest|rollback|applyRetention|restoreIndices|truncateTimeseriesAspect|evaluate)(&|$)/.test(d.path);
  const mayWrite = d.endpoint.writes || d.endpoint.scope === 'write' || d.endpoint.scope === 'admin' || writingAction || ['PUT', 'PATCH', 'DELETE'].includes(d.method);
  if (!mayWrite || !['POST', 'PUT', 'PATCH', 'DELETE'].includes(d.method)) return d;
  const encoded = d.headers['content-encoding'] !== undefined && d.headers['content-encoding'] !== 'identity';
  const sent = encoded ? undefined : sentJson(d);
  const body = (sent && typeof sent === 'object' && !Array.isArray(sent) ? sent : {}) as Record<string, unknown>;
  let path = d.path;
  try {
    path = decodeURIComponent(d.path);
  } catch {
    /* a path that does not decode names nothing the service would find */
  }
  const inPath = [...path.matchAll(/urn:li:[^/?&]*/g)].map(([u]) => u);
  const foreign = [...urnsIn(encoded ? d.value : sent), ...inPath].some((u) => !u.includes(ctx.marker) && !PLATFORM.test(u));
  let unsafe = foreign;
  switch (d.endpoint.operationId) {
    case 'truncateTimeseriesAspect':
      unsafe = sent === undefined || (body.dryRun !== undefined && body.dryRun !== true);
      break;
    case 'restoreIndices':
      unsafe = sent === undefined || !((typeof body.urn === 'string' && body.urn.includes(ctx.marker)) || (typeof body.urnLike === 'string' && body.urnLike.includes(ctx.marker)));
      break;
    case 'applyRetention':
      // Without a urn of the run it would trim every entity's history.
      unsafe = sent === undefined || !(typeof body.urn === 'string' && body.urn.includes(ctx.marker));
      break;
    case 'graphql': {
      const text = d.body?.toString('utf8') ?? '';
      unsafe = encoded || (/mutation/i.test(text) && [...text.matchAll(/urn:li:[^"\\]*/g)].some(([u]) => !u.includes(ctx.marker)));
      break;
    }
  }
  if (!unsafe) return d;
  return { ...d, kind: `${d.kind}:guarded`, headers: { ...d.headers, authorization: `Bearer ${ctx.tokens.bad[0]}` } };
}

type Category = (g: Gen, ctx: FuzzContext, e: Endpoint) => Draft;

const CATEGORIES: [number, string, Category][] = [
  [6, 'valid', (g, ctx, e) => render(e, validBase(g, ctx, e), 'valid')],
  [34, 'mutation', mutation],
  [8, 'broken-json', brokenJson],
  [2, 'huge-within', hugeWithin],
  [2, 'oversized', oversized],
  [5, 'wrong-method', wrongMethod],
  [8, 'bad-token', badToken],
  [7, 'query-string', (g, ctx, e) => {
    const base = validBase(g, ctx, e);
    const m = mutateQuery(g, ctx, e, base.query);
    return render(e, base, `query:${m.op}`, undefined, m.query);
  }],
  [4, 'headers', headers],
  [8, 'graphql', (g, ctx) => graphql(g, ctx)],
  [3, 'deep-nesting', deep],
  [3, 'unknown-path', unknownPath],
  [1, 'http', httpLevel],
];

function mutation(g: Gen, ctx: FuzzContext, e: Endpoint): Draft {
  const base = validBase(g, ctx, e);
  if (e.pathParams.length > 0 && chance(g, 0.5)) {
    const name = pick(g, e.pathParams);
    const m = mutatePathValue(g, ctx, base.path[name] ?? '');
    return render(e, base, `mutation:path:${m.op}`, { ...Object.fromEntries(Object.entries(base.path).map(([k, v]) => [k, encode(v)])), [name]: m.raw });
  }
  if (base.body === undefined || (e.queryParams.length > 0 && chance(g, 0.3))) {
    const m = mutateQuery(g, ctx, e, base.query);
    return render(e, base, `mutation:query:${m.op}`, undefined, m.query);
  }
  const m = mutateBody(g, ctx, base.body);
  return render(e, { ...base, body: m.body }, `mutation:body:${m.op}`);
}

const BROKEN_JSON_TEXTS = [
  '',
  ' ',
  '{',
  '}',
  '{"proposal":',
  '{"a":1,}',
  "{'a':1}",
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":undefined}',
  '{"a":1} trailing',
  '{"a":1}{"b":2}',
  '/* comment */ {"a":1}',
  '{"a":"unterminated}',
  '{"a":"raw\nnewline"}',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":+1}',
  '{"a":0x10}',
  '{a:1}',
  '{"a" 1}',
  '[1,2]',
  '"string"',
  '123',
  'true',
  'null',
  '{"a":1,"a":2}',
  '{"__proto__":{"polluted":true}}',
  '{"a":' + '1'.repeat(100_000) + '}',
  '{"a":1e999999}',
  '\u0000',
  'a=b&c=d',
  '<xml/>',
];

function brokenJson(g: Gen, ctx: FuzzContext, e: Endpoint): Draft {
  const base = validBase(g, ctx, e);
  const draft = render(e, { ...base, body: base.body ?? {} }, 'broken-json');
  const valid = draft.body!;
  let body: Buffer;
  let op: string;
  switch (int(g, 0, 6)) {
    case 0:
      body = valid.subarray(0, int(g, 0, Math.max(0, valid.length - 1)));
      op = 'truncated';
      break;
    case 1: {
      const at = int(g, 0, valid.length);
      body = Buffer.concat([valid.subarray(0, at), Buffer.from(pick(g, ['"', "'", ',', '}', ']', '\\', '\u0000', ':', 'x', '{'])), valid.subarray(at)]);
      op = 'garbage-char';
      break;
    }
    case 2:
      body = Buffer.concat([valid.subarray(0, 1), Buffer.from(pick(g, [[0xff, 0xfe], [0xc0, 0xaf], [0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x00]])), valid.subarray(1)]);
      op = 'invalid-utf8';
      break;
    case 3:
      body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), valid]);
      op = 'bom';
      break;
    case 4:
      body = Buffer.from(valid.toString('utf8'), 'utf16le');
      op = 'utf16-as-utf8';
      break;
    default:
      body = Buffer.from(pick(g, BROKEN_JSON_TEXTS));
      op = 'text';
  }
  return { ...draft, kind: `broken-json:${op}`, method: e.method === 'GET' ? 'POST' : e.method, body, value: undefined };
}

function hugeWithin(g: Gen, ctx: FuzzContext, e: Endpoint): Draft {
  const base = validBase(g, ctx, e);
  const room = Math.floor(ctx.bodyLimitBytes * 0.95) - 200;
  const body = base.body && typeof base.body === 'object' && !Array.isArray(base.body) ? base.body : {};
  const filler = pick(g, [
    { pad: 'x'.repeat(room) },
    { pad: Array.from({ length: Math.floor(room / 2) }, () => 1) },
    { pad: Array.from({ length: Math.floor(room / 12) }, (_, i) => `s${i}`) },
    { pad: Object.fromEntries(Array.from({ length: Math.floor(room / 16) }, (_, i) => [`k${i}`, i])) },
  ]);
  return render(e, { ...base, body: { ...body, ...filler } }, 'huge-within');
}

function oversized(g: Gen, ctx: FuzzContext, e: Endpoint): Draft {
  const base = validBase(g, ctx, e);
  const size = ctx.bodyLimitBytes + pick(g, [1, 1024, ctx.bodyLimitBytes]);
  const text = `{"pad":"${'x'.repeat(size)}"}`;
  const draft = render(e, base, 'oversized');
  return { ...draft, method: e.method === 'GET' && chance(g, 0.5) ? 'GET' : 'POST', headers: { ...draft.headers, 'content-type': 'application/json' }, body: Buffer.from(text), value: undefined };
}

function wrongMethod(g: Gen, ctx: FuzzContext, e: Endpoint): Draft {
  const draft = render(e, validBase(g, ctx, e), 'wrong-method');
  const method = pick(g, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'PURGE'].filter((m) => m !== e.method));
  return { ...draft, kind: `wrong-method:${method}`, method, body: method === 'GET' || method === 'HEAD' || method === 'TRACE' ? undefined : draft.body };
}

function badToken(g: Gen, ctx: FuzzContext, e: Endpoint): Draft {
  const draft = render(e, validBase(g, ctx, e), 'bad-token');
  const valid = ctx.tokens.read;
  const flipped = valid.slice(0, -3) + (valid.at(-3) === 'A' ? 'B' : 'A') + valid.slice(-2);
  const value = pick(g, [
    ...ctx.tokens.bad.map((t) => `Bearer ${t}`),
    'Bearer',
    'Bearer ',
    'Bearer  \t ',
    'Basic dXNlcjpwYXNz',
    'Token abc',
    `bearer ${valid}`,
    `Bearer ${valid} extra`,
    `Bearer ${valid.slice(0, -2)}`,
    `Bearer ${flipped}`,
    `Bearer ${'a'.repeat(8000)}`,
    'Bearer x.y',
    'Bearer ..',
    'Bearer a.b.c.d.e',
    `Bearer ${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('{"sub":"urn:li:corpuser:x"}').toString('base64url')}.`,
    `Bearer ${valid}\u00ff`,
    'Bearer \u00e9\u00e8',
    `Bearer ${ctx.tokens.read},Bearer ${ctx.tokens.admin}`,
  ]);
  return { ...draft, kind: 'bad-token', headers: { ...draft.headers, authorization: value }, token: 'none' };
}

let zipBomb: Buffer | undefined;

function headers(g: Gen, ctx: FuzzContext, e: Endpoint): Draft {
  const draft = render(e, { ...validBase(g, ctx, e) }, 'headers');
  const body = draft.body ?? Buffer.from('{}');
  switch (int(g, 0, 4)) {
    case 0:
      return {
        ...draft,
        kind: 'headers:content-type',
        body,
        headers: {
          ...draft.headers,
          'content-type': pick(g, [
            'application/json; charset=utf-16',
            'application/json; charset=foo',
            'application/json; charset=utf-7',
            'application/json; charset=latin1',
            'text/xml',
            'multipart/form-data; boundary=x',
            'application/x-www-form-urlencoded',
            'application/json, text/plain',
            'application/vnd.api+json',
            ';;;',
            'application/json; boundary',
            '',
          ]),
        },
      };
    case 1: {
      const encoding = pick(g, ['gzip', 'deflate', 'br', 'identity', 'foo', 'gzip, gzip', 'zip-bomb', 'gzip-ok']);
      if (encoding === 'zip-bomb') {
        zipBomb ??= gzipSync(Buffer.from(`{"pad":"${'x'.repeat(64 * 1024 * 1024)}"}`));
        return { ...draft, kind: 'headers:zip-bomb', body: zipBomb, headers: { ...draft.headers, 'content-type': 'application/json', 'content-encoding': 'gzip' } };
      }
      if (encoding === 'gzip-ok') return { ...draft, kind: 'headers:gzip', body: gzipSync(body), headers: { ...draft.headers, 'content-type': 'application/json', 'content-encoding': 'gzip' } };
      return { ...draft, kind: 'headers:content-encoding', body, headers: { ...draft.headers, 'content-type': 'application/json', 'content-encoding': encoding } };
    }
    case 2:
      return { ...draft, kind: 'headers:accept', headers: { ...draft.headers, accept: pick(g, ['text/html', 'application/xml', 'application/graphql-response+json', 'image/png', '*/*;q=0', ';;']) } };
    case 3:
      return { ...draft, kind: 'headers:request-id', headers: { ...draft.headers, 'x-request-id': pick(g, ['', '../../x', 'a'.repeat(5000), "'; DROP", '\u00ff\u00fe']) } };
    default:
      return { ...draft, kind: 'headers:no-content-type', headers: Object.fromEntries(Object.entries(draft.headers).filter(([k]) => k !== 'content-type')), body };
  }
}

function graphqlEndpoint(ctx: FuzzContext): Endpoint {
  return ctx.endpoints.find((e) => e.operationId === 'graphql')!;
}

function graphql(g: Gen, ctx: FuzzContext): Draft {
  const e = graphqlEndpoint(ctx);
  const base = graphqlBase(g, ctx);
  const body = base.body as Record<string, unknown>;
  const path = pick(g, ['/api/graphql', '/api/graphql', '/api/v2/graphql', '/gms/api/graphql']);
  const make = (kind: string, value: unknown, token: TokenChoice = base.token): Draft => ({
    endpoint: e,
    kind: `graphql:${kind}`,
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', ...authHeader(ctx, token) },
    body: Buffer.from(serialize(value)),
    token,
    value,
  });
  const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: dataset(urn: "x${i}") { urn }`).join(' ')} }`;
  switch (int(g, 0, 9)) {
    case 0:
      return make('valid', body);
    case 1: {
      const m = mutateBody(g, ctx, body);
      return make(`mutation:${m.op}`, m.body ?? {});
    }
    case 2:
      return make('syntax', { query: pick(g, ['{', 'query {', 'mutation', '}', '{ dataset }', '{ dataset(urn: ) { urn } }', '{ dataset(urn: "x" { urn } }', 'subscription { x }', '{ nope }', '{ dataset(urn: "x") { nope } }', randomText(g, 200), hostileString(g)]) });
    case 3:
      return make(
        'limits',
        {
          query: pick(g, [
            aliases(50),
            `{ dataset(urn: "x") ${'@skip(if: false) '.repeat(50)} { urn } }`,
            `{ dataset(urn: ${JSON.stringify('x'.repeat(100_000))}) { urn } }`,
            'query { ...A } fragment A on Query { ...A }',
            `{ ${'__typename '.repeat(3000)} }`,
            `{ dataset(urn: "x") { deprecation { ${'deprecated '.repeat(2500)} } } }`,
            `{ dataset(urn: ${'['.repeat(1000)}"x"${']'.repeat(1000)}) { urn } }`,
            `{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } }`,
            `query { ${'a: __typename '.repeat(20)} }`,
          ]),
        },
        'read',
      );
    case 4:
      return make('variables', {
        query: 'mutation u($input: UpdateDeprecationInput!) { updateDeprecation(input: $input) }',
        variables: pick(g, [
          'not-an-object',
          [1, 2],
          { input: { urn: hostileUrn(g, ctx.marker), deprecated: true } },
          { input: { urn: names(ctx).ds(0), deprecated: 'yes' } },
          { input: { urn: names(ctx).ds(0), deprecated: true, decommissionTime: pick(g, [RAW('1e400'), '9007199254740993', 'abc', -1, 1.5]) } },
          { input: { urn: names(ctx).ds(0), deprecated: true, extra: 1 } },
          { input: null },
          {},
        ]),
      }, 'write');
    case 5:
      return make('shape', pick(g, [{ query: 5 }, { query: ['{ __typename }'] }, { query: null }, { variables: {} }, [{ query: '{ __typename }' }], { query: '{ __typename }', operationName: 'missing' }, { query: 'query a { __typename } query b { __typename }' }, { query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }, 'x']));
    case 6:
      return make('scope', body, pick(g, ['none', 'read']));
    case 7: {
      const query = encode(pick(g, ['{ __typename }', graphqlQueries(ctx.sample.dataset)[0], 'mutation { updateDeprecation(input: {urn: "x", deprecated: true}) }', '{', hostileString(g)]));
      return { ...make('get', undefined, 'read'), method: 'GET', path: `${path}?query=${query}`, body: undefined, headers: authHeader(ctx, 'read') };
    }
    case 8: {
      const d = brokenJson(g, ctx, e);
      return { ...d, path, kind: `graphql:${d.kind}`, headers: { ...d.headers, ...authHeader(ctx, 'read') } };
    }
    default: {
      const d = pick(g, [oversized, wrongMethod, badToken, headers])(g, ctx, e);
      return { ...d, path, kind: `graphql:${d.kind}` };
    }
  }
}

function deep(g: Gen, ctx: FuzzContext, e: Endpoint): Draft {
  const depth = pick(g, [100, 1000, 10_000, 100_000]);
  const nested = deepNesting(Math.min(depth, Math.floor(ctx.bodyLimitBytes / 6)), pick(g, ['array', 'object']));
  const base = validBase(g, ctx, e);
  const draft = render(e, { ...base, body: base.body ?? {} }, 'deep');
  switch (int(g, 0, 2)) {
    case 0:
      return { ...draft, kind: 'deep:body', method: e.method === 'GET' ? 'POST' : e.method, body: Buffer.from(`{"x":${nested}}`), value: undefined };
    case 1: {
      // Inside an aspect value: the service parses that string itself.
      const n = names(ctx);
      const p = { proposal: { entityType: 'dataset', entityUrn: n.ds(0), changeType: 'UPSERT', aspectName: pick(g, ['datasetProperties', 'status', 'ownership']), aspect: { value: pick(g, [nested, `{"customProperties":${nested}}`, `{"name":"x","description":"y","customProperties":{"a":${nested}}}`]), contentType: 'application/json' } } };
      const ingest = ctx.endpoints.find((x) => x.operationId === 'ingestProposal')!;
      return { ...render(ingest, { path: {}, query: [], body: p, token: 'none' }, 'deep:aspect-value'), endpoint: ingest };
    }
    default: {
      const body = base.body && typeof base.body === 'object' ? base.body : {};
      const m = mutateBody(g, ctx, body);
      return render(e, { ...base, body: m.body ?? {} }, 'deep:field');
    }
  }
}

function unknownPath(g: Gen, ctx: FuzzContext, e: Endpoint): Draft {
  const path = pick(g, [
    '/nothing-here',
    '/',
    '/entitiesV2',
    '/entitiesV2/',
    '//entities',
    '/gms/gms/entities?action=search',
    '/GMS/entities',
    '/entities/../health',
    '/%2e%2e/health',
    '/entitiesV2/a/b/c',
    '/' + 'a'.repeat(5000),
    '/aspects/',
    '/api/graphql/x',
    '/rpc/docs/x',
    '/rpc/openapi.json/..',
    '/favicon.ico',
    '/.env',
    '/entities;jsessionid=x',
    '/entities%00',
    '/entities%2F%2E%2E',
    '/%E0%A4%A',
    '/%ED%A0%80',
    '/health?' + 'x=1&'.repeat(2000),
    '/config/../../etc/passwd',
    '/openapi/relationships/v1/x',
    '/relationships/' + encode(ctx.sample.dataset),
  ]);
  const draft = render(e, validBase(g, ctx, e), 'unknown-path');
  return { ...draft, kind: 'unknown-path', path, method: pick(g, ['GET', 'POST', 'DELETE']) };
}

function httpLevel(g: Gen, ctx: FuzzContext, e: Endpoint): Draft {
  const draft = render(e, validBase(g, ctx, e), 'http');
  switch (int(g, 0, 3)) {
    case 0:
      return { ...draft, kind: 'http:unknown-method', method: pick(g, ['FOO', 'BREW', 'GETT']) };
    case 1:
      return { ...draft, kind: 'http:huge-header', headers: { ...draft.headers, 'x-padding': 'a'.repeat(pick(g, [8_000, 20_000, 70_000])) } };
    case 2:
      return { ...draft, kind: 'http:huge-url', path: `${draft.path}${draft.path.includes('?') ? '&' : '?'}pad=${'a'.repeat(pick(g, [8_000, 20_000, 70_000]))}` };
    default:
      return { ...draft, kind: 'http:many-headers', headers: { ...draft.headers, ...Object.fromEntries(Array.from({ length: pick(g, [100, 2100]) }, (_, i) => [`x-h${i}`, 'v'])) } };
  }
}

/** Builds request `index` of a run with this seed. */
export function generateRequest(ctx: FuzzContext, index: number): FuzzRequest {
  const [g] = fc.sample(fc.gen(), { seed: requestSeed(ctx.seed, index), numRuns: 1 });
  const total = CATEGORIES.reduce((s, [w]) => s + w, 0);
  let roll = int(g, 0, total - 1);
  const [, , category] = CATEGORIES.find(([w]) => (roll -= w) < 0)!;
  const endpoint = pick(g, ctx.endpoints);
  let draft = category(g, ctx, endpoint);
  if (draft.token !== 'none' && !draft.headers.authorization) draft = { ...draft, headers: { ...draft.headers, ...authHeader(ctx, draft.token) } };
  draft = guard(ctx, draft);
  const known = draft.kind !== 'unknown-path' && !draft.kind.startsWith('http:');
  return {
    index,
    endpoint: known ? draft.endpoint.label : draft.kind === 'unknown-path' ? '(unknown path)' : '(http)',
    kind: draft.kind,
    method: draft.method,
    path: draft.path,
    headers: draft.headers,
    body: draft.body,
    writes: draft.endpoint.writes,
  };
}
