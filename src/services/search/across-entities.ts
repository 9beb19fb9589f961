import { DEFAULT_SEARCH_TYPES, EntityTypeNames } from '../../model/entity-type-names';
import { InvalidInputError } from '../../model/errors';
import type { Registry } from '../../model/registry';
import { structuredProperties, structuredPropertyIndexField } from '../../model/aspects/structuredProperties';
import type { Body, MultiSearchRequest, SearchHit, SearchResult } from '../../stores/search/engine';
import type { IndexNames } from '../../stores/search/mappings';
import type { DeletedHitGuard } from './deleted-hit-guard';
import { facetKeyText } from './facet-keys';
import { facetAggregations, filterQuery, namesRemoved, NOT_REMOVED, queriedFields, SearchSchema, textQuery, type Criterion, type FacetLocation, type Filter } from './query-builder';

const MAX_COUNT = 10_000;
const WINDOW = 10_000;
const DEFAULT_AGG_VALUES = 20;
const MAX_AGG_VALUES = 1000;

export interface SortCriterion {
  field: string;
  order: 'ASCENDING' | 'DESCENDING';
}

export interface AcrossRequest {
  /** Model entity type names; null or empty = DataHub's default search set. */
  types: string[] | null;
  input: string;
  filter: Filter;
  sort: SortCriterion[];
  /** false: soft-deleted entities are hidden unless the filter names `removed` (as in DataHub). */
  includeSoftDeleted: boolean;
  count: number;
  /** null = the default facets (`_entityType` and every facet of the searched types); [] = none. */
  facets?: string[] | null;
  skipAggregates?: boolean;
  skipHighlighting?: boolean;
  maxAggValues?: number | null;
  /** Document fields returned with each hit (DataHub's `fetchExtraFields`). */
  extraFields?: string[] | null;
}

export interface AcrossHit {
  urn: string;
  entityType: string;
  score: number | null;
  matchedFields: { name: string; value: string }[];
  /** Requested document fields, each as JSON text. */
  extraFields: Record<string, string>;
}

export interface AcrossFacet {
  field: string;
  displayName: string;
  values: { value: string; count: number }[];
}

export interface AcrossResult {
  total: number;
  hits: AcrossHit[];
  facets: AcrossFacet[];
}

/** The `_entityType` facet and filter field: entity type names, matched against each document's `entityType`. */
export const ENTITY_TYPE_FACET = '_entityType';
const ENTITY_TYPE_FIELDS = new Set(['_entityType', '_entityType.keyword', 'entityType', 'entityType.keyword']);

/** Display names of the facets DataHub names (its filterNameOverride); others show their field name. */
const DISPLAY_NAMES: Record<string, string> = {
  _entityType: 'Type',
  platform: 'Platform',
  origin: 'Environment',
  env: 'Environment',
  tags: 'Tag',
  fieldTags: 'Column Tag',
  glossaryTerms: 'Glossary Term',
  fieldGlossaryTerms: 'Column Glossary Term',
  owners: 'Owned By',
  domains: 'Domain',
  container: 'Container',
  typeNames: 'Sub Type',
  platformInstance: 'Platform Instance',
  dataProducts: 'Data Product',
};

/** A scroll id: the sort values of the last hit returned and how many hits came before it. Opaque to callers. */
interface ScrollCursor {
  after: unknown[];
  seen: number;
}

export function encodeScrollCursor(cursor: ScrollCursor): string {
  return Buffer.from(JSON.stringify({ a: cursor.after, n: cursor.seen })).toString('base64url');
}

export function decodeScrollCursor(scrollId: string | null | undefined): ScrollCursor | null {
  if (scrollId === null || scrollId === undefined || scrollId === '') return null;
  try {
    const parsed = JSON.parse(Buffer.from(scrollId, 'base64url').toString('utf8')) as { a?: unknown; n?: unknown };
    if (Array.isArray(parsed.a) && parsed.a.length > 0 && parsed.a.length <= 10 && Number.isSafeInteger(parsed.n) && (parsed.n as number) >= 0) {
      if (parsed.a.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v))) return { after: parsed.a, seen: parsed.n as number };
    }
  } catch {
    /* refused below */
  }
  throw new InvalidInputError('scrollId is not a scroll id this service issued');
}

/** A keep-alive like DataHub's (`5m`, `30s`, `1h`). Scroll ids here hold no engine context, so they never expire. */
export function validateKeepAlive(keepAlive: string | null | undefined): void {
  if (keepAlive !== null && keepAlive !== undefined && !/^\d{1,9}(ms|s|m|h|d)$/.test(keepAlive)) {
    throw new InvalidInputError(`keepAlive must be a duration such as 5m, got ${JSON.stringify(keepAlive).slice(0, 50)}`);
  }
}

interface Prepared {
  types: string[];
  schemas: Map<string, SearchSchema>;
  index: string;
  filter: Filter;
  /** The query every hit must match (text, type, filter, soft-delete default). */
  query: Body;
  softDeleteDefault: boolean;
}

/**
 * Search over several entity types at once (DataHub's searchAcrossEntities, scrollAcrossEntities and
 * aggregateAcrossEntities): one engine query over their indices, each type searched with its own fields, plus, for
 * facets, one size-0 search per type, all in one multi-search. A filter on a field a type does not index matches none
 * of its entities (negated: all), as in DataHub.
 */
export class AcrossEntitiesSearch {
  private readonly schemas = new Map<string, SearchSchema>();
  readonly names: EntityTypeNames;

  constructor(
    private readonly registry: Registry,
    private readonly indices: IndexNames,
    private readonly guard: DeletedHitGuard,
  ) {
    this.names = new EntityTypeNames(registry);
  }

  /** The namespace of this service's urns. */
  get urnNamespace(): string {
    return this.registry.urnNamespace;
  }

  private schema(type: string): SearchSchema {
    let schema = this.schemas.get(type);
    if (!schema) {
      schema = SearchSchema.fromRegistry(this.registry, this.registry.entity(type));
      this.schemas.set(type, schema);
    }
    return schema;
  }

  /** Model names of the requested types (GraphQL names accepted); the default set when none. */
  resolveTypes(types: string[] | null | undefined): string[] {
    if (!types || types.length === 0) return DEFAULT_SEARCH_TYPES.filter((t) => this.registry.entities.has(t));
    const out: string[] = [];
    for (const t of types) {
      const model = this.names.model(t);
      if (!model) throw new InvalidInputError(`Unknown entity type '${t}'`);
      if (!out.includes(model)) out.push(model);
    }
    return out;
  }

  /** `_entityType` criteria become criteria on each document's `entityType`, with model names as values. */
  private normalizeFilter(filter: Filter): Filter {
    return filter.map((group) =>
      group.map((c): Criterion => (ENTITY_TYPE_FIELDS.has(c.field) ? { ...c, field: 'entityType', values: c.values.map((v) => this.names.model(v) ?? v) } : c)),
    );
  }

  private prepare(request: AcrossRequest): Prepared {
    if (!Number.isSafeInteger(request.count) || request.count < 0 || request.count > MAX_COUNT) throw new InvalidInputError(`count must be between 0 and ${MAX_COUNT}`);
    const types = this.resolveTypes(request.types);
    const schemas = new Map(types.map((t) => [t, this.schema(t)]));
    const filter = this.normalizeFilter(request.filter);
    // DataHub hides soft-deleted entities unless asked for them, or unless the filter itself says what `removed` must be.
    const softDeleteDefault = !request.includeSoftDeleted && !namesRemoved(filter);
    // Types whose text query and filter come out the same share one clause.
    const clauses = new Map<string, { types: string[]; text: Body; filter: Body | null }>();
    for (const [type, schema] of schemas) {
      const text = textQuery(request.input ?? '*', schema);
      const typeFilter = filterQuery(filter, schema);
      const key = JSON.stringify([text, typeFilter]);
      const clause = clauses.get(key);
      if (clause) clause.types.push(type);
      else clauses.set(key, { types: [type], text, filter: typeFilter });
    }
    // Each type's clause is kept to its own indices by `_index`, which each shard resolves before it builds the query:
    // the other types' clauses become match-none there, so a shard counts only its own type's clauses against the
    // engine's limit of 1,024 (with `entityType` instead, a dataset shard counted every type's text query, failed with
    // too_many_nested_clauses, and the search answered without its datasets).
    const clauseQuery = ({ types: of, text, filter: f }: { types: string[]; text: Body; filter: Body | null }): Body => ({
      bool: { must: [text], filter: [{ terms: { _index: of.map((t) => this.indices.entity(t)) } }, ...(f ? [f] : [])] },
    });
    const all = [...clauses.values()];
    const query: Body =
      all.length === 1
        ? { bool: { must: [all[0].text], filter: [{ terms: { entityType: all[0].types } }, ...(all[0].filter ? [all[0].filter] : []), ...(softDeleteDefault ? [NOT_REMOVED] : [])] } }
        : { bool: { should: all.map(clauseQuery), minimum_should_match: 1, ...(softDeleteDefault ? { filter: [NOT_REMOVED] } : {}) } };
    return { types, schemas, index: types.map((t) => this.indices.entity(t)).join(','), filter, query, softDeleteDefault };
  }

  private sortOf(prepared: Prepared, sort: SortCriterion[]): Body[] {
    const out: Body[] = [];
    for (const s of sort) {
      if (s.order !== 'ASCENDING' && s.order !== 'DESCENDING') throw new InvalidInputError(`sort order must be ASCENDING or DESCENDING, got ${JSON.stringify(s.order)}`);
      const order = s.order === 'ASCENDING' ? 'asc' : 'desc';
      if (s.field === '_score') {
        out.push({ _score: order });
        continue;
      }
      const base = s.field.replace(/\.keyword$/, '');
      const owner = [...prepared.schemas.values()].find((schema) => schema.fields.has(base));
      if (!owner) throw new InvalidInputError(`Cannot sort on '${s.field}': no searched entity type indexes it`);
      const field = owner.exactField(base);
      out.push({ [field]: { order, unmapped_type: this.unmappedType(owner, base) } });
    }
    if (out.length === 0) out.push({ _score: 'desc' });
    if (!sort.some((s) => s.field === 'urn')) out.push({ urn: 'asc' });
    return out;
  }

  private unmappedType(schema: SearchSchema, field: string): string {
    if (field === 'removed') return 'boolean';
    const spec = this.registry.entity(schema.entity);
    for (const aspect of spec.aspects) {
      for (const f of this.registry.aspects.get(aspect)?.searchable ?? []) {
        if (f.fieldName !== field) continue;
        if (f.fieldType === 'COUNT') return 'long';
        if (f.fieldType === 'DATETIME') return 'date';
        if (f.fieldType === 'BOOLEAN') return 'boolean';
      }
    }
    return 'keyword';
  }

  private hitsBody(prepared: Prepared, request: AcrossRequest, sort: Body[]): Body {
    const matchAll = (request.input ?? '*').trim() === '' || (request.input ?? '*').trim() === '*';
    const highlightFields = new Set<string>();
    if (!matchAll && !request.skipHighlighting) for (const schema of prepared.schemas.values()) for (const f of queriedFields(request.input, schema)) highlightFields.add(f);
    const extra = request.extraFields ?? [];
    return {
      query: prepared.query,
      sort,
      _source: ['entityType', ...extra],
      ...(highlightFields.size > 0
        ? { highlight: { pre_tags: [''], post_tags: [''], number_of_fragments: 0, require_field_match: false, fields: Object.fromEntries([...highlightFields].map((f) => [f, {}])) } }
        : {}),
    };
  }

  /** The facets asked for, or DataHub's default: `_entityType` and every facet of the searched types. */
  private facetNames(prepared: Prepared, request: AcrossRequest): string[] {
    if (request.skipAggregates) return [];
    if (request.facets) return [...new Set(request.facets.map((f) => (ENTITY_TYPE_FIELDS.has(f) ? ENTITY_TYPE_FACET : (structuredPropertyIndexField(f) ?? f.replace(/\.keyword$/, '')))))];
    const names = [ENTITY_TYPE_FACET];
    for (const schema of prepared.schemas.values()) for (const f of schema.facets) if (!names.includes(f)) names.push(f);
    return names;
  }

  /** One size-0 search per type: each facet counts under the filter without its own criteria, as a single-type search does. */
  private facetRequests(prepared: Prepared, request: AcrossRequest, facets: string[]): { request: MultiSearchRequest; locations: FacetLocation[] }[] {
    if (facets.length === 0) return [];
    const size = Math.min(Math.max(request.maxAggValues ?? DEFAULT_AGG_VALUES, 1), MAX_AGG_VALUES);
    const out: { request: MultiSearchRequest; locations: FacetLocation[] }[] = [];
    for (const [type, schema] of prepared.schemas) {
      const wanted = (name: string) => facets.includes(name === 'entityType' ? ENTITY_TYPE_FACET : name);
      const structured = this.registry.entity(type).aspects.has(structuredProperties.name) ? facets.filter((f) => structuredPropertyIndexField(f) === f) : [];
      if (![...schema.fields.keys()].some(wanted) && structured.length === 0) continue;
      // The type's own fields (so filters translate as in the hits query), with only the asked-for ones as facets.
      const facetSchema = schema.withFacets(wanted, structured);
      const { aggs, facets: locations, filterInQuery } = facetAggregations(prepared.filter, facetSchema, size);
      const whole = filterQuery(prepared.filter, schema);
      const text = textQuery(request.input ?? '*', schema);
      const body: Body = {
        size: 0,
        query: { bool: { must: [text], filter: [...(prepared.softDeleteDefault ? [NOT_REMOVED] : []), ...(filterInQuery && whole ? [whole] : [])] } },
        aggs,
      };
      out.push({ request: { index: this.indices.entity(type), body }, locations });
    }
    return out;
  }

  private mergeFacets(facets: string[], parts: { locations: FacetLocation[]; result: SearchResult }[], request: AcrossRequest): AcrossFacet[] {
    const size = Math.min(Math.max(request.maxAggValues ?? DEFAULT_AGG_VALUES, 1), MAX_AGG_VALUES);
    const counts = new Map<string, Map<string, number>>(facets.map((f) => [f, new Map()]));
    for (const { locations, result } of parts) {
      for (const { facet, path } of locations) {
        const terms = path.reduce<Record<string, unknown> | undefined>((at, name) => at?.[name] as Record<string, unknown> | undefined, result.aggregations);
        const name = facet === 'entityType' ? ENTITY_TYPE_FACET : facet;
        const into = counts.get(name);
        if (!into) continue;
        for (const b of (terms?.buckets as { key: unknown; key_as_string?: string; doc_count: number }[] | undefined) ?? []) {
          if (b.doc_count === 0) continue;
          const key = facetKeyText(name, b.key, b.key_as_string);
          into.set(key, (into.get(key) ?? 0) + b.doc_count);
        }
      }
    }
    return facets.map((field) => ({
      field,
      displayName: DISPLAY_NAMES[field] ?? field,
      values: [...counts.get(field)!.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
        .slice(0, size)
        .map(([value, count]) => ({ value, count })),
    }));
  }

  private toHit(hit: SearchHit, extraFields: string[]): AcrossHit {
    const extra: Record<string, string> = {};
    for (const name of extraFields) if (hit.source[name] !== undefined) extra[name] = JSON.stringify(hit.source[name]);
    return {
      urn: hit.id,
      entityType: String(hit.source.entityType ?? ''),
      score: hit.score,
      matchedFields: Object.entries(hit.highlight ?? {})
        .filter(([name]) => !['nameExact', 'autocomplete'].includes(name.split('.')[0]))
        .map(([name, values]) => ({ name: name.replace(/\.keyword$/, ''), value: values[0] ?? '' })),
      extraFields: extra,
    };
  }

  private async run(prepared: Prepared, request: AcrossRequest, hitsBody: Body | null) {
    const facets = this.facetNames(prepared, request);
    const facetParts = this.facetRequests(prepared, request, facets);
    const requests: MultiSearchRequest[] = [...(hitsBody ? [{ index: prepared.index, body: hitsBody }] : []), ...facetParts.map((p) => p.request)];
    if (requests.length === 0) return { raw: null, hits: [] as SearchHit[], facets: this.mergeFacets(facets, [], request) };
    const { results, hits } = await this.guard.search(requests, (r) => (hitsBody ? r[0].hits : []));
    const offset = hitsBody ? 1 : 0;
    const merged = this.mergeFacets(
      facets,
      facetParts.map((p, i) => ({ locations: p.locations, result: results[offset + i] })),
      request,
    );
    return { raw: hitsBody ? results[0] : null, hits, facets: merged };
  }

  /** The engine requests of a search page: the hits, then the facets (benchmarks send them straight to the engine). */
  buildSearch(request: AcrossRequest & { start: number }): MultiSearchRequest[] {
    const { prepared, body } = this.searchBody(request);
    return [{ index: prepared.index, body }, ...this.facetRequests(prepared, request, this.facetNames(prepared, request)).map((p) => p.request)];
  }

  /** The engine request of a scroll page after the engine sort values `after` (none: the first page), facets left out. */
  buildScrollPage(request: AcrossRequest, after: unknown[] | null): MultiSearchRequest {
    const prepared = this.prepare(request);
    return { index: prepared.index, body: { ...this.hitsBody(prepared, request, this.sortOf(prepared, request.sort)), size: request.count, ...(after ? { search_after: after } : {}) } };
  }

  private searchBody(request: AcrossRequest & { start: number }): { prepared: Prepared; body: Body } {
    const prepared = this.prepare(request);
    if (!Number.isSafeInteger(request.start) || request.start < 0) throw new InvalidInputError('start must be 0 or more');
    if (request.start + request.count > WINDOW) throw new InvalidInputError(`start + count must be at most ${WINDOW}; page further with scrollAcrossEntities`);
    return { prepared, body: { ...this.hitsBody(prepared, request, this.sortOf(prepared, request.sort)), from: request.start, size: request.count } };
  }

  /** A page by position (start + count at most 10,000, as the engine's result window). */
  async search(request: AcrossRequest & { start: number }): Promise<AcrossResult & { start: number }> {
    const { prepared, body } = this.searchBody(request);
    const { raw, hits, facets } = await this.run(prepared, request, body);
    return { start: request.start, total: raw?.total ?? 0, hits: hits.map((h) => this.toHit(h, request.extraFields ?? [])), facets };
  }

  /**
   * A page of one entity type's urns in the search's order, soft-deleted entities left out, without facets or
   * highlights: what a listing over the index (runs of a job, tokens, ingestion sources) reads before Neo4j.
   */
  async urnPage(request: { type: string; input?: string; filter: Filter; sort?: SortCriterion[]; start: number; count: number }): Promise<{ total: number; urns: string[] }> {
    const result = await this.search({
      types: [request.type],
      input: request.input ?? '*',
      filter: request.filter,
      sort: request.sort ?? [],
      includeSoftDeleted: false,
      start: request.start,
      count: request.count,
      facets: [],
      skipAggregates: true,
      skipHighlighting: true,
    });
    return { total: result.total, urns: result.hits.map((h) => h.urn) };
  }

  /** A page after the scroll id's position; `nextScrollId` is null once the last page was returned. */
  async scroll(request: AcrossRequest & { scrollId?: string | null }): Promise<AcrossResult & { nextScrollId: string | null }> {
    const prepared = this.prepare(request);
    const cursor = decodeScrollCursor(request.scrollId);
    const sort = this.sortOf(prepared, request.sort);
    if (cursor && cursor.after.length !== sort.length) throw new InvalidInputError('scrollId does not belong to this sort order');
    const body = { ...this.hitsBody(prepared, request, sort), size: request.count, ...(cursor ? { search_after: cursor.after } : {}) };
    const { raw, hits, facets } = await this.run(prepared, request, body);
    const rawHits = raw?.hits ?? [];
    const seen = (cursor?.seen ?? 0) + rawHits.length;
    const last = rawHits[rawHits.length - 1];
    const more = request.count > 0 && rawHits.length === request.count && seen < (raw?.total ?? 0) && Array.isArray(last?.sort);
    return {
      total: raw?.total ?? 0,
      hits: hits.map((h) => this.toHit(h, request.extraFields ?? [])),
      facets,
      nextScrollId: more ? encodeScrollCursor({ after: last!.sort as unknown[], seen }) : null,
    };
  }

  /** Facets only. */
  async aggregate(request: Omit<AcrossRequest, 'count' | 'sort'>): Promise<{ facets: AcrossFacet[] }> {
    const full: AcrossRequest = { ...request, count: 0, sort: [] };
    const prepared = this.prepare(full);
    const { facets } = await this.run(prepared, full, null);
    return { facets };
  }
}
