import { InvalidInputError } from '../../model/errors';
import { parseV3Filter, type EntityReads } from '../../services/entity-reads';
import type { SortCriterion } from '../../services/search/across-entities';
import type { RouteDefinition, Schema } from '../route';

const SAMPLE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const SAMPLE_ENTITY = { urn: SAMPLE, status: { value: { removed: false } } };

const v3FilterSchema: Schema = {
  type: ['object', 'null'],
  description: '{and: [{criteria: [{field, values, condition, negated}]}]}: each criteria list is ANDed, the outer list ORed',
  properties: { and: { type: 'array', maxItems: 100, items: { type: 'object', properties: { criteria: { type: 'array', maxItems: 100, items: { type: 'object' } } } } } },
};

const sortCriterionSchema: Schema = {
  type: 'object',
  required: ['field'],
  properties: { field: { type: 'string', minLength: 1 }, order: { type: 'string', enum: ['ASCENDING', 'DESCENDING'], default: 'ASCENDING' } },
  additionalProperties: false,
};

const list = (description: string): Schema => ({ type: 'array', items: { type: 'string' }, description });
const flag = (description: string): Schema => ({ type: 'boolean', description });

/** Parameters DataHub takes that this service cannot honour: refused when set rather than ignored. */
function refuseSlicing(query: Record<string, unknown>): void {
  for (const name of ['sliceId', 'sliceMax']) if (query[name] !== undefined) throw new InvalidInputError(`${name} is not supported: scrolls here are not sliced`);
  if (query.scrollIdPerEntity === true) throw new InvalidInputError('scrollIdPerEntity=true is not supported: one scroll id covers every entity type');
}

const slicing: Record<string, Schema> = {
  sliceId: { type: 'integer', description: 'Not supported (refused when set)' },
  sliceMax: { type: 'integer', description: 'Not supported (refused when set)' },
  pitKeepAlive: { type: 'string', default: '5m', description: 'Checked; scroll ids hold no engine context and never expire' },
};

/** Query parameters every entity scroll takes (the page, its order, what each entity carries). */
const scrollPage: Record<string, Schema> = {
  count: { type: 'integer', minimum: 0, default: 10, description: 'At most 10,000: a larger count is lowered to it, as DataHub does' },
  query: { type: 'string', default: '*', maxLength: 10000 },
  scrollId: { type: 'string', maxLength: 10000 },
  sortOrder: { type: 'string', enum: ['ASCENDING', 'DESCENDING'], default: 'ASCENDING' },
  systemMetadata: { type: 'boolean', default: false },
  skipCache: flag('Accepted; there is no search cache'),
  includeSoftDelete: { type: 'boolean', default: false },
  ...slicing,
};

function sortOf(query: Record<string, unknown>, criteria: unknown): SortCriterion[] {
  if (Array.isArray(criteria) && criteria.length > 0) return (criteria as SortCriterion[]).map((c) => ({ field: c.field, order: c.order ?? 'ASCENDING' }));
  const fields = (query.sortCriteria as string[] | undefined) ?? (query.sort ? [query.sort as string] : ['urn']);
  const order = (query.sortOrder as SortCriterion['order'] | undefined) ?? 'ASCENDING';
  return fields.map((field) => ({ field, order }));
}

/** DataHub's OpenAPI v3 entity, relationship and lineage reads, as the official graph client calls them. */
export function openApiV3Routes(reads: EntityReads): RouteDefinition[] {
  return [
    {
      operationId: 'v3BatchGetEntities',
      method: 'POST',
      path: '/openapi/v3/entity/:entityName/batchGet',
      tag: 'Retrieval',
      summary: 'Latest aspects of several entities of one type (OpenAPI v3); entities with no stored aspect are left out',
      scope: 'none',
      pathParams: { entityName: 'Entity type, e.g. dataset' },
      query: { properties: { systemMetadata: { type: 'boolean', default: false } } },
      body: { type: 'array', maxItems: 1000, items: { type: 'object', required: ['urn'], properties: { urn: { type: 'string' } } }, description: '[{urn, <aspectName>: {}}]; no aspect named = all' },
      example: { request: [{ urn: SAMPLE, status: {} }], response: [SAMPLE_ENTITY] },
      handle: async ({ params, query, body }) => reads.v3BatchGet(params.entityName, body, query.systemMetadata === true),
    },
    {
      operationId: 'v3ScrollEntities',
      method: 'POST',
      path: '/openapi/v3/entity/scroll',
      tag: 'Search',
      summary: 'Scroll entities of several types with a search filter (OpenAPI v3); aspects absent = urns only, [] = all',
      scope: 'none',
      query: {
        properties: {
          sort: { type: 'string', description: 'Sort field (default urn)' },
          skipAggregation: flag('No `facets` (the hits per entity type) are computed'),
          scrollIdPerEntity: flag('Not supported when true'),
          ...scrollPage,
        },
      },
      body: {
        type: 'object',
        properties: {
          entities: { type: ['array', 'null'], maxItems: 100, items: { type: 'string' } },
          aspects: { type: ['array', 'null'], maxItems: 300, items: { type: 'string' } },
          filter: v3FilterSchema,
          sortCriteria: { type: ['array', 'null'], maxItems: 10, items: sortCriterionSchema },
        },
      },
      example: { request: { entities: ['dataset'], aspects: ['status'] }, response: { scrollId: null, entities: [SAMPLE_ENTITY], totalCount: 1, facets: [{ field: 'entity', aggregations: { dataset: 1 } }] } },
      handle: async ({ query, body }) => {
        refuseSlicing(query);
        return reads.v3Scroll({
          entityFacet: query.skipAggregation !== true,
          entityNames: (body.entities as string[] | null) ?? [],
          aspects: (body.aspects as string[] | null | undefined) ?? null,
          count: query.count as number,
          query: query.query as string,
          scrollId: query.scrollId as string | undefined,
          sort: sortOf(query, body.sortCriteria),
          filter: parseV3Filter(body.filter),
          includeSoftDelete: query.includeSoftDelete === true,
          systemMetadata: query.systemMetadata === true,
          pitKeepAlive: query.pitKeepAlive as string,
        });
      },
    },
    {
      operationId: 'v3ScrollEntitiesOfType',
      method: 'GET',
      path: '/openapi/v3/entity/:entityName',
      tag: 'Search',
      summary: 'Scroll entities of one type with their aspects (OpenAPI v3; all aspects unless named)',
      scope: 'none',
      pathParams: { entityName: 'Entity type, e.g. dataset' },
      query: {
        properties: {
          aspects: list('Aspect names (repeated or List(a,b)); default all'),
          sortCriteria: list('Sort fields (default urn)'),
          ...scrollPage,
        },
      },
      example: { response: { scrollId: null, entities: [SAMPLE_ENTITY], totalCount: 1, facets: [] } },
      handle: async ({ params, query }) => {
        refuseSlicing(query);
        const aspects = (query.aspects as string[] | undefined) ?? [];
        return reads.v3Scroll({
          entityNames: [params.entityName],
          aspects,
          count: query.count as number,
          query: query.query as string,
          scrollId: query.scrollId as string | undefined,
          sort: sortOf(query, null),
          filter: [],
          includeSoftDelete: query.includeSoftDelete === true,
          systemMetadata: query.systemMetadata === true,
          pitKeepAlive: query.pitKeepAlive as string,
        });
      },
    },
    {
      operationId: 'v2ScrollEntitiesOfType',
      method: 'GET',
      path: '/openapi/v2/entity/:entityName',
      tag: 'Search',
      summary: 'Scroll entities of one type with their aspects (OpenAPI v2: each result is {urn, aspects}; scrollId absent on the last page)',
      scope: 'none',
      pathParams: { entityName: 'Entity type, e.g. dataHubExecutionRequest' },
      query: {
        properties: {
          aspectNames: list('Aspect names (repeated or List(a,b)); default all'),
          sort: { type: 'string', description: 'Sort field (default urn)' },
          ...scrollPage,
        },
      },
      example: { response: { results: [{ urn: SAMPLE, aspects: { status: { value: { removed: false } } } }] } },
      handle: async ({ params, query }) => {
        refuseSlicing(query);
        const page = await reads.v3Scroll({
          entityNames: [params.entityName],
          aspects: (query.aspectNames as string[] | undefined) ?? [],
          count: query.count as number,
          query: query.query as string,
          scrollId: query.scrollId as string | undefined,
          sort: sortOf(query, null),
          filter: [],
          includeSoftDelete: query.includeSoftDelete === true,
          systemMetadata: query.systemMetadata === true,
          pitKeepAlive: query.pitKeepAlive as string,
        });
        // The official client reads pages while the answer has a scrollId key: a null one would restart the scroll.
        const results = page.entities.map(({ urn, ...aspects }) => ({ urn, aspects }));
        return page.scrollId ? { scrollId: page.scrollId, results } : { results };
      },
    },
    {
      operationId: 'v3GetEntity',
      method: 'GET',
      path: '/openapi/v3/entity/:entityName/:urn',
      tag: 'Retrieval',
      summary: 'Latest aspects of one entity (OpenAPI v3); 404 when it has no stored aspect',
      scope: 'none',
      pathParams: { entityName: 'Entity type, e.g. dataset', urn: 'URL-encoded entity urn' },
      query: { properties: { aspects: list('Aspect names (repeated or List(a,b)); default all'), systemMetadata: { type: 'boolean', default: false } } },
      example: { response: SAMPLE_ENTITY },
      handle: async ({ params, query }) => reads.v3Get(params.entityName, params.urn, (query.aspects as string[] | undefined) ?? null, query.systemMetadata === true),
    },
    {
      operationId: 'v3ScrollRelationships',
      method: 'POST',
      path: '/openapi/v3/relationship/scroll',
      tag: 'Relationships',
      summary: 'Scroll projected edges (OpenAPI v3), in (source, type, destination) order; source/destination filters select by urn',
      scope: 'none',
      query: {
        properties: {
          relationshipTypes: list('Relationship names; default all'),
          sourceTypes: list('Entity types of the source end'),
          destinationTypes: list('Entity types of the destination end'),
          direction: { type: 'string', enum: ['INCOMING', 'OUTGOING'], default: 'OUTGOING', description: 'INCOMING: the source filters select the destination end and vice versa' },
          count: { type: 'integer', minimum: 0, maximum: 10000, default: 10 },
          scrollId: { type: 'string', maxLength: 10000 },
          includeSoftDelete: { type: 'boolean', default: false },
          ...slicing,
        },
      },
      body: { type: 'object', properties: { sourceFilter: v3FilterSchema, destinationFilter: v3FilterSchema, edgeFilter: v3FilterSchema } },
      example: {
        request: { sourceFilter: { and: [{ criteria: [{ field: 'urn', values: [SAMPLE], condition: 'EQUAL' }] }] } },
        response: { results: [{ relationshipType: 'TaggedWith', source: { urn: SAMPLE, entityType: 'dataset' }, destination: { urn: 'urn:li:tag:pii', entityType: 'tag' } }], scrollId: null },
      },
      handle: async ({ query, body }) => {
        refuseSlicing(query);
        return reads.relationshipScroll({
          relationshipTypes: query.relationshipTypes as string[] | undefined,
          sourceTypes: query.sourceTypes as string[] | undefined,
          destinationTypes: query.destinationTypes as string[] | undefined,
          direction: query.direction as 'INCOMING' | 'OUTGOING',
          count: query.count as number,
          scrollId: query.scrollId as string | undefined,
          includeSoftDelete: query.includeSoftDelete === true,
          pitKeepAlive: query.pitKeepAlive as string,
          sourceFilter: body.sourceFilter,
          destinationFilter: body.destinationFilter,
          edgeFilter: body.edgeFilter,
        });
      },
    },
    {
      operationId: 'v3ScrollLineage',
      method: 'POST',
      path: '/openapi/v3/lineage/scroll',
      tag: 'Lineage',
      summary: 'Scroll lineage edges touching the given urns (OpenAPI v3), each with its upstream and downstream end',
      scope: 'none',
      query: {
        properties: {
          relationshipTypes: list('Lineage relationship names; default all'),
          direction: { type: 'string', enum: ['UPSTREAM', 'DOWNSTREAM'], description: 'Keep edges leading upstream (or downstream) of the urns' },
          count: { type: 'integer', minimum: 0, maximum: 10000, default: 10 },
          scrollId: { type: 'string', maxLength: 10000 },
          includeSoftDelete: { type: 'boolean', default: false },
          ...slicing,
        },
      },
      body: { type: 'object', properties: { urns: { type: ['array', 'null'], maxItems: 1000, items: { type: 'string' } } } },
      example: {
        request: { urns: [SAMPLE] },
        response: {
          results: [
            {
              relationshipType: 'DownstreamOf',
              source: { urn: SAMPLE, entityType: 'dataset' },
              destination: { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,Upstream,PROD)', entityType: 'dataset' },
              upstream: 'urn:li:dataset:(urn:li:dataPlatform:hive,Upstream,PROD)',
              downstream: SAMPLE,
            },
          ],
          scrollId: null,
        },
      },
      handle: async ({ query, body }) => {
        refuseSlicing(query);
        return reads.lineageScroll({
          urns: body.urns as string[] | null | undefined,
          relationshipTypes: query.relationshipTypes as string[] | undefined,
          direction: query.direction as 'UPSTREAM' | 'DOWNSTREAM' | undefined,
          count: query.count as number,
          scrollId: query.scrollId as string | undefined,
          includeSoftDelete: query.includeSoftDelete === true,
          pitKeepAlive: query.pitKeepAlive as string,
        });
      },
    },
  ];
}
