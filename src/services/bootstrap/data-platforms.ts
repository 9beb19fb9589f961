import { systemActor, type Principal } from '../../auth';
import type { Registry } from '../../model/registry';
import { makeUrn } from '../../model/urn';
import { dataPlatformInfo } from '../../model/aspects';
import type { IngestionService } from '../ingestion';
import platforms from './data-platforms.json';

/**
 * The data platforms DataHub's metadata service creates when it first starts (its bootstrap `data-platforms.yaml`):
 * each platform's `dataPlatformInfo` (name, display name, type, dataset name delimiter, the logo path its web app
 * serves). Written at every start, but only where the platform has no info yet (CREATE with `If-None-Match: *`, one
 * transaction): a platform's info that a user or an ingestion source wrote is kept, and a second start writes nothing.
 */
export async function createDataPlatforms(ingestion: IngestionService, registry: Registry): Promise<void> {
  const principal: Principal = { actor: systemActor(registry.urnNamespace), scopes: ['admin'], authenticated: false };
  const proposals = platforms.map(({ platform, info }) => ({
    entityType: 'dataPlatform',
    entityUrn: makeUrn(registry.urnNamespace, 'dataPlatform', [platform]),
    changeType: 'CREATE',
    aspectName: dataPlatformInfo.name,
    aspect: { value: JSON.stringify(info), contentType: 'application/json' },
    headers: { 'If-None-Match': '*' },
  }));
  await ingestion.ingestProposalBatch(proposals, principal);
}

/** How many platforms createDataPlatforms writes. */
export const BOOTSTRAP_PLATFORM_COUNT = platforms.length;
