import type { TimeseriesService } from '../../services/timeseries';
import type { RouteDefinition } from '../route';

const SAMPLE_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

/** Reading time-series aspects (they are written through ingestProposal like any aspect). */
export function timeseriesRoutes(timeseries: TimeseriesService): RouteDefinition[] {
  return [
    {
      operationId: 'getTimeseriesAspectValues',
      method: 'POST',
      path: '/aspects',
      action: 'getTimeseriesAspectValues',
      tag: 'Retrieval',
      summary: 'Values of a time-series aspect of one entity in a time range, newest first',
      description:
        'Bounds are inclusive; without them the range is open. `filter` has the shape of the search filter; `latestValue` returns only the newest value. `limit` defaults to 10000.',
      scope: 'none',
      body: {
        type: 'object',
        required: ['urn', 'entity', 'aspect'],
        properties: {
          urn: { type: 'string' },
          entity: { type: 'string' },
          aspect: { type: 'string' },
          startTimeMillis: { type: 'integer' },
          endTimeMillis: { type: 'integer' },
          limit: { type: 'integer', minimum: 1, maximum: 1000000 },
          filter: { type: 'object' },
          latestValue: { type: 'boolean' },
        },
      },
      example: {
        request: { urn: SAMPLE_URN, entity: 'dataset', aspect: 'datasetUsageStatistics', startTimeMillis: 1672531200000, endTimeMillis: 1675209600000 },
        response: {
          value: {
            limit: 10000,
            aspectName: 'datasetUsageStatistics',
            entityName: 'dataset',
            startTimeMillis: 1672531200000,
            endTimeMillis: 1675209600000,
            values: [{ aspect: { value: '{"timestampMillis":1675123200000,"uniqueUserCount":4,"totalSqlQueries":12}', contentType: 'application/json' } }],
          },
        },
      },
      handle: async ({ body }) =>
        ({
          value: await timeseries.values({
            urn: body.urn,
            entity: body.entity,
            aspect: body.aspect,
            startTimeMillis: body.startTimeMillis as number | undefined,
            endTimeMillis: body.endTimeMillis as number | undefined,
            limit: body.limit as number | undefined,
            filter: body.filter,
            latestValue: body.latestValue as boolean | undefined,
          }),
        }),
    },
    {
      operationId: 'v2ScrollTimeseries',
      method: 'GET',
      path: '/openapi/v2/timeseries/:entityName/:aspectName',
      tag: 'Retrieval',
      summary: "A time-series aspect's events of every entity of one type, newest first, a page at a time (OpenAPI v2)",
      description: 'Sorted by timestampMillis, then messageId, both descending. `scrollId` is absent after the last page.',
      scope: 'none',
      pathParams: { entityName: 'Entity type, e.g. dataset', aspectName: 'Time-series aspect, e.g. datasetProfile' },
      query: {
        properties: {
          count: { type: 'integer', minimum: 0, maximum: 10000, default: 10 },
          scrollId: { type: 'string' },
          startTimeMillis: { type: 'integer' },
          endTimeMillis: { type: 'integer' },
          systemMetadata: { type: 'boolean', default: false },
        },
      },
      example: {
        response: {
          scrollId: 'WzE2NzUxMjMyMDAwMDAsIm0xIiwiYWJjIl0',
          results: [{ urn: SAMPLE_URN, messageId: 'm1', timestampMillis: 1675123200000, systemMetadata: null, event: { timestampMillis: 1675123200000, rowCount: 100 } }],
        },
      },
      handle: async ({ params, query }) =>
        timeseries.scroll({
          entity: params.entityName,
          aspect: params.aspectName,
          count: (query.count as number | undefined) ?? 10,
          scrollId: query.scrollId as string | undefined,
          startTimeMillis: query.startTimeMillis as number | undefined,
          endTimeMillis: query.endTimeMillis as number | undefined,
          systemMetadata: query.systemMetadata === true,
        }),
    },
  ];
}
