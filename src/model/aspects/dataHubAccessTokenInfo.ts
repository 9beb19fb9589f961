import type { AspectBehaviour } from './behaviour';

/** What DataHub records of an access token it issued (name, actor, owner, created and expiry times). */
export const dataHubAccessTokenInfo: AspectBehaviour = { name: 'dataHubAccessTokenInfo' };
