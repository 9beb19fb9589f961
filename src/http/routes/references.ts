import { InvalidInputError } from '../../model/errors';
import type { ReferencesService } from '../../services/references';
import type { RouteDefinition } from '../route';

const TAG_URN = 'urn:li:tag:pii';
const SAMPLE_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

/** Removing references to an entity, and DataHub's delete-by-registry (refused: this service loads no model plugins). */
export function referencesRoutes(references: ReferencesService): RouteDefinition[] {
  return [
    {
      operationId: 'deleteReferences',
      method: 'POST',
      path: '/entities',
      action: 'deleteReferences',
      tag: 'Ingestion',
      summary: "List (dryRun) or remove every reference to an entity in other entities' aspects; the entity itself is untouched",
      description:
        'References are the edges other aspects project to the urn. Removal rewrites each referencing aspect without the urn, atomically per aspect: the list member holding it goes (a tag association, an owner, an upstream, nested ones such as a schema field\'s tags too), an optional field holding it is unset. A required field with nothing removable above it (e.g. container.container) stays and is listed in `unremovable`, as are references in key aspects. `relatedAspects` is a sample of up to 10; `total` counts all found; `removed` (not in a dry run) those removed.',
      scope: 'write',
      openByDefault: true,
      body: {
        type: 'object',
        required: ['urn'],
        additionalProperties: false,
        properties: { urn: { type: 'string' }, dryRun: { type: 'boolean', default: false } },
      },
      example: {
        request: { urn: TAG_URN, dryRun: true },
        response: { value: { total: 1, relatedAspects: [{ relationship: 'TaggedWith', entity: SAMPLE_URN, aspect: 'globalTags' }], unremovable: [] } },
      },
      handle: async ({ body, principal }) => ({ value: await references.deleteReferences(body.urn, body.dryRun as boolean, principal) }),
    },
    {
      operationId: 'deleteAll',
      method: 'POST',
      path: '/entities',
      action: 'deleteAll',
      tag: 'Ingestion',
      summary: 'Not supported: delete everything written under a model registry id (`datahub delete by-registry`)',
      description:
        'Always a 400: this service loads no model plugins, so nothing belongs to a registry id. Delete entities with `action=delete`, or remove references with `action=deleteReferences`.',
      scope: 'write',
      openByDefault: true,
      body: {
        type: 'object',
        additionalProperties: false,
        properties: { registryId: { type: 'string' }, dryRun: { type: 'boolean' }, soft: { type: 'boolean' } },
      },
      example: { request: { registryId: 'mycompany-dq-model:0.0.1', dryRun: true }, response: {} },
      handle: async () => {
        throw new InvalidInputError(
          'deleteAll (delete by registry id) is not supported: this service loads no model plugins, so no metadata belongs to a registry id; delete entities with action=delete',
        );
      },
    },
  ];
}
