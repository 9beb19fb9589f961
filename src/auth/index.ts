import type { Context } from 'koa';
import { ForbiddenError, InvalidInputError, UnauthorizedError } from '../model/errors';
import { makeUrn } from '../model/urn';
import type { RevocationCheck } from './revocation-check';

/** What a token may do. Each scope implies the ones before it: admin ⊃ write ⊃ read. */
export type Scope = 'read' | 'write' | 'admin';

export const SCOPES: readonly Scope[] = ['read', 'write', 'admin'];

/** Who is calling. Unauthenticated callers (on endpoints open by default) act as the system actor. */
export interface Principal {
  actor: string;
  scopes: Scope[];
  authenticated: boolean;
  /** The `jti` of the token the caller presented. */
  tokenId?: string;
}

/** The actor of the service's own writes and of unauthenticated callers, in the service's urn namespace. */
export function systemActor(urnNamespace: string): string {
  return makeUrn(urnNamespace, 'corpuser', ['__datahub_system']);
}

export function anonymousPrincipal(urnNamespace: string): Principal {
  return { actor: systemActor(urnNamespace), scopes: [], authenticated: false };
}

/** The unauthenticated caller of a service in the default namespace (`li`). */
export const ANONYMOUS: Principal = anonymousPrincipal('li');

export const MISSING_TOKEN_MESSAGE = "Missing access token: send the header 'Authorization: Bearer <token>'";

export interface AuthorizeOptions {
  /**
   * The call needs no token unless tokens are required everywhere (the interface document shows it without an
   * Authorization header: ingestion, retrieval, search…). A token that is presented is still verified and scope-checked.
   */
  openByDefault?: boolean;
}

/**
 * The one place that decides whether a request may proceed. `scope` is what a token must carry; `'none'` means open by
 * default and `read` when tokens are required everywhere. Throws UnauthorizedError (401) or ForbiddenError (403).
 */
export interface Authenticator {
  authorize(ctx: Context, scope: Scope | 'none', options?: AuthorizeOptions): Promise<Principal>;
  /**
   * `authorize` for a call that only reads: the principal once the token is verified (signature, expiry, scope), and
   * `confirmed`, which settles when the token is known not to be revoked (else rejects with the 401). The caller may
   * read meanwhile, so the revocation lookup's round trip overlaps the work, but answers only once `confirmed` has.
   * `confirmed` never counts as an unhandled rejection.
   */
  authorizeRead(ctx: Context, scope: Scope | 'none', options?: AuthorizeOptions): Promise<{ principal: Principal; confirmed: Promise<void> }>;
  /**
   * `authorize` for a call whose statements may check the token's revocation themselves (writes in their transaction,
   * a lineage walk in its first statement): the principal once the token is verified, and the revocation check, not yet
   * made. The caller confirms it before any other change, or hands it to the write path (GroupWriter.submit) or the walk
   * (LineageRequest.revocation), and confirms it before answering unless a commit or the walk settled it.
   */
  authorizeWrite(ctx: Context, scope: Scope | 'none', options?: AuthorizeOptions): Promise<{ principal: Principal; revocation: RevocationCheck }>;
}

/** The `confirmed` of a call that presented no token. */
export const NOTHING_TO_CONFIRM: Promise<void> = Promise.resolve();

export function hasScope(principal: Principal, needed: Scope): boolean {
  const rank = SCOPES.indexOf(needed);
  return principal.scopes.some((s) => SCOPES.indexOf(s) >= rank);
}

/**
 * Checks a scope the handler computed itself (e.g. `/test` with `push: true` needs write). Returns the principal so it
 * can be chained; throws 401 for an unauthenticated caller and 403 for a token without the scope.
 */
export function requireScope(principal: Principal, needed: Scope): Principal {
  if (!principal.authenticated) throw new UnauthorizedError(MISSING_TOKEN_MESSAGE);
  if (!hasScope(principal, needed)) {
    throw new ForbiddenError(`The access token of ${principal.actor} lacks scope '${needed}' (it has: ${principal.scopes.join(', ') || 'none'})`);
  }
  return principal;
}

/** `read,write` → ['read', 'write']; unknown or no scopes are a 400. */
export function parseScopes(raw: string): Scope[] {
  const names = raw
    .split(/[\s,]+/)
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0) throw new InvalidInputError(`At least one scope is required (${SCOPES.join(', ')})`);
  const unknown = names.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new InvalidInputError(`Unknown scope(s) ${unknown.join(', ')}; expected ${SCOPES.join(', ')}`);
  return SCOPES.filter((s) => names.includes(s));
}
