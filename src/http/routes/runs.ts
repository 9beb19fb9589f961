import type { RunService } from '../../services/runs';
import type { RouteDefinition } from '../route';

const RUN = 'file-2026_11_25-10_00_00-abc123';
const SAMPLE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

/** DataHub's `/runs` resource: ingestion runs read from the version history, and their rollback. */
export function runRoutes(runs: RunService): RouteDefinition[] {
  return [
    {
      operationId: 'listRuns',
      method: 'POST',
      path: '/runs',
      action: 'list',
      tag: 'Ingestion runs',
      summary: 'Ingestion runs, newest first, with how many latest aspects each last wrote',
      description: 'A run is the `systemMetadata.runId` its proposals carried. `includeSoft` counts aspects of soft-deleted entities too.',
      scope: 'read',
      openByDefault: true,
      body: {
        type: 'object',
        properties: {
          pageOffset: { type: 'integer', minimum: 0, default: 0 },
          pageSize: { type: 'integer', minimum: 1, maximum: 10000, default: 100 },
          includeSoft: { type: 'boolean', default: false },
        },
      },
      example: { request: { pageOffset: 0, pageSize: 100 }, response: { value: [{ runId: RUN, rows: 42, timestamp: 1764064800000 }] } },
      handle: async ({ body }) => ({ value: await runs.list(body.pageOffset as number, body.pageSize as number, body.includeSoft as boolean) }),
    },
    {
      operationId: 'describeRun',
      method: 'POST',
      path: '/runs',
      action: 'describe',
      tag: 'Ingestion runs',
      summary: "The latest aspects a run last wrote or observed, in (urn, aspect) order",
      scope: 'read',
      openByDefault: true,
      body: {
        type: 'object',
        required: ['runId'],
        properties: {
          runId: { type: 'string', minLength: 1 },
          start: { type: 'integer', minimum: 0, default: 0 },
          count: { type: 'integer', minimum: 0, maximum: 10000, default: 100 },
          includeSoft: { type: 'boolean', default: false },
          includeAspect: { type: 'boolean', default: false, description: 'Include each aspect value' },
        },
      },
      example: {
        request: { runId: RUN, start: 0, count: 10 },
        response: { value: [{ runId: RUN, aspectName: 'datasetProperties', urn: SAMPLE, timestamp: 1764064800000, metadata: '', version: 0, keyAspect: false }] },
      },
      handle: async ({ body }) =>
        ({ value: await runs.describe(body.runId as string, body.start as number, body.count as number, body.includeSoft as boolean, body.includeAspect as boolean) }),
    },
    {
      operationId: 'rollbackRun',
      method: 'POST',
      path: '/runs',
      action: 'rollback',
      tag: 'Ingestion runs',
      summary: 'Undo what a run wrote: its aspects go back to their previous versions, entities it created are soft-deleted (safe) or removed',
      description:
        'Each aspect whose latest version is the run\'s goes back to the newest history version another run wrote (the run\'s ' +
        'versions are dropped), or away when every version is the run\'s. An entity whose key aspect the run wrote is, as in ' +
        'DataHub, soft-deleted when `safe` is true (the default: its key stays and its status becomes removed) and removed whole ' +
        "otherwise; one other runs also wrote to is reported unsafe. Time-series rows the run wrote are deleted. `dryRun` reports without changing anything. " +
        '`hardDelete` (deprecated in DataHub) means `safe: false` when `safe` is not sent. Batched and resumable: repeating a ' +
        'rollback finishes one that was interrupted and changes nothing after one that completed.',
      scope: 'write',
      openByDefault: true,
      body: {
        type: 'object',
        required: ['runId'],
        properties: {
          runId: { type: 'string', minLength: 1 },
          dryRun: { type: 'boolean', default: false },
          safe: { type: 'boolean' },
          hardDelete: { type: 'boolean' },
        },
      },
      example: {
        request: { runId: RUN, dryRun: true, safe: true },
        response: {
          value: { entitiesAffected: 1, entitiesDeleted: 1, aspectsReverted: 3, aspectsAffected: 0, unsafeEntitiesCount: 0, unsafeEntities: [], aspectRowSummaries: [], timeseriesRowsDeleted: 0 },
        },
      },
      handle: async ({ body }) => {
        const safe = typeof body.safe === 'boolean' ? body.safe : typeof body.hardDelete === 'boolean' ? !body.hardDelete : true;
        return { value: await runs.rollback({ runId: body.runId as string, dryRun: body.dryRun as boolean, safe }) };
      },
    },
  ];
}
