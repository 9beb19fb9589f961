import type { Context } from 'koa';
import { UnauthorizedError } from '../model/errors';
import { ANONYMOUS, anonymousPrincipal, MISSING_TOKEN_MESSAGE, NOTHING_TO_CONFIRM, requireScope, type Authenticator, type AuthorizeOptions, type Principal, type Scope } from './index';
import { NO_TOKEN, RevocationCheck } from './revocation-check';
import type { TokenSigner } from './tokens';

/** Where revocations are kept (Neo4j in the service: src/stores/graph/token-store.ts). */
export interface RevocationList {
  isRevoked(jti: string): Promise<boolean>;
}

export interface TokenAuthenticatorOptions {
  /** Endpoints open by default need a token too (AUTH_REQUIRED_EVERYWHERE, or HOST beyond loopback: src/auth/exposure.ts). */
  requiredEverywhere: boolean;
  /** The urn namespace of the anonymous caller's actor; default `li`. */
  urnNamespace?: string;
}

/**
 * Bearer-token authorization. A call open by default (scope `none`, or `openByDefault`) passes without a token as the
 * system actor unless tokens are required everywhere; any other call needs a valid, unrevoked token carrying the scope.
 * A token that is sent is always verified, so a bad token never silently degrades to an anonymous call.
 */
export class TokenAuthenticator implements Authenticator {
  constructor(
    private readonly signer: TokenSigner,
    private readonly revocations: RevocationList,
    private readonly options: TokenAuthenticatorOptions,
  ) {
    this.anonymous = options.urnNamespace === undefined ? ANONYMOUS : anonymousPrincipal(options.urnNamespace);
  }

  private readonly anonymous: Principal;

  async authorize(ctx: Context, scope: Scope | 'none', options: AuthorizeOptions = {}): Promise<Principal> {
    const { principal, confirmed } = await this.authorizeRead(ctx, scope, options);
    await confirmed;
    return principal;
  }

  async authorizeRead(ctx: Context, scope: Scope | 'none', options: AuthorizeOptions = {}): Promise<{ principal: Principal; confirmed: Promise<void> }> {
    const { principal, revocation } = await this.authorizeWrite(ctx, scope, options);
    if (revocation.settled) return { principal, confirmed: NOTHING_TO_CONFIRM };
    const confirmed = revocation.confirm();
    // Awaited by every caller, but maybe only after the read it overlaps: not an unhandled rejection meanwhile.
    confirmed.catch(() => undefined);
    return { principal, confirmed };
  }

  async authorizeWrite(ctx: Context, scope: Scope | 'none', options: AuthorizeOptions = {}): Promise<{ principal: Principal; revocation: RevocationCheck }> {
    const open = scope === 'none' || options.openByDefault === true;
    const header = ctx.get('authorization');
    if (header === '') {
      if (open && !this.options.requiredEverywhere) return { principal: this.anonymous, revocation: NO_TOKEN };
      throw new UnauthorizedError(MISSING_TOKEN_MESSAGE);
    }
    const { principal, revocation } = await this.verify(header);
    try {
      return { principal: requireScope(principal, scope === 'none' ? 'read' : scope), revocation };
    } catch (err) {
      // A revoked token is refused as revoked (401) rather than as lacking the scope.
      await revocation.confirm();
      throw err;
    }
  }

  /** The principal of an `Authorization: Bearer <token>` header value; 401 when it is not a valid, live token. */
  async authenticate(header: string): Promise<Principal> {
    const { principal, revocation } = await this.verify(header);
    await revocation.confirm();
    return principal;
  }

  /** A verified token's principal, and the check of its revocation (not started: see RevocationCheck). */
  private async verify(header: string): Promise<{ principal: Principal; revocation: RevocationCheck }> {
    const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header.trim());
    if (!match) throw new UnauthorizedError("Unsupported Authorization header: expected 'Bearer <token>'");
    const claims = await this.signer.verify(match[1]);
    const revocation = new RevocationCheck(claims.jti, (jti) => this.revocations.isRevoked(jti));
    return { principal: { actor: claims.actor, scopes: claims.scopes, authenticated: true, tokenId: claims.jti }, revocation };
  }
}
