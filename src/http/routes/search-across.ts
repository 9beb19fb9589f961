import { InvalidInputError } from '../../model/errors';
import type { EntityReads } from '../../services/entity-reads';
import { validateKeepAlive, type AcrossEntitiesSearch, type AcrossFacet, type AcrossHit, type SortCriterion } from '../../services/search/across-entities';
import { parseFilter, type Filter } from '../../services/search/query-builder';
import type { RouteDefinition, Schema } from '../route';
import { filterSchema } from './search';

const SAMPLE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

const sortCriterionSchema: Schema = {
  type: 'object',
  required: ['field'],
  properties: { field: { type: 'string', minLength: 1 }, order: { type: 'string', enum: ['ASCENDING', 'DESCENDING'], default: 'ASCENDING' } },
  additionalProperties: false,
};

/** DataHub's SearchFlags; skipCache, fulltext, getSuggestions and includeRestricted are hints with nothing to change here. */
export const searchFlagsSchema: Schema = {
  type: ['object', 'null'],
  properties: {
    skipCache: { type: 'boolean' },
    fulltext: { type: 'boolean' },
    getSuggestions: { type: 'boolean' },
    includeRestricted: { type: 'boolean' },
    maxAggValues: { type: 'integer', minimum: 1, maximum: 1000 },
    skipHighlighting: { type: 'boolean' },
    skipAggregates: { type: 'boolean' },
    includeSoftDeleted: { type: 'boolean' },
    fetchExtraFields: { type: 'array', maxItems: 100, items: { type: 'string' } },
  },
  additionalProperties: false,
};

const commonBody: Record<string, Schema> = {
  entities: { type: ['array', 'null'], maxItems: 100, items: { type: 'string' }, description: 'Entity types; empty = the default searchable set' },
  input: { type: 'string', maxLength: 10000, description: '`*`, free text, `<field>:<value>`, wildcards, AND/OR' },
  filter: filterSchema,
  sortCriterion: { ...sortCriterionSchema, type: ['object', 'null'], description: 'Deprecated: one sort criterion' },
  sortCriteria: { type: ['array', 'null'], maxItems: 10, items: sortCriterionSchema },
  count: { type: 'integer', minimum: 0, maximum: 10000, default: 10 },
  searchFlags: searchFlagsSchema,
};

interface Flags {
  maxAggValues?: number;
  skipHighlighting?: boolean;
  skipAggregates?: boolean;
  includeSoftDeleted?: boolean;
  fetchExtraFields?: string[];
}

function commonRequest(body: Record<string, unknown>) {
  const flags = (body.searchFlags ?? {}) as Flags;
  const sort = ((body.sortCriteria as SortCriterion[] | null) ?? (body.sortCriterion ? [body.sortCriterion as SortCriterion] : [])).map((s) => ({ field: s.field, order: s.order ?? 'ASCENDING' }));
  const filter = parseFilter(body.filter);
  return {
    filter,
    request: {
      types: (body.entities as string[] | null | undefined) ?? null,
      input: typeof body.input === 'string' && body.input.trim() !== '' ? body.input : '*',
      filter,
      sort,
      includeSoftDeleted: flags.includeSoftDeleted === true,
      count: body.count as number,
      skipAggregates: flags.skipAggregates === true,
      skipHighlighting: flags.skipHighlighting === true,
      maxAggValues: flags.maxAggValues ?? null,
      extraFields: flags.fetchExtraFields ?? null,
      facets: (body.facets as string[] | null | undefined) ?? null,
    },
  };
}

/** DataHub's rest.li SearchEntity list and SearchResultMetadata. */
function restliPage(hits: AcrossHit[], facets: AcrossFacet[], filter: Filter) {
  const filtered = new Set(filter.flat().filter((c) => !c.negated).flatMap((c) => c.values.map((v) => `${c.field.replace(/\.keyword$/, '')}\u0000${v}`)));
  const isFiltered = (field: string, value: string) => filtered.has(`${field === '_entityType' ? 'entityType' : field}\u0000${value}`);
  return {
    entities: hits.map((h) => ({
      entity: h.urn,
      matchedFields: h.matchedFields,
      ...(h.score !== null ? { score: h.score } : {}),
      ...(Object.keys(h.extraFields).length > 0 ? { extraFields: h.extraFields } : {}),
    })),
    metadata: {
      aggregations: facets.map((f) => ({
        name: f.field,
        displayName: f.displayName,
        aggregations: Object.fromEntries(f.values.map((v) => [v.value, v.count])),
        filterValues: f.values.map((v) => ({ value: v.value, facetCount: v.count, filtered: isFiltered(f.field, v.value) })),
      })),
      suggestions: [],
    },
  };
}

/** `ids=List(<encoded urn>,…)` or repeated `ids=<encoded urn>`, read from the raw query string: urns contain commas. */
export function idsFromQueryString(raw: string): string[] {
  const ids: string[] = [];
  for (const pair of raw.split('&')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' ')) !== 'ids') continue;
    let value = pair.slice(eq + 1);
    try {
      if (/^List%28/i.test(value)) value = decodeURIComponent(value);
      const list = /^List\((.*)\)$/s.exec(value);
      for (const item of list ? (list[1] === '' ? [] : list[1].split(',')) : [value]) ids.push(decodeURIComponent(item.replace(/\+/g, ' ')));
    } catch {
      throw new InvalidInputError('ids is not a well-encoded list of urns');
    }
  }
  return ids;
}

/** searchAcrossEntities, scrollAcrossEntities and the batch entitiesV2 get, as DataHub's rest.li serves them. */
export function searchAcrossRoutes(search: AcrossEntitiesSearch, reads: EntityReads): RouteDefinition[] {
  return [
    {
      operationId: 'searchAcrossEntities',
      method: 'POST',
      path: '/entities',
      action: 'searchAcrossEntities',
      tag: 'Search',
      summary: 'Search over several entity types at once, paged by start/count (start + count at most 10,000)',
      scope: 'none',
      body: {
        type: 'object',
        required: ['input'],
        properties: {
          ...commonBody,
          start: { type: 'integer', minimum: 0, default: 0 },
          facets: { type: ['array', 'null'], maxItems: 100, items: { type: 'string' }, description: 'Facets to count; default _entityType and every facet of the searched types' },
        },
      },
      example: {
        request: { input: '*', entities: ['dataset', 'chart'], filter: { or: [{ and: [{ field: 'platform', value: 'urn:li:dataPlatform:hive' }] }] }, start: 0, count: 10 },
        response: {
          value: {
            entities: [{ entity: SAMPLE, matchedFields: [], score: 1 }],
            metadata: { aggregations: [{ name: 'platform', displayName: 'Platform', aggregations: { 'urn:li:dataPlatform:hive': 1 }, filterValues: [{ value: 'urn:li:dataPlatform:hive', facetCount: 1, filtered: true }] }], suggestions: [] },
            from: 0,
            pageSize: 10,
            numEntities: 1,
          },
        },
      },
      handle: async ({ body }) => {
        const { filter, request } = commonRequest(body);
        const result = await search.search({ ...request, start: body.start as number });
        return { value: { ...restliPage(result.hits, result.facets, filter), from: result.start, pageSize: request.count, numEntities: result.total } };
      },
    },
    {
      operationId: 'scrollAcrossEntities',
      method: 'POST',
      path: '/entities',
      action: 'scrollAcrossEntities',
      tag: 'Search',
      summary: 'Search over several entity types at once, paged by scrollId (ids never expire; keepAlive is checked and otherwise unused)',
      scope: 'none',
      body: {
        type: 'object',
        required: ['input'],
        properties: { ...commonBody, scrollId: { type: ['string', 'null'], maxLength: 10000 }, keepAlive: { type: 'string', default: '5m' } },
      },
      example: {
        request: { input: '*', entities: ['dataset'], count: 1, keepAlive: '5m' },
        response: { value: { scrollId: 'WyJ1cm4uLi4iXQ', entities: [{ entity: SAMPLE, matchedFields: [] }], metadata: { aggregations: [], suggestions: [] }, pageSize: 1, numEntities: 2 } },
      },
      handle: async ({ body }) => {
        validateKeepAlive(body.keepAlive as string);
        const { filter, request } = commonRequest(body);
        const result = await search.scroll({ ...request, scrollId: body.scrollId as string | null });
        return {
          value: { ...(result.nextScrollId ? { scrollId: result.nextScrollId } : {}), ...restliPage(result.hits, result.facets, filter), pageSize: request.count, numEntities: result.total },
        };
      },
    },
    {
      operationId: 'batchGetEntitiesV2',
      method: 'GET',
      path: '/entitiesV2',
      tag: 'Retrieval',
      summary: 'Latest aspects of several entities (rest.li batch get); entities that do not exist are 404s under errors',
      scope: 'none',
      query: {
        properties: {
          ids: { type: 'string', description: 'List(<url-encoded urn>,…), or repeated ids=<url-encoded urn>' },
          aspects: { type: 'array', items: { type: 'string' }, description: 'List(a,b), a single name, or repeated' },
        },
        required: ['ids'],
      },
      example: {
        response: {
          statuses: {},
          results: { 'urn:li:tag:pii': { urn: 'urn:li:tag:pii', entityName: 'tag', aspects: { tagKey: { name: 'tagKey', type: 'VERSIONED', version: 0, value: { name: 'pii' }, created: { time: 0, actor: 'urn:li:corpuser:__datahub_system' } } } } },
          errors: {},
        },
      },
      handle: async ({ query, ctx }) => reads.batchEntitiesV2(idsFromQueryString(ctx.querystring), (query.aspects as string[] | undefined) ?? null),
    },
  ];
}
