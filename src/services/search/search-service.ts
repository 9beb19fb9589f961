import { normalizeBrowsePath } from '../../model/browse-paths';
import { InvalidInputError } from '../../model/errors';
import type { EntitySpec, Registry } from '../../model/registry';
import type { Body, SearchEngine, SearchResult } from '../../stores/search/engine';
import type { IndexNames } from '../../stores/search/mappings';
import type { DeletedHitGuard } from './deleted-hit-guard';
import { queryParts } from './text-analysis';
import { escapeRegex, facetAggregations, filterQuery, namesRemoved, NOT_REMOVED, parseFilter, queriedFields, SearchSchema, textQuery, type FacetLocation, type Filter } from './query-builder';
import { facetKeyText } from './facet-keys';

const MAX_COUNT = 10_000;
const WINDOW = 10_000;

export interface SearchRequest {
  input: string;
  entity: string;
  start: number;
  count: number;
  filter?: unknown;
}

export interface BrowseRequest {
  path: string;
  entity: string;
  start: number;
  limit: number;
  filter?: unknown;
}

export interface AutocompleteRequest {
  query: string;
  entity: string;
  limit: number;
  field?: string;
  filter?: unknown;
}

function lastSegment(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts[parts.length - 1] ?? '';
}

/** A query as the words the index splits names into: "SampleKaf" → "sample kaf". */
function queryWords(query: string): string {
  return query
    .split(/\s+/)
    .map((t) => (queryParts(t).length > 0 ? queryParts(t).join(' ') : t))
    .join(' ');
}

/** Most groups one browse level lists (DataHub's AGGREGATION_MAX_SIZE). */
const MAX_GROUPS = 2000;

/** Full-text search, browse and autocomplete over the derived index; hits of hard-deleted entities are dropped (DeletedHitGuard). */
export class SearchService {
  private readonly schemas = new Map<string, SearchSchema>();

  constructor(
    private readonly registry: Registry,
    private readonly engine: SearchEngine,
    private readonly names: IndexNames,
    private readonly guard: DeletedHitGuard,
  ) {}

  private schema(entity: EntitySpec): SearchSchema {
    let schema = this.schemas.get(entity.name);
    if (!schema) {
      schema = SearchSchema.fromRegistry(this.registry, entity);
      this.schemas.set(entity.name, schema);
    }
    return schema;
  }

  private entity(name: unknown): EntitySpec {
    if (typeof name !== 'string' || name === '') throw new InvalidInputError('entity is required');
    return this.registry.entity(name);
  }

  /** The engine request of a search (exposed for snapshot tests and the benchmark's raw reference). */
  buildSearch(request: SearchRequest): { index: string; body: Body; schema: SearchSchema; facets: FacetLocation[] } {
    const entity = this.entity(request.entity);
    const schema = this.schema(entity);
    if (request.count > MAX_COUNT) throw new InvalidInputError(`count must be at most ${MAX_COUNT}`);
    const filter = parseFilter(request.filter);
    const whole = filterQuery(filter, schema);
    const { aggs, facets, filterInQuery } = facetAggregations(filter, schema);
    const text = textQuery(request.input ?? '*', schema);
    // DataHub hides soft-deleted entities unless the filter itself says what `removed` must be.
    const hidden = namesRemoved(filter) ? [] : [NOT_REMOVED];
    const body: Body = {
      query: { bool: { must: [text], filter: filterInQuery && whole ? [...hidden, whole] : hidden } },
      ...(!filterInQuery && whole ? { post_filter: whole } : {}),
      aggs,
      sort: ['_score', { urn: 'asc' }],
      // Hits are read by id and highlight only.
      _source: false,
      ...(text.match_all
        ? {}
        : {
            highlight: {
              pre_tags: [''],
              post_tags: [''],
              number_of_fragments: 0,
              require_field_match: false,
              fields: Object.fromEntries(queriedFields(request.input, schema).map((f) => [f, {}])),
            },
          }),
    };
    return { index: this.names.entity(entity.name), body, schema, facets };
  }

  async search(request: SearchRequest) {
    const { index, body, facets } = this.buildSearch(request);
    const page = await this.page(index, body, request.start, request.count);
    const {
      results: [result],
      hits,
    } = page.beyondEnd ? { results: [page.beyondEnd], hits: [] } : await this.guard.search([{ index, body: page.body }], ([r]) => r.hits);
    const facetMetadata = facets.map(({ facet, path }) => {
      const terms = path.reduce<Record<string, unknown> | undefined>((at, name) => at?.[name] as Record<string, unknown> | undefined, result.aggregations);
      const buckets = (terms?.buckets as { key: unknown; doc_count: number }[] | undefined) ?? [];
      return { name: facet, aggregations: Object.fromEntries(buckets.map((b) => [facetKeyText(facet, b.key), b.doc_count])) };
    });
    const urns = hits.map((h) => h.id);
    return {
      value: {
        numEntities: result.total,
        pageSize: request.count,
        from: request.start,
        entities: urns,
        metadata: {
          urns,
          matches: hits.map((h) => ({
            matchedFields: Object.entries(h.highlight ?? {})
              .filter(([name]) => !['nameExact', 'autocomplete'].includes(name.split('.')[0]))
              .map(([name, values]) => ({ name: name.replace(/\.keyword$/, ''), value: values[0] ?? '' })),
          })),
          searchResultMetadatas: facetMetadata,
        },
      },
    };
  }

  /**
   * The request of a page: from/size inside the first 10,000 results; beyond that, walks there with search_after.
   * `beyondEnd` is the answer when the walk ran out of results first.
   */
  private async page(index: string, body: Body, start: number, count: number): Promise<{ body: Body; beyondEnd?: SearchResult }> {
    if (start + count <= WINDOW) return { body: { ...body, from: start, size: count } };
    let skipped = 0;
    let after: unknown[] | undefined;
    const walk: Body = { query: body.query, ...(body.post_filter ? { post_filter: body.post_filter } : {}), sort: body.sort, _source: false };
    while (skipped < start) {
      const size = Math.min(WINDOW, start - skipped);
      const chunk = await this.engine.search(index, { ...walk, size, ...(after ? { search_after: after } : {}) });
      if (chunk.hits.length === 0) return { body, beyondEnd: { ...chunk, hits: [] } };
      skipped += chunk.hits.length;
      after = chunk.hits[chunk.hits.length - 1].sort;
    }
    return { body: { ...body, size: count, ...(after ? { search_after: after } : {}) } };
  }

  /**
   * The two engine requests of a browse, as DataHub's: the groups one level below the path (each with the number of
   * entities anywhere under it), and the entities whose browse path is exactly the path. A page lists groups first,
   * then entities: `start`/`limit` run over both.
   */
  buildBrowse(request: BrowseRequest): { index: string; path: string; groups: Body; items: Body; itemsFrom: number } {
    const entity = this.entity(request.entity);
    const schema = this.schema(entity);
    if (request.limit > MAX_COUNT) throw new InvalidInputError(`limit must be at most ${MAX_COUNT}`);
    const path = normalizeBrowsePath(request.path ?? '/');
    const filter = filterQuery(parseFilter(request.filter), schema);
    const under: Body[] = [NOT_REMOVED, { term: { browsePathPrefixes: path } }, ...(filter ? [filter] : [])];
    const groupPattern = `${escapeRegex(path === '/' ? '' : path)}/[^/]+`;
    // Which entities a page holds depends on the number of groups (at most MAX_GROUPS), not known yet: the one request
    // covers every window that number allows, and the page is cut from it.
    const { start, limit } = request;
    const itemsFrom = Math.max(start - MAX_GROUPS, 0);
    return {
      itemsFrom,
      index: this.names.entity(entity.name),
      path,
      groups: {
        size: 0,
        query: { bool: { filter: under } },
        aggs: {
          groups: { terms: { field: 'browsePathPrefixes', include: groupPattern, size: MAX_GROUPS, order: { _key: 'asc' } } },
          // DataHub's totalNumEntities: the entities in the groups, those deeper than the path (ESBrowseDAO's groups query).
          inGroups: { filter: { regexp: { browsePathPrefixes: groupPattern } } },
        },
      },
      items: {
        from: itemsFrom,
        size: start + limit - itemsFrom,
        query: { bool: { filter: [NOT_REMOVED, { term: { browsePaths: path } }, ...(filter ? [filter] : [])] } },
        sort: [{ urn: 'asc' }],
        _source: ['browseName'],
      },
    };
  }

  async browse(request: BrowseRequest) {
    const { index, path, groups: groupsBody, items, itemsFrom } = this.buildBrowse(request);
    const groupsOf = (result: SearchResult) =>
      ((result.aggregations?.groups as { buckets?: { key: string; doc_count: number }[] })?.buckets ?? []).map((b) => ({ name: lastSegment(b.key), count: b.doc_count }));
    const {
      results: [groups, entities],
      hits,
    } = await this.guard.search(
      [
        { index, body: groupsBody },
        { index, body: items },
      ],
      ([g, i]) => {
        // Groups come first; the entities fill the rest of the page.
        const skip = Math.max(request.start - groupsOf(g).length, 0) - itemsFrom;
        const room = Math.min(Math.max(request.start + request.limit - groupsOf(g).length, 0), request.limit);
        return i.hits.slice(skip, skip + room);
      },
    );
    const allGroups = groupsOf(groups);
    const pageGroups = allGroups.slice(request.start, request.start + request.limit);
    return {
      value: {
        numEntities: entities.total,
        numGroups: allGroups.length,
        numElements: allGroups.length + entities.total,
        pageSize: request.limit,
        from: request.start,
        metadata: { path, totalNumEntities: (groups.aggregations?.inGroups as { doc_count?: number } | undefined)?.doc_count ?? 0, groups: pageGroups },
        groups: pageGroups,
        // Named by its urn (DataHub: a path is a folder), or by the last segment of a legacy default path (browseListing).
        entities: hits.map((h) => ({ name: typeof h.source?.browseName === 'string' ? h.source.browseName : h.id, urn: h.id })),
      },
    };
  }

  /** The engine request of an autocomplete. */
  buildAutocomplete(request: AutocompleteRequest): { index: string; query: string; limit: number; body: Body } {
    const entity = this.entity(request.entity);
    const schema = this.schema(entity);
    const query = (request.query ?? '').trim();
    const limit = Math.min(Math.max(request.limit, 1), 100);
    const filter = filterQuery(parseFilter(request.filter), schema);
    const lower = query.toLowerCase();
    const body: Body = {
      size: limit * 4,
      query: {
        bool: {
          filter: [NOT_REMOVED, ...(filter ? [filter] : [])],
          ...(query === ''
            ? {}
            : {
                should: [
                  { match_bool_prefix: { autocomplete: { query } } },
                  // Words inside names, adjacent, the last one partial (text-analysis.ts): "kafka" and "SampleKaf" suggest
                  // SampleKafkaDataset.
                  { match_phrase_prefix: { nameParts: { query: queryWords(query) } } },
                  { wildcard: { 'autocomplete.keyword': { value: `*${query.replace(/[\\*?]/g, (c) => `\\${c}`)}*`, case_insensitive: true } } },
                  { term: { nameExact: { value: lower, boost: 100 } } },
                ],
                minimum_should_match: 1,
              }),
        },
      },
      _source: ['urn', 'autocomplete'],
    };
    return { index: this.names.entity(entity.name), query, limit, body };
  }

  async autocomplete(request: AutocompleteRequest) {
    const { index, query, limit, body } = this.buildAutocomplete(request);
    const lower = query.toLowerCase();
    const { hits } = await this.guard.search([{ index, body }], ([r]) => r.hits);
    const suggestions: string[] = [];
    const entities: { urn: string }[] = [];
    for (const hit of hits) {
      const names = ([] as string[]).concat((hit.source.autocomplete as string[] | string | undefined) ?? []);
      const match = names.find((n) => n.toLowerCase().startsWith(lower)) ?? names.find((n) => n.toLowerCase().includes(lower)) ?? names[0];
      if (match && !suggestions.includes(match)) {
        suggestions.push(match);
        entities.push({ urn: hit.id });
      }
      if (suggestions.length >= limit) break;
    }
    return { value: { query, suggestions, entities } };
  }
}

export type { Filter };
