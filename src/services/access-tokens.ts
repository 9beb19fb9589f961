import { hasScope, requireScope, type Principal, type Scope } from '../auth';
import type { TokenSigner } from '../auth/tokens';
import { dataHubAccessTokenInfo } from '../model/aspects';
import { ForbiddenError, InvalidInputError } from '../model/errors';
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

/** DataHub's token durations, in seconds; NO_EXPIRY is the longest this service signs (ten years). */
export const TOKEN_DURATIONS: Record<string, number> = {
  ONE_HOUR: 3600,
  ONE_DAY: 86_400,
  ONE_WEEK: 7 * 86_400,
  ONE_MONTH: 30 * 86_400,
  THREE_MONTHS: 90 * 86_400,
  SIX_MONTHS: 180 * 86_400,
  ONE_YEAR: 365 * 86_400,
  NO_EXPIRY: 3650 * 86_400,
};

export interface CreateTokenInput {
  type: string;
  actorUrn: string;
  duration: string;
  name: string;
  description?: string | null;
}

/**
 * DataHub's access-token administration (createAccessToken, listAccessTokens, revokeAccessToken). Tokens are stateless
 * signed JWTs (src/auth/tokens.ts); one made with createAccessToken is also recorded as a `dataHubAccessToken` entity
 * (id: its `jti`), so it is listed and revoked like DataHub's. Tokens signed by `npm run token` are recorded nowhere,
 * and the list holds only recorded ones (and those written to it from a DataHub deployment's metadata). A revocation
 * refuses the token id from the next request on and removes its entity, so a cleanup that lists expired tokens and
 * revokes them ends (DataHub GC's loop does exactly that).
 */
export class AccessTokens {
  constructor(
    private readonly registry: Registry,
    private readonly search: AcrossEntitiesSearch,
    private readonly reads: EntityReads,
    private readonly tokens: TokenStore,
    private readonly ingestion: IngestionService,
    private readonly signer: TokenSigner,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Signs a token and records it. A token for oneself carries the caller's scopes; one for another actor needs admin
   * scope and carries read and write (never admin: a token cannot make its bearer an administrator).
   */
  async create(input: CreateTokenInput, principal: Principal): Promise<{ accessToken: string; metadata: AccessTokenMetadata }> {
    requireScope(principal, 'write');
    if (input.type !== 'PERSONAL') throw new InvalidInputError(`Unsupported token type ${input.type}`);
    const ttlSeconds = TOKEN_DURATIONS[input.duration];
    if (!ttlSeconds) throw new InvalidInputError(`Unknown token duration ${input.duration}`);
    if (input.name.trim() === '') throw new InvalidInputError('name must not be empty');
    const actor = this.registry.parseEntityUrn(input.actorUrn, 'actorUrn').urn.raw;
    const forSelf = actor === principal.actor;
    if (!forSelf && !hasScope(principal, 'admin')) throw new ForbiddenError(`Unauthorized to generate a token for ${actor}: only an admin may create tokens for others`);
    const scopes: Scope[] = forSelf ? principal.scopes : ['read', 'write'];
    const { token, claims } = await this.signer.issue({ actor, scopes, ttlSeconds, now: this.now() });
    const info = {
      name: input.name,
      actorUrn: actor,
      ownerUrn: principal.actor,
      createdAt: claims.issuedAt * 1000,
      expiresAt: claims.expiresAt * 1000,
      ...(input.description ? { description: input.description } : {}),
    };
    const urn = `urn:${this.registry.urnNamespace}:${TOKEN_ENTITY_TYPE}:${claims.jti}`;
    await this.ingestion.transformAspects([{ urn, aspectName: dataHubAccessTokenInfo.name, transform: () => info }], principal);
    return { accessToken: token, metadata: this.metadata(urn, info) };
  }

  async list(request: { start: number; count: number; filter: Filter }, principal: Principal): Promise<{ start: number; count: number; total: number; tokens: AccessTokenMetadata[] }> {
    requireScope(principal, 'admin');
    const { total, urns } = await this.search.urnPage({
      type: TOKEN_ENTITY_TYPE,
      filter: request.filter,
      sort: [{ field: 'createdAt', order: 'DESCENDING' }],
      start: request.start,
      count: request.count,
    });
    const infos = await this.reads.aspectsOfMany(urns, [dataHubAccessTokenInfo.name]);
    const tokens = urns.map((urn) => this.metadata(urn, infos.get(urn)?.get(dataHubAccessTokenInfo.name) ?? null));
    return { start: request.start, count: tokens.length, total, tokens };
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
