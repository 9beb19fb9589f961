import type { CatalogService } from '../../services/catalog';
import type { RouteDefinition } from '../route';

const SAMPLE_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

/** What the catalog holds by entity type and aspect, and its model (DataHub's registry specification API). */
export function catalogRoutes(catalog: CatalogService): RouteDefinition[] {
  return [
    {
      operationId: 'listUrns',
      method: 'POST',
      path: '/entities',
      action: 'listUrns',
      tag: 'Retrieval',
      summary: 'Urns of the entities of one type, ordered by urn, one page at a time',
      description: 'An entity is listed once it holds its key aspect (any write gives it one). `count` is the number returned; page on with `start`.',
      scope: 'none',
      body: {
        type: 'object',
        required: ['entity', 'start', 'count'],
        additionalProperties: false,
        properties: {
          entity: { type: 'string', description: 'Entity type, e.g. dataset' },
          start: { type: 'integer', minimum: 0, maximum: 2_147_483_647 },
          count: { type: 'integer', minimum: 0, maximum: 10000, description: 'Page size, at most 10,000' },
        },
      },
      example: { request: { entity: 'dataset', start: 0, count: 10 }, response: { value: { entities: [SAMPLE_URN], start: 0, count: 1, total: 1 } } },
      handle: async ({ body }) => ({ value: await catalog.listUrns(body.entity as string, body.start as number, body.count as number) }),
    },
    {
      operationId: 'getAspectCount',
      method: 'POST',
      path: '/aspects',
      action: 'getCount',
      tag: 'Retrieval',
      summary: "Number of entities holding an aspect (its latest version), optionally only those whose urn matches urnLike",
      description: "`urnLike`: `%` matches any characters, everything else itself (as restoreIndices reads it). A time-series aspect has no versions to count (400).",
      scope: 'none',
      body: {
        type: 'object',
        required: ['aspect'],
        additionalProperties: false,
        properties: { aspect: { type: 'string', minLength: 1 }, urnLike: { type: 'string', description: 'e.g. urn:li:dataset:(urn:li:dataPlatform:hive,%' } },
      },
      example: { request: { aspect: 'ownership', urnLike: 'urn:li:dataset:%' }, response: { value: 42 } },
      handle: async ({ body }) => ({ value: await catalog.aspectCount(body.aspect as string, body.urnLike as string | undefined) }),
    },
    {
      // DataHubGraph.get_entity_aspect_specs() reads which aspects each entity type has from here (capability detection).
      operationId: 'getEntitySpecifications',
      method: 'GET',
      path: '/openapi/v1/registry/models/entity/specifications',
      tag: 'Retrieval',
      summary: 'The entity types of the model with their key aspect and aspects, ordered by name, one page at a time',
      description: "DataHub's registry specification answer (`elements` of EntitySpecDto): name, keyAspectName, keyAspectSpec, aspectSpecs and aspectSpecMap (each aspect's `aspectAnnotation` and relationship fields). A page past the end is empty.",
      scope: 'none',
      query: {
        properties: {
          start: { type: 'integer', minimum: 0, maximum: 2_147_483_647, default: 0 },
          count: { type: 'integer', minimum: 0, maximum: 10000, default: 5 },
        },
      },
      example: {
        response: {
          elements: [
            {
              name: 'tag',
              entityAnnotation: { name: 'tag', keyAspect: 'tagKey' },
              keyAspectName: 'tagKey',
              keyAspectSpec: { aspectAnnotation: { name: 'tagKey', timeseries: false, autoRender: false } },
              aspectSpecs: [{ aspectAnnotation: { name: 'tagKey', timeseries: false, autoRender: false } }, { aspectAnnotation: { name: 'tagProperties', timeseries: false, autoRender: false } }],
              aspectSpecMap: { tagKey: { aspectAnnotation: { name: 'tagKey', timeseries: false, autoRender: false } } },
            },
          ],
          start: 0,
          count: 1,
          total: 72,
        },
      },
      handle: async ({ query }) => catalog.entitySpecifications(query.start as number, query.count as number),
    },
  ];
}
