import { InvalidInputError, NotFoundError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { AspectStore, StoredAspect } from '../stores/graph/aspect-store';
import type { EdgeCursor, EdgeScrollStore } from '../stores/graph/edge-scroll-store';
import type { RetrievalService } from './retrieval';
import { DEFAULT_RUN_ID } from './write-path/prepare';
import { ENTITY_TYPE_FACET, validateKeepAlive, type AcrossEntitiesSearch, type SortCriterion } from './search/across-entities';
import { parseFilter, type Filter } from './search/query-builder';

const MAX_BATCH = 1000;
const MAX_PAGE = 10_000;

/** An entity in DataHub's OpenAPI v3 form: `{urn, <aspect>: {value, systemMetadata?}}`. */
export type V3Entity = Record<string, unknown> & { urn: string };

/** A facet of an OpenAPI v3 scroll: the hits per value of `field` (DataHub's `entity`: per entity type). */
export interface V3Facet {
  field: string;
  aggregations: Record<string, number>;
}

/** The entity type segment of DataHub's `/openapi/v3/entity/generic/...` façade: the type is the urn's own. */
export const GENERIC = 'generic';

/** DataHub's OpenAPI v3 filter body: `{and: [{criteria: [...]}, ...]}`, each inner list ANDed, the outer list ORed. */
export function parseV3Filter(raw: unknown, what = 'filter'): Filter {
  if (raw === undefined || raw === null) return [];
  const body = raw as { and?: unknown; or?: unknown; criteria?: unknown };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new InvalidInputError(`${what} must be an object {and: [{criteria: [...]}]}`);
  if (body.or !== undefined || body.criteria !== undefined) return parseFilter(raw);
  if (!Array.isArray(body.and)) throw new InvalidInputError(`${what}.and must be a list of {criteria: [...]}`);
  return parseFilter({
    or: body.and.map((group, i) => {
      const criteria = (group as { criteria?: unknown })?.criteria;
      if (!Array.isArray(criteria)) throw new InvalidInputError(`${what}.and[${i}] must be {criteria: [...]}`);
      return { and: criteria };
    }),
  });
}

function encodeEdgeCursor(cursor: EdgeCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeEdgeCursor(scrollId: unknown): EdgeCursor | null {
  if (scrollId === undefined || scrollId === null || scrollId === '') return null;
  try {
    const parsed = JSON.parse(Buffer.from(String(scrollId), 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parsed) && parsed.length === 3 && parsed.every((v) => typeof v === 'string')) return parsed as EdgeCursor;
  } catch {
    /* refused below */
  }
  throw new InvalidInputError('scrollId is not a scroll id this service issued');
}

function boundedCount(count: number | undefined, fallback: number): number {
  const n = count ?? fallback;
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_PAGE) throw new InvalidInputError(`count must be between 0 and ${MAX_PAGE}`);
  return n;
}

/** The urns a relationship-scroll filter names: only `urn` criteria (EQUAL or IN) can select edge ends. */
/**
 * The values a filter allows for one field (null: no filter), where that field (EQUAL or IN) is all it may name: the
 * union over its OR groups of each AND group's intersection. Relationship scrolls filter their ends by urn and edges by
 * relationshipType this way.
 */
function valuesOf(filter: Filter, field: string, what: string): string[] | null {
  if (filter.length === 0) return null;
  const values = new Set<string>();
  for (const group of filter) {
    const own = group.filter((c) => c.field === field && (c.condition === 'EQUAL' || c.condition === 'IN') && !c.negated);
    const other = group.find((c) => !own.includes(c));
    if (other) throw new InvalidInputError(`${what} supports ${field} criteria (EQUAL or IN) only; got '${other.field}' ${other.condition}${other.negated ? ' negated' : ''}`);
    let groupValues: string[] | null = null;
    for (const c of own) groupValues = groupValues === null ? [...c.values] : groupValues.filter((v) => c.values.includes(v));
    for (const v of groupValues ?? []) values.add(v);
  }
  return [...values];
}

/**
 * Reads of several entities at once and scrolls over entities and edges, in the forms of DataHub's rest.li batch get
 * and OpenAPI v3 (what the official client's get_entities, scroll_entities, scroll_relationships and scroll_lineage call).
 */
export class EntityReads {
  constructor(
    private readonly registry: Registry,
    private readonly store: AspectStore,
    private readonly retrieval: RetrievalService,
    private readonly edges: EdgeScrollStore,
    private readonly search: AcrossEntitiesSearch,
  ) {}

  /** Latest values of the named aspects of many entities (GraphQL entity fields); entities that do not exist are absent. */
  async aspectsOfMany(urns: string[], names: string[]): Promise<Map<string, Map<string, Record<string, unknown>>>> {
    if (urns.length === 0) return new Map();
    const rows = await this.store.latestMany(urns, names);
    return new Map([...rows].map(([urn, row]) => [urn, row.aspects]));
  }

  /** One version of an aspect (0: latest, n > 0: history version n); null when it does not exist. */
  async aspectVersion(urn: string, name: string, version: number): Promise<{ value: Record<string, unknown> } | null> {
    return this.store.version(urn, name, version);
  }

  /** The urns among these that are stored entities (GraphQL's entities by urn). */
  async existing(urns: string[]): Promise<Set<string>> {
    return urns.length === 0 ? new Set() : this.store.existing(urns);
  }

  /** Whether the urn is a stored entity (GraphQL's entity-by-urn queries answer null otherwise). */
  async exists(urn: string): Promise<boolean> {
    return (await this.store.existing([urn])).has(urn);
  }

  /**
   * When the entity was last ingested, as DataHub's `lastIngested`: the latest `lastObserved` among its aspects written
   * by an ingestion run (a run id other than the default); null when none was.
   */
  async lastIngested(urn: string): Promise<number | null> {
    let last: number | null = null;
    for (const a of await this.store.latest(urn, null)) {
      const metadata = a.systemMetadata;
      const observed = metadata?.lastObserved;
      if (typeof observed !== 'number' || typeof metadata?.runId !== 'string' || metadata.runId === DEFAULT_RUN_ID) continue;
      if (last === null || observed > last) last = observed;
    }
    return last;
  }

  /** rest.li `GET /entitiesV2?ids=List(...)`: found entities in `results`; the others in `errors` as 404s, as rest.li reports them. */
  async batchEntitiesV2(urns: string[], aspects: string[] | null) {
    if (urns.length === 0) throw new InvalidInputError('ids must name at least one urn');
    if (urns.length > MAX_BATCH) throw new InvalidInputError(`At most ${MAX_BATCH} ids per batch get`);
    const parsed = [...new Set(urns)].map((u) => this.registry.parseEntityUrn(u, 'id').urn.raw);
    const existing = await this.store.existing(parsed);
    const found = await Promise.all(parsed.filter((u) => existing.has(u)).map((u) => this.retrieval.entityV2(u, aspects)));
    const results: Record<string, unknown> = {};
    for (const entity of found) results[entity.urn] = entity;
    const errors: Record<string, unknown> = {};
    for (const u of parsed) {
      if (!existing.has(u)) errors[u] = { status: 404, message: `No entity ${u}`, exceptionClass: 'com.linkedin.restli.server.RestLiServiceException' };
    }
    return { statuses: {}, results, errors };
  }

  private entityName(raw: string): string {
    return this.registry.entityAnyCase(raw).name;
  }

  private v3Form(urn: string, aspects: StoredAspect[], systemMetadata: boolean): V3Entity {
    const out: V3Entity = { urn };
    for (const a of [...aspects].sort((x, y) => x.name.localeCompare(y.name))) {
      out[a.name] = { value: a.value, ...(systemMetadata && a.systemMetadata ? { systemMetadata: a.systemMetadata } : {}) };
    }
    return out;
  }

  /** Latest aspects of existing entities (null names = all), in v3 form; an entity without any stored aspect is left out. */
  async v3Entities(requests: { urn: string; aspects: string[] | null }[], systemMetadata: boolean): Promise<V3Entity[]> {
    const read = await Promise.all(requests.map((r) => this.store.latest(r.urn, r.aspects)));
    return requests.flatMap((r, i) => (read[i].length > 0 ? [this.v3Form(r.urn, read[i], systemMetadata)] : []));
  }

  private checkUrn(entityName: string, raw: unknown): string {
    const { urn, entity } = this.registry.parseEntityUrn(raw);
    if (entity.name !== entityName) throw new InvalidInputError(`${urn.raw} is not a ${entityName}`);
    return urn.raw;
  }

  private checkAspects(entityName: string, names: string[]): string[] {
    const entity = this.registry.entity(entityName);
    for (const n of names) this.registry.aspectFor(entity, n);
    return names;
  }

  /** `POST /openapi/v3/entity/{entityName}/batchGet`: body `[{urn, <aspect>: {}}]`; no aspect named = all aspects. */
  async v3BatchGet(rawEntityName: string, body: unknown, systemMetadata: boolean): Promise<V3Entity[]> {
    const entityName = this.entityName(rawEntityName);
    if (!Array.isArray(body)) throw new InvalidInputError('The body must be a list of {urn, <aspectName>: {}}');
    if (body.length > MAX_BATCH) throw new InvalidInputError(`At most ${MAX_BATCH} entities per batchGet`);
    const requests = body.map((item, i) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new InvalidInputError(`body[${i}] must be an object {urn, <aspectName>: {}}`);
      const { urn, ...aspects } = item as Record<string, unknown>;
      const names = Object.keys(aspects);
      return { urn: this.checkUrn(entityName, urn), aspects: names.length > 0 ? this.checkAspects(entityName, names) : null };
    });
    return this.v3Entities(requests, systemMetadata);
  }

  /** `GET /openapi/v3/entity/{entityName}/{urn}`: 404 when the entity has no stored aspect. */
  async v3Get(rawEntityName: string, rawUrn: string, aspects: string[] | null, systemMetadata: boolean): Promise<V3Entity> {
    const entityName = rawEntityName === GENERIC ? this.registry.parseEntityUrn(rawUrn).entity.name : this.entityName(rawEntityName);
    const urn = this.checkUrn(entityName, rawUrn);
    const names = aspects && aspects.length > 0 ? this.checkAspects(entityName, aspects) : null;
    const [entity] = await this.v3Entities([{ urn, aspects: names }], systemMetadata);
    if (!entity) throw new NotFoundError(`No entity ${urn}`);
    return entity;
  }

  /**
   * `GET /openapi/v3/entity/{entityName}` and `POST /openapi/v3/entity/scroll`: a page of entities from the search index
   * with their aspects read from Neo4j. `aspects` null = urns only, [] = all aspects.
   */
  async v3Scroll(request: {
    entityNames: string[];
    aspects: string[] | null;
    count?: number;
    query?: string;
    scrollId?: string;
    sort: SortCriterion[];
    filter: Filter;
    includeSoftDelete: boolean;
    systemMetadata: boolean;
    pitKeepAlive?: string;
    /** DataHub's `entity` facet (hits per entity type), as its cross-entity scroll answers unless skipAggregation. */
    entityFacet?: boolean;
  }): Promise<{ scrollId: string | null; entities: V3Entity[]; totalCount: number; facets: V3Facet[] }> {
    validateKeepAlive(request.pitKeepAlive);
    const types = request.entityNames.length > 0 ? request.entityNames.map((n) => this.entityName(n)) : [...this.registry.entities.keys()];
    if (request.aspects && request.aspects.length > 0 && types.length === 1) this.checkAspects(types[0], request.aspects);
    const page = await this.search.scroll({
      types,
      input: request.query ?? '*',
      filter: request.filter,
      sort: request.sort,
      includeSoftDeleted: request.includeSoftDelete,
      // DataHub lowers a count above its page limit to the limit without saying so; its clients rely on that.
      count: boundedCount(Math.min(request.count ?? 10, MAX_PAGE), 10),
      scrollId: request.scrollId,
      facets: request.entityFacet ? [ENTITY_TYPE_FACET] : [],
      skipAggregates: !request.entityFacet,
      skipHighlighting: true,
    });
    const urns = page.hits.map((h) => h.urn);
    let entities: V3Entity[];
    if (request.aspects === null) entities = urns.map((urn) => ({ urn }));
    else {
      const wanted = request.aspects.length > 0 ? request.aspects : null;
      const read = await Promise.all(urns.map((urn) => this.store.latest(urn, wanted)));
      entities = urns.map((urn, i) => this.v3Form(urn, read[i], request.systemMetadata));
    }
    const facets = page.facets
      .filter((f) => f.field === ENTITY_TYPE_FACET)
      .map((f) => ({ field: 'entity', aggregations: Object.fromEntries(f.values.map((v) => [v.value, v.count])) }));
    return { scrollId: page.nextScrollId, entities, totalCount: page.total, facets };
  }

  /** `POST /openapi/v3/relationship/scroll`. INCOMING swaps which end the source and destination filters select. */
  async relationshipScroll(request: {
    relationshipTypes?: string[];
    sourceTypes?: string[];
    destinationTypes?: string[];
    direction?: 'INCOMING' | 'OUTGOING';
    count?: number;
    scrollId?: string;
    includeSoftDelete: boolean;
    pitKeepAlive?: string;
    sourceFilter?: unknown;
    destinationFilter?: unknown;
    edgeFilter?: unknown;
  }) {
    validateKeepAlive(request.pitKeepAlive);
    // Edges carry no properties of their own to filter on here; their type is what an edge filter can name.
    const filteredTypes = valuesOf(parseV3Filter(request.edgeFilter, 'edgeFilter'), 'relationshipType', 'edgeFilter');
    const named = request.relationshipTypes?.length ? request.relationshipTypes : null;
    const types = filteredTypes === null ? named : named === null ? filteredTypes : named.filter((t) => filteredTypes.includes(t));
    const sourceUrns = valuesOf(parseV3Filter(request.sourceFilter, 'sourceFilter'), 'urn', 'sourceFilter');
    const destinationUrns = valuesOf(parseV3Filter(request.destinationFilter, 'destinationFilter'), 'urn', 'destinationFilter');
    const sourceTypes = request.sourceTypes?.length ? request.sourceTypes.map((t) => this.entityName(t)) : null;
    const destinationTypes = request.destinationTypes?.length ? request.destinationTypes.map((t) => this.entityName(t)) : null;
    const incoming = request.direction === 'INCOMING';
    const count = boundedCount(request.count, 10);
    const rows =
      count === 0 || types?.length === 0
        ? []
        : await this.edges.edges({
            types,
            sourceTypes: incoming ? destinationTypes : sourceTypes,
            destinationTypes: incoming ? sourceTypes : destinationTypes,
            sourceUrns: incoming ? destinationUrns : sourceUrns,
            destinationUrns: incoming ? sourceUrns : destinationUrns,
            includeRemoved: request.includeSoftDelete,
            after: decodeEdgeCursor(request.scrollId),
            count,
          });
    const last = rows[rows.length - 1];
    return {
      results: rows.map((r) => ({ relationshipType: r.type, source: { urn: r.source, entityType: r.sourceType }, destination: { urn: r.destination, entityType: r.destinationType } })),
      scrollId: rows.length === count && last ? encodeEdgeCursor([last.source, last.type, last.destination]) : null,
    };
  }

  /** `POST /openapi/v3/lineage/scroll`: lineage edges touching `urns` (any end), each with its upstream and downstream end. */
  async lineageScroll(request: {
    urns?: string[] | null;
    relationshipTypes?: string[];
    direction?: 'UPSTREAM' | 'DOWNSTREAM';
    count?: number;
    scrollId?: string;
    includeSoftDelete: boolean;
    pitKeepAlive?: string;
  }) {
    validateKeepAlive(request.pitKeepAlive);
    const lineage = this.registry.lineageRelationships();
    const wanted = request.relationshipTypes?.length ? request.relationshipTypes : [...lineage.keys()];
    const notLineage = wanted.filter((t) => !lineage.has(t));
    if (notLineage.length > 0) throw new InvalidInputError(`Not lineage relationships: ${notLineage.join(', ')}`);
    const urns = request.urns && request.urns.length > 0 ? request.urns.map((u) => this.registry.parseUrnLoosely(u)) : null;
    const count = boundedCount(request.count, 10);
    const rows =
      count === 0
        ? []
        : await this.edges.lineage({
            types: wanted,
            upstreamTypes: wanted.filter((t) => lineage.get(t)!.isUpstream),
            urns,
            direction: urns ? (request.direction ?? null) : null,
            includeRemoved: request.includeSoftDelete,
            after: decodeEdgeCursor(request.scrollId),
            count,
          });
    const last = rows[rows.length - 1];
    return {
      results: rows.map((r) => ({
        relationshipType: r.type,
        source: { urn: r.source, entityType: r.sourceType },
        destination: { urn: r.destination, entityType: r.destinationType },
        upstream: r.upstream,
        downstream: r.downstream,
      })),
      scrollId: rows.length === count && last ? encodeEdgeCursor([last.source, last.type, last.destination]) : null,
    };
  }
}
