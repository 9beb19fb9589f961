import { systemActor, type Principal } from '../../auth';
import { corpUserInfo } from '../../model/aspects';
import type { Registry } from '../../model/registry';
import { makeUrn } from '../../model/urn';
import type { IngestionService } from '../ingestion';

/**
 * DataHub's root user, which its metadata service creates at start (IngestRootUserStep, boot/root_user.json): clients
 * and DataHub's own tests count on `urn:li:corpuser:datahub` existing ("CorpUser entities are always present"). Created
 * only where the user has no info yet (CREATE with `If-None-Match: *`), so a second start writes nothing and an
 * edited profile is kept. A user, not an account: this service's tokens say who may do what (src/auth).
 */
export const ROOT_USER_INFO = { active: true, displayName: 'DataHub', title: 'DataHub Root User' };

export function rootUserUrn(urnNamespace: string): string {
  return makeUrn(urnNamespace, 'corpuser', ['datahub']);
}

export async function createRootUser(ingestion: IngestionService, registry: Registry): Promise<void> {
  const principal: Principal = { actor: systemActor(registry.urnNamespace), scopes: ['admin'], authenticated: false };
  await ingestion.ingestProposal(
    {
      entityUrn: rootUserUrn(registry.urnNamespace),
      changeType: 'CREATE',
      aspectName: corpUserInfo.name,
      aspect: { value: JSON.stringify(ROOT_USER_INFO), contentType: 'application/json' },
      headers: { 'If-None-Match': '*' },
    },
    principal,
  );
}
