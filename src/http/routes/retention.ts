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
        'Every entity (or `urn`), every aspect (or `aspectName`), in urn order, `count` entities per transaction (default 500). ' +
        'Answers a JSON string, as DataHub does: entities handled, aspects whose policy applied, versions deleted.',
      scope: 'admin',
      writes: true,
      body: {
        type: 'object',
        properties: {
          urn: { type: 'string', minLength: 1 },
          aspectName: { type: 'string', minLength: 1 },
          count: { type: 'integer', minimum: 1, maximum: 10000, description: 'Entities per transaction' },
          start: { type: 'integer', minimum: 0, description: 'Only 0: the whole walk is one call' },
          attemptWithVersion: { type: 'integer', description: 'Not supported (400)' },
        },
      },
      example: {
        request: { aspectName: 'schemaMetadata' },
        response: { value: JSON.stringify({ entitiesHandled: 1200, aspectsApplied: 35, versionsDeleted: 410, timeTakenMs: 380 }) },
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
