import { USAGE_TIME_RANGES, WINDOW_DURATIONS, type UsageAggregation, type UsageService, type UsageTimeRange, type WindowDuration } from '../../services/usage';
import type { RouteDefinition, Schema } from '../route';

const SAMPLE_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

const count: Schema = { type: 'integer', minimum: 0, maximum: 2_147_483_647 };

/** DataHub's UsageAggregation, as the client's emit_usage() sends it (absent optional fields are left out, never null). */
const usageAggregation: Schema = {
  type: 'object',
  required: ['bucket', 'duration', 'resource', 'metrics'],
  additionalProperties: false,
  properties: {
    bucket: { type: 'integer', minimum: 0, description: 'Bucket start, epoch milliseconds' },
    duration: { type: 'string', enum: [...WINDOW_DURATIONS] },
    resource: { type: 'string', description: 'A dataset urn' },
    metrics: {
      type: 'object',
      additionalProperties: false,
      properties: {
        uniqueUserCount: count,
        users: {
          type: 'array',
          items: {
            type: 'object',
            required: ['count'],
            additionalProperties: false,
            properties: { user: { type: 'string' }, count, userEmail: { type: 'string' } },
          },
        },
        totalSqlQueries: count,
        topSqlQueries: { type: 'array', items: { type: 'string' } },
        fields: { type: 'array', items: { type: 'object', required: ['fieldName', 'count'], additionalProperties: false, properties: { fieldName: { type: 'string' }, count } } },
      },
    },
  },
};

const QUERY_RESULT = {
  value: {
    buckets: [{ bucket: 1675123200000, duration: 'DAY', resource: SAMPLE_URN, metrics: { uniqueUserCount: 2, totalSqlQueries: 12, topSqlQueries: ['SELECT * FROM orders'] } }],
    aggregations: { uniqueUserCount: 2, totalSqlQueries: 12, users: [{ user: 'urn:li:corpuser:jdoe', count: 9 }, { user: 'urn:li:corpuser:asmith', count: 3 }], fields: [{ fieldName: 'id', count: 7 }] },
  },
};

/** DataHub's legacy usage endpoint: buckets are stored and read as the datasetUsageStatistics time-series aspect. */
export function usageRoutes(usage: UsageService): RouteDefinition[] {
  return [
    {
      operationId: 'usageBatchIngest',
      method: 'POST',
      path: '/usageStats',
      action: 'batchIngest',
      tag: 'Ingestion',
      summary: 'Legacy: write usage buckets (UsageAggregation), each stored as a datasetUsageStatistics value of its dataset',
      description:
        'bucket → timestampMillis, duration → eventGranularity, users → userCounts (each needs its user urn), fields → fieldCounts. The batch is validated whole; a bucket re-sent for the same dataset, time and duration replaces the earlier one. Read back with getTimeseriesAspectValues or queryRange.',
      scope: 'write',
      openByDefault: true,
      body: { type: 'object', required: ['buckets'], additionalProperties: false, properties: { buckets: { type: 'array', maxItems: 10000, items: usageAggregation } } },
      example: {
        request: {
          buckets: [
            {
              bucket: 1675123200000,
              duration: 'DAY',
              resource: SAMPLE_URN,
              metrics: { uniqueUserCount: 2, users: [{ user: 'urn:li:corpuser:jdoe', count: 9 }, { user: 'urn:li:corpuser:asmith', count: 3 }], totalSqlQueries: 12, fields: [{ fieldName: 'id', count: 7 }] },
            },
          ],
        },
        response: {},
      },
      handle: async ({ body, principal }) => {
        await usage.batchIngest(body.buckets as UsageAggregation[], principal);
        return {};
      },
    },
    {
      operationId: 'usageQueryRange',
      method: 'POST',
      path: '/usageStats',
      action: 'queryRange',
      tag: 'Retrieval',
      summary: "Usage of a dataset over a trailing range up to now, bucketed by duration (DataHub's UsageQueryResult)",
      description:
        'Per calendar bucket (UTC; weeks start on Monday) the latest uniqueUserCount, totalSqlQueries and topSqlQueries; over the range the users\' and fields\' counts summed (most used first) and totalSqlQueries summed over the buckets. Ranges reach back as DataHub\'s do: DAY 2 days, WEEK 8, MONTH 31, QUARTER 92, HALF_YEAR 183, YEAR 366, HOUR 2 hours, ALL everything.',
      scope: 'none',
      body: {
        type: 'object',
        required: ['resource', 'duration', 'rangeFromEnd'],
        additionalProperties: false,
        properties: { resource: { type: 'string' }, duration: { type: 'string', enum: [...WINDOW_DURATIONS] }, rangeFromEnd: { type: 'string', enum: [...USAGE_TIME_RANGES] } },
      },
      example: { request: { resource: SAMPLE_URN, duration: 'DAY', rangeFromEnd: 'MONTH' }, response: QUERY_RESULT },
      handle: async ({ body }) => ({ value: await usage.queryRange(body.resource as string, body.duration as WindowDuration, body.rangeFromEnd as UsageTimeRange) }),
    },
    {
      operationId: 'usageQuery',
      method: 'POST',
      path: '/usageStats',
      action: 'query',
      tag: 'Retrieval',
      summary: 'Usage of a dataset between two times (inclusive; either may be left open), bucketed by duration',
      description: 'The answer of queryRange, for an explicit time range.',
      scope: 'none',
      body: {
        type: 'object',
        required: ['resource', 'duration'],
        additionalProperties: false,
        properties: { resource: { type: 'string' }, duration: { type: 'string', enum: [...WINDOW_DURATIONS] }, startTime: { type: 'integer' }, endTime: { type: 'integer' } },
      },
      example: { request: { resource: SAMPLE_URN, duration: 'DAY', startTime: 1672531200000, endTime: 1675209600000 }, response: QUERY_RESULT },
      handle: async ({ body }) =>
        ({ value: await usage.query(body.resource as string, body.duration as WindowDuration, body.startTime as number | undefined, body.endTime as number | undefined) }),
    },
  ];
}
