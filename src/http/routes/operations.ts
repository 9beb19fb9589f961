import type { OperationsService } from '../../services/operations';
import type { RouteDefinition } from '../route';

const TASK = 'oTUltX4IQMOUUVeiohTt8A:12345';

/** Administrative operations on the search store (scope `admin`). Handlers parse, call one service method, return the body. */
export function operationsRoutes(operations: OperationsService): RouteDefinition[] {
  return [
    {
      operationId: 'getEsTaskStatus',
      method: 'POST',
      path: '/operations',
      action: 'getEsTaskStatus',
      tag: 'Operations',
      summary: 'Status of a task running in the search engine (e.g. a truncation)',
      description: 'Send `task` ("<node_id>:<task_number>", as truncateTimeseriesAspect returns it) or both `nodeId` and `taskId`.',
      scope: 'admin',
      body: {
        type: 'object',
        properties: { task: { type: 'string' }, nodeId: { type: 'string' }, taskId: { type: 'integer', minimum: 0 } },
      },
      example: {
        request: { task: TASK },
        response: {
          value: JSON.stringify({
            completed: true,
            taskId: TASK,
            runTimeNanos: 1234567,
            status: { total: 10, updated: 0, created: 0, deleted: 10, batches: 1, version_conflicts: 0, noops: 0, retries: { bulk: 0, search: 0 }, throttled_millis: 0, requests_per_second: -1, throttled_until_millis: 0 },
          }),
        },
      },
      handle: async ({ body }) => ({ value: await operations.taskStatus(body) }),
    },
    {
      operationId: 'truncateTimeseriesAspect',
      method: 'POST',
      path: '/operations',
      action: 'truncateTimeseriesAspect',
      tag: 'Operations',
      summary: 'Delete the rows of one time-series index with timestampMillis <= endTimeMillis',
      description:
        'A dry run (the default) reports what would go. A real run answers the engine task id; it reindexes the kept rows when more than half go (or forceReindex), else deletes by query (or forceDeleteByQuery). Rows written meanwhile are kept. 501 on an engine without the reindex module.',
      scope: 'admin',
      body: {
        type: 'object',
        required: ['entityType', 'aspect', 'endTimeMillis'],
        properties: {
          entityType: { type: 'string', minLength: 1, description: 'e.g. dataset (as getIndexSizes reports it)' },
          aspect: { type: 'string', minLength: 1, description: 'e.g. datasetUsageStatistics (any case)' },
          endTimeMillis: { type: 'integer' },
          dryRun: { type: 'boolean', default: true },
          batchSize: { type: 'integer', minimum: 1, maximum: 100000, default: 10000 },
          timeoutSeconds: { type: 'integer', minimum: 1 },
          forceDeleteByQuery: { type: 'boolean' },
          forceReindex: { type: 'boolean' },
        },
      },
      example: {
        request: { entityType: 'dataset', aspect: 'datasetUsageStatistics', endTimeMillis: 1672531200000, dryRun: true },
        response: { value: 'Delete 120 out of 365 rows (32.88%). Issuing a delete by query request. This was a dry run. Run with dryRun = false to execute.' },
      },
      handle: async ({ body }) =>
        ({
          value: await operations.truncateTimeseriesAspect({
            entityType: body.entityType as string,
            aspect: body.aspect as string,
            endTimeMillis: body.endTimeMillis as number,
            dryRun: body.dryRun as boolean,
            batchSize: body.batchSize as number,
            timeoutSeconds: body.timeoutSeconds as number | undefined,
            forceDeleteByQuery: body.forceDeleteByQuery as boolean | undefined,
            forceReindex: body.forceReindex as boolean | undefined,
          }),
        }),
    },
    {
      operationId: 'getIndexSizes',
      method: 'POST',
      path: '/operations',
      action: 'getIndexSizes',
      tag: 'Operations',
      summary: 'Sizes of the time-series indices',
      scope: 'admin',
      example: {
        response: {
          value: JSON.stringify({
            indexSizes: [{ aspectName: 'datasetusagestatistics', sizeMb: 0.21, indexName: 'dataset_datasetusagestatisticsaspect_v1', entityName: 'dataset' }],
          }),
        },
      },
      handle: async () => ({ value: await operations.indexSizes() }),
    },
    {
      operationId: 'restoreIndices',
      method: 'POST',
      path: '/operations',
      action: 'restoreIndices',
      tag: 'Operations',
      summary: 'Rewrite search documents and projected edges from the latest aspects in Neo4j',
      description: 'Restores `batchSize` entities from row `start` of those matching `urn`, `aspect` and `urnLike` (`%` wildcard), ordered by urn.',
      scope: 'admin',
      body: {
        type: 'object',
        properties: {
          urn: { type: 'string', minLength: 1 },
          aspect: { type: 'string', minLength: 1 },
          urnLike: { type: 'string', minLength: 1 },
          start: { type: 'integer', minimum: 0, default: 0 },
          batchSize: { type: 'integer', minimum: 1, maximum: 10000, default: 10 },
        },
      },
      example: {
        request: { urnLike: 'urn:li:dataset:%', start: 0, batchSize: 10 },
        response: {
          value: JSON.stringify({
            args: { urn: null, aspect: null, urnLike: 'urn:li:dataset:%', start: 0, batchSize: 10 },
            entitiesRead: 10,
            rowsRead: 52,
            documentsWritten: 10,
            edgesWritten: 17,
            ignored: 0,
            timeTakenMs: 48,
            lastUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)',
          }),
        },
      },
      handle: async ({ body }) =>
        ({
          value: await operations.restoreIndices({
            urn: body.urn as string | undefined,
            aspect: body.aspect as string | undefined,
            urnLike: body.urnLike as string | undefined,
            start: body.start as number,
            batchSize: body.batchSize as number,
          }),
        }),
    },
  ];
}
