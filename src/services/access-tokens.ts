import { requireScope, type Principal } from '../auth';
import { dataHubAccessTokenInfo } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { TokenStore } from '../stores/graph/token-store';
import type { EntityReads } from './entity-reads';
import type { IngestionService } from './ingestion';
import type { AcrossEntitiesSearch } from './search/across-entities';
import type { Filter } from './search/query-builder';

const TOKEN_ENTITY_TYPE = 'dataHubAccessToken';

export interface AccessTokenMetadata {
  urn: string;
  id: string;
  name: string | null;
  description: string | null;
  actorUrn: string | null;
  ownerUrn: string | null;
  createdAt: number | null;
  expiresAt: number | null;
}

/**
 * DataHub's access-token administration (listAccessTokens, revokeAccessToken). This service signs stateless tokens
 * (src/auth/tokens.ts) and records none it issues, so the list holds the `dataHubAccessToken` entities written to it
 * (from a DataHub deployment's metadata, say); a revocation refuses the token id from the next request on and removes
 * its entity, so a cleanup that lists expired tokens and revokes them ends (DataHub GC's loop does exactly that).
 */
export class AccessTokens {
  constructor(
    private readonly registry: Registry,
    private readonly search: AcrossEntitiesSearch,
    private readonly reads: EntityReads,
    private readonly tokens: TokenStore,
    private readonly ingestion: IngestionService,
  ) {}

  async list(request: { start: number; count: number; filter: Filter }, principal: Principal): Promise<{ start: number; count: number; total: number; tokens: AccessTokenMetadata[] }> {
    requireScope(principal, 'admin');
    const result = await this.search.search({
      types: [TOKEN_ENTITY_TYPE],
      input: '*',
      filter: request.filter,
      sort: [{ field: 'createdAt', order: 'DESCENDING' }],
      includeSoftDeleted: false,
      start: request.start,
      count: request.count,
      facets: [],
      skipAggregates: true,
      skipHighlighting: true,
    });
    const urns = result.hits.map((h) => h.urn);
    const infos = await this.reads.aspectsOfMany(urns, [dataHubAccessTokenInfo.name]);
    const tokens = urns.map((urn) => this.metadata(urn, infos.get(urn)?.get(dataHubAccessTokenInfo.name) ?? null));
    return { start: request.start, count: tokens.length, total: result.total, tokens };
  }

  /** Revokes a token id (a token's `jti`, or a listed token's id); true. */
  async revoke(tokenId: string, principal: Principal): Promise<boolean> {
    requireScope(principal, 'admin');
    if (tokenId.trim() === '') throw new InvalidInputError('tokenId must not be empty');
    const urn = `urn:${this.registry.urnNamespace}:${TOKEN_ENTITY_TYPE}:${tokenId}`;
    const info = (await this.reads.aspectsOfMany([urn], [dataHubAccessTokenInfo.name])).get(urn)?.get(dataHubAccessTokenInfo.name);
    const expiresAtMs = typeof info?.expiresAt === 'number' ? info.expiresAt : null;
    await this.tokens.revoke(tokenId, expiresAtMs === null ? null : Math.ceil(expiresAtMs / 1000));
    if (await this.reads.exists(urn)) await this.ingestion.delete({ urn });
    return true;
  }

  private metadata(urn: string, info: Record<string, unknown> | null): AccessTokenMetadata {
    const text = (v: unknown) => (typeof v === 'string' ? v : null);
    const time = (v: unknown) => (typeof v === 'number' ? v : null);
    return {
      urn,
      id: urn.slice(`urn:${this.registry.urnNamespace}:${TOKEN_ENTITY_TYPE}:`.length),
      name: text(info?.name),
      description: text(info?.description),
      actorUrn: text(info?.actorUrn),
      ownerUrn: text(info?.ownerUrn),
      createdAt: time(info?.createdAt),
      expiresAt: time(info?.expiresAt),
    };
  }
}
