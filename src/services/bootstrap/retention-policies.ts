import { systemActor, type Principal } from '../../auth';
import { dataHubExecutionRequestResult, dataHubRetentionConfig } from '../../model/aspects';
import type { Registry } from '../../model/registry';
import { makeUrn } from '../../model/urn';
import type { IngestionService } from '../ingestion';

/**
 * The retention policy DataHub's metadata service sets at start besides its default (its bootstrap `retention.yaml`):
 * an ingestion run's result (dataHubExecutionRequestResult, which holds the run's log) keeps one history version, where
 * every other aspect keeps RETENTION_MAX_VERSIONS. Created only where no policy for it is stored (CREATE with
 * `If-None-Match: *`), so a policy an admin set is kept, and a second start writes nothing. (DataHub's `*,*` default of
 * 20 versions is this service's RETENTION_MAX_VERSIONS, not a stored policy.)
 */
export const BOOTSTRAP_RETENTION_POLICIES = [{ entity: 'dataHubExecutionRequest', aspect: dataHubExecutionRequestResult.name, retention: { version: { maxVersions: 1 } } }];

export async function createDefaultRetentionPolicies(ingestion: IngestionService, registry: Registry): Promise<void> {
  const principal: Principal = { actor: systemActor(registry.urnNamespace), scopes: ['admin'], authenticated: false };
  const proposals = BOOTSTRAP_RETENTION_POLICIES.map(({ entity, aspect, retention }) => ({
    entityUrn: makeUrn(registry.urnNamespace, 'dataHubRetention', [entity, aspect]),
    changeType: 'CREATE',
    aspectName: dataHubRetentionConfig.name,
    aspect: { value: JSON.stringify({ retention }), contentType: 'application/json' },
    headers: { 'If-None-Match': '*' },
  }));
  await ingestion.ingestProposalBatch(proposals, principal);
}
