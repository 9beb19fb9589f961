import { SignJWT } from 'jose';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'koa';
import { ANONYMOUS, hasScope, parseScopes, requireScope, type Principal } from '../../src/auth';
import { resolveTokenSecret } from '../../src/auth/secret';
import { TokenAuthenticator } from '../../src/auth/token-authenticator';
import { parseTtl, revocationTarget, TOKEN_ISSUER, TokenSigner } from '../../src/auth/tokens';
import { ForbiddenError, InvalidInputError, UnauthorizedError } from '../../src/model/errors';

const SECRET = 'unit-secret-0123456789abcdef0123456789abcdef';
const signer = new TokenSigner(SECRET);
const key = new TextEncoder().encode(SECRET);
const actor = 'urn:li:corpuser:ingestion-bot';

describe('scopes', () => {
  const principal = (scopes: Principal['scopes']): Principal => ({ actor, scopes, authenticated: true });

  it('orders admin ⊃ write ⊃ read', () => {
    expect(hasScope(principal(['admin']), 'read')).toBe(true);
    expect(hasScope(principal(['admin']), 'write')).toBe(true);
    expect(hasScope(principal(['write']), 'read')).toBe(true);
    expect(hasScope(principal(['write']), 'admin')).toBe(false);
    expect(hasScope(principal(['read']), 'write')).toBe(false);
    expect(hasScope(principal([]), 'read')).toBe(false);
  });

  it('requireScope: 401 for an anonymous caller, 403 for a weak token', () => {
    expect(() => requireScope(ANONYMOUS, 'read')).toThrow(UnauthorizedError);
    expect(() => requireScope(principal(['read']), 'write')).toThrow(ForbiddenError);
    expect(() => requireScope(principal(['read']), 'write')).toThrow(`lacks scope 'write' (it has: read)`);
    expect(requireScope(principal(['write']), 'write').actor).toBe(actor);
  });

  it('parses scope lists', () => {
    expect(parseScopes('write,read')).toEqual(['read', 'write']);
    expect(parseScopes('ADMIN read')).toEqual(['read', 'admin']);
    expect(() => parseScopes('root')).toThrow(InvalidInputError);
    expect(() => parseScopes(' , ')).toThrow(/At least one scope/);
  });
});

describe('parseTtl', () => {
  it.each([
    ['30d', 30 * 86400],
    ['12h', 12 * 3600],
    ['45m', 45 * 60],
    ['90s', 90],
    ['2w', 14 * 86400],
    ['3600', 3600],
  ])('%s → %i seconds', (raw, seconds) => expect(parseTtl(raw)).toBe(seconds));

  it.each(['0', '-1d', 'forever', '1y', '', '5000d'])('rejects %p', (raw) => expect(() => parseTtl(raw)).toThrow(InvalidInputError));
});

describe('TokenSigner', () => {
  it('issues an HS256 JWT with actor, scopes, expiry and jti, and verifies it', async () => {
    const now = Date.UTC(2030, 0, 1);
    const { token, claims } = await signer.issue({ actor, scopes: ['read', 'write'], ttlSeconds: 3600, now });
    const [header, payload] = token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toEqual({ iss: TOKEN_ISSUER, sub: actor, scope: 'read write', jti: claims.jti, iat: now / 1000, exp: now / 1000 + 3600 });
    expect(await signer.verify(token, now + 1000)).toEqual(claims);
  });

  it('verifies the signature of a token once, and checks its expiry on every later request', async () => {
    const issuedAt = Date.UTC(2031, 0, 1);
    const { token, claims } = await signer.issue({ actor, scopes: ['write'], ttlSeconds: 60, now: issuedAt });
    const signatureChecks = jest.spyOn(crypto.subtle, 'verify');
    try {
      expect(await signer.verify(token, issuedAt + 1000)).toEqual(claims);
      expect(await signer.verify(token, issuedAt + 59_999)).toEqual(claims);
      expect(signatureChecks).toHaveBeenCalledTimes(1);
      await expect(signer.verify(token, issuedAt + 60_000)).rejects.toThrow(/^Access token expired at 2031-01-01T00:01:00.000Z$/);
      // A token that differs in one character is another token: verified in full, and refused.
      const [h, p, sig] = token.split('.');
      const flipped = `${h}.${p}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BA' : 'AA'}`;
      await expect(signer.verify(flipped, issuedAt + 1000)).rejects.toThrow(/signature verification failed/);
    } finally {
      signatureChecks.mockRestore();
    }
  });

  it('gives every token its own jti', async () => {
    const a = await signer.issue({ actor, scopes: ['read'], ttlSeconds: 60 });
    const b = await signer.issue({ actor, scopes: ['read'], ttlSeconds: 60 });
    expect(a.claims.jti).not.toBe(b.claims.jti);
  });

  it('refuses bad issue requests', async () => {
    await expect(signer.issue({ actor: 'bot', scopes: ['read'], ttlSeconds: 60 })).rejects.toThrow(/Invalid actor/);
    await expect(signer.issue({ actor, scopes: [], ttlSeconds: 60 })).rejects.toThrow(/At least one scope/);
    await expect(signer.issue({ actor, scopes: ['read'], ttlSeconds: 0 })).rejects.toThrow(/ttl/);
    expect(() => new TokenSigner('short')).toThrow(/at least 32/);
  });

  const rejects = (token: string, message: RegExp) => expect(signer.verify(token)).rejects.toThrow(message);

  it('refuses an expired token, saying when it expired', async () => {
    const { token } = await signer.issue({ actor, scopes: ['read'], ttlSeconds: 60, now: Date.UTC(2020, 0, 1) });
    await expect(signer.verify(token)).rejects.toBeInstanceOf(UnauthorizedError);
    await rejects(token, /^Access token expired at 2020-01-01T00:01:00.000Z$/);
  });

  it('refuses a token signed with another secret, or tampered with', async () => {
    const other = await new TokenSigner('x'.repeat(40)).issue({ actor, scopes: ['admin'], ttlSeconds: 60 });
    await rejects(other.token, /signature verification failed/);
    const { token } = await signer.issue({ actor, scopes: ['read'], ttlSeconds: 60 });
    const [h, , s] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ iss: TOKEN_ISSUER, sub: actor, scope: 'admin', jti: 'j', exp: 9_999_999_999 })).toString('base64url');
    await rejects(`${h}.${forged}.${s}`, /signature verification failed/);
  });

  it('refuses malformed tokens, other algorithms, other issuers and missing claims', async () => {
    await rejects('not-a-jwt', /not a well-formed JWT/);
    await rejects('a.b.c', /not a well-formed JWT/);
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: actor })).toString('base64url')}.`;
    await rejects(none, /Invalid access token/);
    const sign = (payload: Record<string, unknown>, alg = 'HS256') => new SignJWT(payload).setProtectedHeader({ alg }).sign(key);
    const exp = Math.floor(Date.now() / 1000) + 60;
    await rejects(await sign({ iss: TOKEN_ISSUER, sub: actor, scope: 'read', jti: 'j', exp }, 'HS512'), /only HS256/);
    await rejects(await sign({ iss: 'someone-else', sub: actor, scope: 'read', jti: 'j', exp }), /not issued by this service/);
    await rejects(await sign({ iss: TOKEN_ISSUER, sub: 'bot', scope: 'read', jti: 'j', exp }), /subject is not an actor urn/);
    await rejects(await sign({ iss: TOKEN_ISSUER, sub: actor, scope: 'read', exp }), /no jti/);
    await rejects(await sign({ iss: TOKEN_ISSUER, sub: actor, scope: 'read', jti: 'j' }), /no expiry/);
    await rejects(await sign({ iss: TOKEN_ISSUER, sub: actor, scope: 'root', jti: 'j', exp }), /scope claim/);
  });
});

describe('revocationTarget', () => {
  it('takes the jti and expiry of a token, or a bare jti', async () => {
    const { token, claims } = await signer.issue({ actor, scopes: ['read'], ttlSeconds: 60 });
    expect(revocationTarget(token)).toEqual({ jti: claims.jti, expiresAt: claims.expiresAt });
    expect(revocationTarget(` ${claims.jti} `)).toEqual({ jti: claims.jti, expiresAt: null });
    expect(() => revocationTarget('x')).toThrow(InvalidInputError);
    expect(() => revocationTarget('a.b.c')).toThrow(/Not a well-formed token/);
  });
});

describe('resolveTokenSecret', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'token-secret-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prefers TOKEN_SECRET', () => {
    expect(resolveTokenSecret({ TOKEN_SECRET: SECRET, STACK_DIR: '.stack' }, dir)).toEqual({ secret: SECRET, source: 'TOKEN_SECRET' });
  });

  it('otherwise generates a secret once into <STACK_DIR>/token-secret with mode 0600, and reuses it', () => {
    const first = resolveTokenSecret({ STACK_DIR: 'data' }, dir);
    const file = join(dir, 'data', 'token-secret');
    expect(first).toEqual({ secret: expect.stringMatching(/^[0-9a-f]{64}$/), source: file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(resolveTokenSecret({ STACK_DIR: 'data' }, dir).secret).toBe(first.secret);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secret);
  });
});

describe('TokenAuthenticator', () => {
  const revoked = new Set<string>();
  const open = new TokenAuthenticator(signer, { isRevoked: async (jti) => revoked.has(jti) }, { requiredEverywhere: false });
  const strict = new TokenAuthenticator(signer, { isRevoked: async (jti) => revoked.has(jti) }, { requiredEverywhere: true });
  const ctx = (authorization?: string) => ({ get: (name: string) => (name.toLowerCase() === 'authorization' ? authorization ?? '' : '') }) as unknown as Context;
  const bearer = async (scopes: Principal['scopes']) => `Bearer ${(await signer.issue({ actor, scopes, ttlSeconds: 60 })).token}`;

  it('lets calls open by default through anonymously, unless tokens are required everywhere', async () => {
    expect(await open.authorize(ctx(), 'none')).toBe(ANONYMOUS);
    expect(await open.authorize(ctx(), 'write', { openByDefault: true })).toBe(ANONYMOUS);
    await expect(strict.authorize(ctx(), 'none')).rejects.toThrow(UnauthorizedError);
    await expect(strict.authorize(ctx(), 'write', { openByDefault: true })).rejects.toThrow(UnauthorizedError);
  });

  it('always needs a token for calls with a scope', async () => {
    await expect(open.authorize(ctx(), 'read')).rejects.toThrow(/^Missing access token/);
    await expect(open.authorize(ctx(), 'admin')).rejects.toThrow(UnauthorizedError);
  });

  it('checks the scope, on open calls too', async () => {
    expect(await open.authorize(ctx(await bearer(['admin'])), 'admin')).toMatchObject({ actor, scopes: ['admin'], authenticated: true });
    await expect(open.authorize(ctx(await bearer(['write'])), 'admin')).rejects.toThrow(ForbiddenError);
    await expect(open.authorize(ctx(await bearer(['read'])), 'write', { openByDefault: true })).rejects.toThrow(ForbiddenError);
    expect((await strict.authorize(ctx(await bearer(['read'])), 'none')).authenticated).toBe(true);
  });

  it('refuses other schemes and revoked tokens', async () => {
    await expect(open.authorize(ctx('Basic dXNlcjpwYXNz'), 'none')).rejects.toThrow(/expected 'Bearer <token>'/);
    const { token, claims } = await signer.issue({ actor, scopes: ['read'], ttlSeconds: 60 });
    expect((await open.authorize(ctx(`bearer ${token}`), 'read')).tokenId).toBe(claims.jti);
    revoked.add(claims.jti);
    await expect(open.authorize(ctx(`Bearer ${token}`), 'read')).rejects.toThrow(`Access token ${claims.jti} has been revoked`);
  });

  it('for a read, gives the verified caller before the revocation lookup answers, and confirms or refuses the token after', async () => {
    let answer: (revoked: boolean) => void = () => undefined;
    const slow = new TokenAuthenticator(signer, { isRevoked: () => new Promise((resolve) => (answer = resolve)) }, { requiredEverywhere: false });
    const { token, claims } = await signer.issue({ actor, scopes: ['read'], ttlSeconds: 60 });
    const live = await slow.authorizeRead(ctx(`Bearer ${token}`), 'none');
    expect(live.principal).toMatchObject({ actor, tokenId: claims.jti, authenticated: true });
    let settled = false;
    void live.confirmed.then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    answer(false);
    await expect(live.confirmed).resolves.toBeUndefined();
    const gone = await slow.authorizeRead(ctx(`Bearer ${token}`), 'none');
    answer(true);
    await expect(gone.confirmed).rejects.toThrow(`Access token ${claims.jti} has been revoked`);
    // A bad signature and a missing token are refused at once, as for any call.
    await expect(slow.authorizeRead(ctx('Bearer x.y.z'), 'none')).rejects.toThrow(UnauthorizedError);
    expect((await slow.authorizeRead(ctx(), 'none')).principal).toBe(ANONYMOUS);
  });

  it('refuses a revoked token as revoked, not as lacking a scope', async () => {
    const { token, claims } = await signer.issue({ actor, scopes: ['read'], ttlSeconds: 60 });
    revoked.add(claims.jti);
    await expect(open.authorizeRead(ctx(`Bearer ${token}`), 'admin')).rejects.toThrow(`Access token ${claims.jti} has been revoked`);
  });
});
