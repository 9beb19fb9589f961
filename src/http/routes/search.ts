import { CONDITIONS } from '../../services/search/query-builder';
import type { SearchService } from '../../services/search/search-service';
import type { RouteDefinition, Schema } from '../route';

const criterion: Schema = {
  type: 'object',
  required: ['field'],
  properties: {
    field: { type: 'string' },
    value: { type: ['string', 'number', 'boolean'], description: 'One value, or a comma-separated list meaning any of them' },
    values: { type: 'array', items: { type: 'string' } },
    condition: {
      type: 'string',
      enum: [...CONDITIONS],
      default: 'EQUAL',
    },
    negated: { type: ['boolean', 'string'] },
  },
};

export const filterSchema: Schema = {
  type: ['object', 'null'],
  description: 'OR of AND groups; a legacy {criteria:[…]} is one AND group',
  properties: {
    or: { type: 'array', maxItems: 100, items: { type: 'object', required: ['and'], properties: { and: { type: 'array', maxItems: 100, items: criterion } } } },
    criteria: { type: 'array', maxItems: 100, items: criterion },
  },
};

const SAMPLE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

/** Sent by the official Python client (acryl-datahub) with every request. */
const OFFICIAL_CLIENT_HEADER = 'x-datahub-py-cli-version';

type SearchAnswer = Awaited<ReturnType<SearchService['search']>>;

/**
 * The search answer as DataHub 1.x gives it to its official client, which reads each result's `entity`
 * (DataHubGraph.get_domain_urn_by_name, get_container_urns_by_filter, ingestion's domain registry): entities as
 * {entity, matchedFields}. Every other caller gets the interface document's list of urns.
 */
function asSearchEntities(answer: SearchAnswer) {
  const { entities, metadata } = answer.value;
  return { value: { ...answer.value, entities: entities.map((entity, i) => ({ entity, matchedFields: metadata.matches[i]?.matchedFields ?? [] })) } };
}

/** Search, browse and autocomplete. */
export function searchRoutes(search: SearchService): RouteDefinition[] {
  return [
    {
      operationId: 'search',
      method: 'POST',
      path: '/entities',
      action: 'search',
      tag: 'Search',
      summary: 'Full-text search over one entity type, with filters and facets',
      scope: 'none',
      body: {
        type: 'object',
        required: ['input', 'entity'],
        properties: {
          input: { type: 'string', maxLength: 10000, description: '`*`, free text, `<field>:<value>`, wildcards, AND/OR' },
          entity: { type: 'string' },
          start: { type: 'integer', minimum: 0, default: 0 },
          count: { type: 'integer', minimum: 0, default: 10, description: 'At most 10,000' },
          filter: filterSchema,
        },
      },
      example: {
        request: { input: 'tags:Legacy', entity: 'dataset', start: 0, count: 10 },
        response: {
          value: {
            numEntities: 1,
            pageSize: 10,
            from: 0,
            entities: [SAMPLE],
            metadata: { urns: [SAMPLE], matches: [{ matchedFields: [{ name: 'tags', value: 'urn:li:tag:Legacy' }] }], searchResultMetadatas: [{ name: 'platform', aggregations: { 'urn:li:dataPlatform:hive': 1 } }] },
          },
        },
      },
      handle: async ({ body, ctx }) => {
        const answer = await search.search({ input: body.input as string, entity: body.entity as string, start: body.start as number, count: body.count as number, filter: body.filter });
        return ctx.get(OFFICIAL_CLIENT_HEADER) ? asSearchEntities(answer) : answer;
      },
    },
    {
      operationId: 'browse',
      method: 'POST',
      path: '/entities',
      action: 'browse',
      tag: 'Search',
      summary: 'The groups one level below a browse path, with counts, and the entities at exactly that path',
      scope: 'none',
      body: {
        type: 'object',
        required: ['entity'],
        properties: {
          path: { type: 'string', default: '/', maxLength: 2000 },
          entity: { type: 'string' },
          start: { type: 'integer', minimum: 0, default: 0 },
          limit: { type: 'integer', minimum: 0, default: 10 },
          filter: filterSchema,
        },
      },
      example: {
        request: { path: '/prod/hive', entity: 'dataset', start: 0, limit: 10 },
        response: {
          value: {
            numEntities: 0,
            numGroups: 1,
            numElements: 1,
            pageSize: 10,
            from: 0,
            metadata: { totalNumEntities: 1, groups: [{ name: 'samplehivedataset', count: 1 }], path: '/prod/hive' },
            groups: [{ name: 'samplehivedataset', count: 1 }],
            entities: [],
          },
        },
      },
      handle: async ({ body }) =>
        search.browse({ path: body.path as string, entity: body.entity as string, start: body.start as number, limit: body.limit as number, filter: body.filter }),
    },
    {
      operationId: 'autocomplete',
      method: 'POST',
      path: '/entities',
      action: 'autocomplete',
      tag: 'Search',
      summary: 'Name suggestions for a prefix or partial name',
      scope: 'none',
      body: {
        type: 'object',
        required: ['query', 'entity'],
        properties: {
          query: { type: 'string', maxLength: 1000 },
          entity: { type: 'string' },
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
          start: { type: 'integer', minimum: 0, default: 0 },
          field: { type: 'string' },
          filter: filterSchema,
        },
      },
      example: { request: { query: 'Sample', entity: 'dataset', limit: 5 }, response: { value: { query: 'Sample', suggestions: ['SampleHiveDataset'], entities: [{ urn: SAMPLE }] } } },
      handle: async ({ body }) =>
        search.autocomplete({ query: body.query as string, entity: body.entity as string, limit: body.limit as number, filter: body.filter }),
    },
  ];
}
