import { decodeJwt, errors, jwtVerify, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
import { randomUUID } from 'node:crypto';
import { InvalidInputError, UnauthorizedError } from '../model/errors';
import { tryParseUrn } from '../model/urn';
import { parseScopes, type Scope } from './index';

/** `iss` of every token; a token from another issuer (even with the same secret) is refused. */
export const TOKEN_ISSUER = 'graph-metadata-service';
const ALGORITHM = 'HS256';
const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;

/** What a verified token says. Times are epoch seconds, as in the JWT. */
export interface TokenClaims {
  actor: string;
  scopes: Scope[];
  jti: string;
  issuedAt: number;
  expiresAt: number;
}

export interface IssueRequest {
  actor: string;
  scopes: Scope[];
  ttlSeconds: number;
  /** Epoch ms; tests issue tokens in the past. */
  now?: number;
}

const TTL_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 7 * 86400 };

/** `30d`, `12h`, `45m`, `90s`, `2w` or plain seconds → seconds (at most ten years). */
export function parseTtl(raw: string): number {
  const m = /^(\d+)\s*([smhdw]?)$/i.exec(raw.trim());
  const seconds = m ? Number(m[1]) * TTL_UNITS[(m[2] || 's').toLowerCase()] : NaN;
  if (!Number.isSafeInteger(seconds) || seconds <= 0 || seconds > MAX_TTL_SECONDS) {
    throw new InvalidInputError(`Invalid ttl '${raw}': expected a positive duration such as 30d, 12h, 45m or 3600 (seconds), at most 3650d`);
  }
  return seconds;
}

/** Signs and verifies access tokens: HS256 JWTs carrying the actor (`sub`), scopes (`scope`), expiry and a `jti`. */
export class TokenSigner {
  /**
   * Imported once: given the secret's bytes, jose imports them into WebCrypto on every call, which was most of what
   * verifying a token cost.
   */
  private readonly key: Promise<CryptoKey>;
  /**
   * Tokens verified lately, with their claims: a client sends its one token on every request, and what the signature
   * proves about a token never changes, so a token seen before has only its expiry checked again (WebCrypto's HMAC
   * verification cost ~150 µs of CPU per request). Revocation is looked up per request elsewhere, never remembered here.
   */
  private readonly verified = new LRUCache<string, Readonly<TokenClaims>>({ max: 1000 });

  constructor(secret: string) {
    if (secret.length < 32) throw new Error('The token secret must be at least 32 characters');
    this.key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  }

  async issue(request: IssueRequest): Promise<{ token: string; claims: TokenClaims }> {
    if (!tryParseUrn(request.actor)) throw new InvalidInputError(`Invalid actor '${request.actor}': expected a urn such as urn:li:corpuser:ingestion-bot`);
    if (request.scopes.length === 0) throw new InvalidInputError('At least one scope is required');
    if (!Number.isSafeInteger(request.ttlSeconds) || request.ttlSeconds <= 0) throw new InvalidInputError('ttl must be a positive number of seconds');
    const issuedAt = Math.floor((request.now ?? Date.now()) / 1000);
    const claims: TokenClaims = {
      actor: request.actor,
      scopes: request.scopes,
      jti: randomUUID(),
      issuedAt,
      expiresAt: issuedAt + request.ttlSeconds,
    };
    const token = await new SignJWT({ scope: claims.scopes.join(' ') })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setIssuer(TOKEN_ISSUER)
      .setSubject(claims.actor)
      .setJti(claims.jti)
      .setIssuedAt(claims.issuedAt)
      .setExpirationTime(claims.expiresAt)
      .sign(await this.key);
    return { token, claims };
  }

  /** Verifies signature, algorithm, issuer and expiry; every failure is a 401 whose message says which. */
  async verify(token: string, now: number = Date.now()): Promise<Readonly<TokenClaims>> {
    const known = this.verified.get(token);
    // As jose decides expiry: expired once `exp` is not after the current second.
    if (known && known.expiresAt > Math.floor(now / 1000)) return known;
    let payload;
    try {
      ({ payload } = await jwtVerify(token, await this.key, { algorithms: [ALGORITHM], issuer: TOKEN_ISSUER, currentDate: new Date(now) }));
    } catch (err) {
      throw new UnauthorizedError(describeFailure(err));
    }
    const { sub, jti, scope, iat, exp } = payload;
    if (typeof sub !== 'string' || !tryParseUrn(sub)) throw new UnauthorizedError('Invalid access token: its subject is not an actor urn');
    if (typeof jti !== 'string' || jti === '') throw new UnauthorizedError('Invalid access token: it has no jti');
    if (typeof exp !== 'number') throw new UnauthorizedError('Invalid access token: it has no expiry');
    let scopes: Scope[];
    try {
      scopes = parseScopes(typeof scope === 'string' ? scope : '');
    } catch {
      throw new UnauthorizedError('Invalid access token: its scope claim names no known scope');
    }
    const claims = Object.freeze({ actor: sub, scopes: Object.freeze(scopes) as Scope[], jti, issuedAt: typeof iat === 'number' ? iat : 0, expiresAt: exp });
    // A token with a not-before time is verified every time: a caller may ask about an earlier moment (`now`).
    if (payload.nbf === undefined) this.verified.set(token, claims);
    return claims;
  }
}

function describeFailure(err: unknown): string {
  if (err instanceof errors.JWTExpired) {
    const exp = typeof err.payload.exp === 'number' ? ` at ${new Date(err.payload.exp * 1000).toISOString()}` : '';
    return `Access token expired${exp}`;
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'Invalid access token: signature verification failed';
  if (err instanceof errors.JOSEAlgNotAllowed) return `Invalid access token: only ${ALGORITHM} tokens are accepted`;
  if (err instanceof errors.JWTClaimValidationFailed) {
    return err.claim === 'iss' ? 'Invalid access token: not issued by this service' : `Invalid access token: claim '${err.claim}' is invalid`;
  }
  return 'Invalid access token: not a well-formed JWT';
}

/**
 * The jti and expiry of a token without verifying it (revoking needs no trust in the token: a revoked jti only ever
 * refuses requests). A bare jti is returned as is.
 */
export function revocationTarget(tokenOrJti: string): { jti: string; expiresAt: number | null } {
  const value = tokenOrJti.trim();
  if (!value.includes('.')) {
    if (!/^[\w-]{8,128}$/.test(value)) throw new InvalidInputError(`'${value}' is neither a token nor a token id (jti)`);
    return { jti: value, expiresAt: null };
  }
  let payload;
  try {
    payload = decodeJwt(value);
  } catch {
    throw new InvalidInputError('Not a well-formed token');
  }
  if (typeof payload.jti !== 'string' || payload.jti === '') throw new InvalidInputError('The token has no jti');
  return { jti: payload.jti, expiresAt: typeof payload.exp === 'number' ? payload.exp : null };
}
