import type { RevocationCheck } from '../../auth/revocation-check';
import { InvalidInputError } from '../../model/errors';
import type { FacetFilter, LineageResult, LineageService } from '../../services/lineage/lineage-service';
import type { RouteDefinition, Schema } from '../route';
import { filterSchema } from './search';

const SAMPLE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const UPSTREAM = 'urn:li:dataset:(urn:li:dataPlatform:hive,Upstream,PROD)';

const common: Record<string, Schema> = {
  urn: { type: 'string', minLength: 1, description: 'Start entity; a schemaField urn gives column-level lineage' },
  direction: { type: 'string', enum: ['UPSTREAM', 'DOWNSTREAM', 'BOTH'] },
  entities: { type: 'array', items: { type: 'string' }, description: 'Entity types to return (empty = all)' },
  input: { type: 'string', maxLength: 10000, description: 'Accepted for compatibility; only `*` or empty (no text match on lineage)' },
  filter: filterSchema,
  maxHops: { type: 'integer', minimum: 1, description: 'Hops to walk (at most LINEAGE_MAX_HOPS, default 20); else from the degree filter' },
  fanOut: { type: 'integer', minimum: 1, description: 'Nodes with more onward lineage edges are not expanded (at most LINEAGE_FAN_OUT, default 1,000)' },
  deadlineMs: { type: 'integer', minimum: 1, description: 'Answer within this or fail with 504 (at most LINEAGE_DEADLINE_MS, default 10,000)' },
  includeSoftDeleted: { type: 'boolean', default: false },
  count: { type: 'integer', minimum: 0, default: 10, description: 'At most 10,000' },
  asOfTime: { type: 'integer', minimum: 0, description: 'Epoch ms: the lineage as it was then, from the lineage aspects\' versions valid then (410 before the kept history)' },
};

function request(body: Record<string, unknown>, start: number, revocation: RevocationCheck) {
  const input = body.input as string | undefined;
  if (input !== undefined && input !== '' && input !== '*') throw new InvalidInputError("Lineage search supports input '*' only");
  const filter = body.filter as { or?: { and: FacetFilter[] }[]; criteria?: FacetFilter[] } | null | undefined;
  const orFilters = filter?.or ?? (filter?.criteria ? [{ and: filter.criteria }] : []);
  return {
    urn: body.urn as string,
    direction: body.direction as 'UPSTREAM' | 'DOWNSTREAM' | 'BOTH',
    types: (body.entities as string[] | undefined) ?? [],
    orFilters,
    maxHops: body.maxHops as number | undefined,
    fanOut: body.fanOut as number | undefined,
    deadlineMs: body.deadlineMs as number | undefined,
    includeRemoved: body.includeSoftDeleted === true,
    start,
    count: body.count as number,
    asOfTime: body.asOfTime as number | undefined,
    // DataHub's LineageSearchEntity names each entity by urn only: no aspects to read.
    withAspects: false,
    revocation,
  };
}

/** DataHub's LineageSearchEntity list, plus this service's bounds (`truncated`, `truncatedBy`). */
function entities(result: LineageResult) {
  return result.results.map((r) => ({
    entity: r.urn,
    degree: r.degree,
    degrees: [r.degree],
    paths: [{ path: r.path.map((p) => p.urn) }],
    matchedFields: [],
    explored: true,
  }));
}

const bounds = (r: LineageResult) => ({ truncated: r.truncated, truncatedBy: r.truncatedBy, maxHops: r.maxHops });

/** rest.li lineage actions, with DataHub's parameters. */
export function lineageRoutes(lineage: LineageService): RouteDefinition[] {
  return [
    {
      operationId: 'searchAcrossLineage',
      method: 'POST',
      path: '/entities',
      action: 'searchAcrossLineage',
      tag: 'Lineage',
      summary: 'Multi-hop lineage of an entity or column, paged by start/count, bounded by hops, fan-out, result cap and deadline',
      description:
        'Each result carries its degree (hops) and one shortest path. An answer cut by a bound says `truncated: true` and which (`maxHops`, `fanOut`, `results`); a missed deadline is a 504. Soft-deleted entities are hidden unless includeSoftDeleted.',
      scope: 'none',
      body: { type: 'object', required: ['urn', 'direction'], properties: { ...common, start: { type: 'integer', minimum: 0, default: 0 } } },
      example: {
        request: { urn: UPSTREAM, direction: 'DOWNSTREAM', maxHops: 3, start: 0, count: 10 },
        response: {
          value: { from: 0, pageSize: 1, numEntities: 1, entities: [{ entity: SAMPLE, degree: 1, degrees: [1], paths: [{ path: [UPSTREAM, SAMPLE] }], matchedFields: [], explored: true }], metadata: { aggregations: [] }, truncated: false, truncatedBy: [], maxHops: 3 },
        },
      },
      revocationInStatements: true,
      handle: async ({ body, revocation }) => {
        const result = await lineage.lineage(request(body, body.start as number, revocation));
        return { value: { from: result.start, pageSize: result.count, numEntities: result.total, entities: entities(result), metadata: { aggregations: [] }, ...bounds(result) } };
      },
    },
    {
      operationId: 'scrollAcrossLineage',
      method: 'POST',
      path: '/entities',
      action: 'scrollAcrossLineage',
      tag: 'Lineage',
      summary: 'Multi-hop lineage, paged by scrollId (same bounds as searchAcrossLineage)',
      scope: 'none',
      body: { type: 'object', required: ['urn', 'direction'], properties: { ...common, scrollId: { type: ['string', 'null'] }, keepAlive: { type: 'string' } } },
      example: {
        request: { urn: UPSTREAM, direction: 'DOWNSTREAM', count: 10 },
        response: { value: { pageSize: 1, numEntities: 1, entities: [{ entity: SAMPLE, degree: 1, degrees: [1], paths: [{ path: [UPSTREAM, SAMPLE] }], matchedFields: [], explored: true }], metadata: { aggregations: [] }, truncated: false, truncatedBy: [], maxHops: 20 } },
      },
      revocationInStatements: true,
      handle: async ({ body, revocation }) => {
        const start = decodeScrollId(body.scrollId as string | null | undefined);
        const result = await lineage.lineage(request(body, start, revocation));
        const next = result.start + result.count < result.total && result.count > 0 ? encodeScrollId(result.start + result.count) : undefined;
        return { value: { ...(next ? { scrollId: next } : {}), pageSize: result.count, numEntities: result.total, entities: entities(result), metadata: { aggregations: [] }, ...bounds(result) } };
      },
    },
  ];
}

/** A scroll id is the next offset (the traversal is re-run; its order is stable: degree, then urn). */
export function encodeScrollId(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url');
}

export function decodeScrollId(raw: string | null | undefined): number {
  if (raw === undefined || raw === null || raw === '') return 0;
  try {
    const offset = (JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { offset?: unknown }).offset;
    if (typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0) return offset;
  } catch {
    /* reported below */
  }
  throw new InvalidInputError('Invalid scrollId');
}
