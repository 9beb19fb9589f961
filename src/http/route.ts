import type { Context } from 'koa';
import type { Principal, Scope } from '../auth';
import type { RevocationCheck } from '../auth/revocation-check';

/** A JSON Schema as used in route definitions (validated with Ajv, also published in the OpenAPI document). */
export type Schema = Record<string, unknown>;

export interface RouteInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  principal: Principal;
  /**
   * With `revocationInStatements`, the token's revocation check, still open: the handler confirms it before any change
   * but through the write path, or passes it there or to a lineage walk; the router confirms it before answering unless
   * one of them settled it. Else NO_TOKEN (the router checks the token itself).
   */
  revocation: RevocationCheck;
  ctx: Context;
}

/**
 * One RPC endpoint: its HTTP shape, the schemas its input is validated with, documentation, and the handler.
 * The router and the OpenAPI document are both built from these definitions, so they cannot drift.
 */
export interface RouteDefinition {
  operationId: string;
  method: 'GET' | 'POST' | 'DELETE' | 'PATCH' | 'HEAD';
  /** koa-router path, e.g. `/aspects` or `/entitiesV2/:urn`. */
  path: string;
  /** For RPC actions dispatched on `?action=`. */
  action?: string;
  tag: string;
  summary: string;
  description?: string;
  /**
   * Scope a token needs; `none` means public unless the deployment requires tokens everywhere (then: read).
   * A route with a scope always needs a token carrying it, unless `openByDefault` is set.
   */
  scope: Scope | 'none';
  /** Writes or deletes although its scope is `read` or `none` (e.g. only with some parameters). */
  writes?: boolean;
  /** Needs no token unless tokens are required everywhere (ingestion: the document shows it without a header). */
  openByDefault?: boolean;
  /**
   * The handler takes the token's revocation check (RouteInput.revocation) into its own statements rather than having
   * it looked up first: ingestion (its writes' transaction), where a lookup per request cost Neo4j a transaction of its
   * own, and lineage (the walk's first statement), where it cost a round trip.
   */
  revocationInStatements?: boolean;
  pathParams?: Record<string, string>;
  /** Query parameters (all strings on the wire; lists accept `List(a,b)`, single or repeated values). */
  query?: { properties: Record<string, Schema & { description?: string }>; required?: string[] };
  body?: Schema;
  example?: { request?: unknown; response: unknown };
  handle(input: RouteInput): Promise<unknown>;
}

/**
 * A route that writes or deletes refuses body fields it does not define: a field it ignored could make it change more,
 * or other, than the caller asked. A route may still decide for itself by setting `additionalProperties`.
 */
export function refusingUnknownFields(def: RouteDefinition): RouteDefinition {
  const writes = def.scope === 'write' || def.scope === 'admin' || def.writes === true;
  if (!writes || !def.body || 'additionalProperties' in def.body) return def;
  return { ...def, body: { ...def.body, additionalProperties: false } };
}
