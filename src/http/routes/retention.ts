import type { RetentionApplication } from '../../services/retention-apply';
import type { RouteDefinition } from '../route';

/** DataHub's applyRetention action (its EntityResource): stored history brought within today's retention policies. */
export function retentionRoutes(application: RetentionApplication): RouteDefinition[] {
  return [
    {
      operationId: 'applyRetention',
      method: 'POST',
      path: '/entities',
      action: 'applyRetention',
      tag: 'Operations',
      summary: 'Trim stored history to the retention policy each aspect has now, as its next write would',
      description:
        'One batch per call, as DataHub: entities [`start`, `start` + `count`) in urn order (default 0 and 500; or the one `urn`), every ' +
        'aspect (or `aspectName`), in one transaction. Answers a JSON string, as DataHub does: entities handled, aspects whose ' +
        'policy applied, versions deleted, and `nextStart` (null after the last batch).',
      scope: 'admin',
      writes: true,
      body: {
        type: 'object',
        properties: {
          urn: { type: 'string', minLength: 1 },
          aspectName: { type: 'string', minLength: 1 },
          start: { type: 'integer', minimum: 0, maximum: 2_147_483_647, description: 'First entity of the batch, in urn order' },
          count: { type: 'integer', minimum: 1, maximum: 10000, description: 'Entities in the batch' },
          attemptWithVersion: { type: 'integer', description: 'Not supported (400)' },
        },
      },
      example: {
        request: { aspectName: 'schemaMetadata' },
        response: { value: JSON.stringify({ entitiesHandled: 500, aspectsApplied: 35, versionsDeleted: 410, nextStart: 500, timeTakenMs: 180 }) },
      },
      handle: async ({ body }) =>
        ({
          value: JSON.stringify(
            await application.apply({
              urn: body.urn as string | undefined,
              aspectName: body.aspectName as string | undefined,
              count: body.count as number | undefined,
              start: body.start as number | undefined,
              attemptWithVersion: body.attemptWithVersion as number | undefined,
            }),
          ),
        }),
    },
  ];
}
