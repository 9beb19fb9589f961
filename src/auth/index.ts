import type { Context } from 'koa';

export type Scope = 'read' | 'write' | 'admin';

/** Who is calling. Unauthenticated callers act as the system actor. */
export interface Principal {
  actor: string;
  scopes: Scope[];
  authenticated: boolean;
}

export const SYSTEM_ACTOR = 'urn:li:corpuser:__datahub_system';

export const ANONYMOUS: Principal = { actor: SYSTEM_ACTOR, scopes: [], authenticated: false };

/**
 * The one place that decides whether a request may proceed. Token verification lands with the auth issue;
 * until then every request is let through as the system actor.
 */
export interface Authenticator {
  authorize(ctx: Context, scope: Scope | 'none'): Promise<Principal>;
}

export class OpenAuthenticator implements Authenticator {
  async authorize(): Promise<Principal> {
    return ANONYMOUS;
  }
}
