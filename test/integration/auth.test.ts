import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Scope } from '../../src/auth';
import { TokenStore } from '../../src/stores/graph/token-store';
import { proposal } from '../support/samples';
import { bearer, enc, engineUrl, mintToken, startTestService, TEST_TOKEN_SECRET, uniqueId, type TestService } from '../support/service';

const UPDATE = 'mutation u($input: UpdateDeprecationInput!) { updateDeprecation(input: $input) }';
const QUERY = 'query q($urn: String!) { dataset(urn: $urn) { deprecation { deprecated actor } } }';

/** One protected call: how to make it, the scope it needs, and a token scope that is one step too weak. */
interface Target {
  name: string;
  needs: Scope;
  tooWeak: Scope;
  call(svc: TestService, headers: Record<string, string>): Promise<{ status: number; body: any }>;
  /** Checks the refused call changed nothing (the handler or resolver never ran). */
  unchanged?(svc: TestService): Promise<void>;
  /** Set while the endpoint (another issue's work) is missing: the whole matrix is pending. */
  pending?: string;
  /** Set while the endpoint exists but does not check its computed scope yet: the 403 case is pending. */
  forbiddenPending?: string;
}

describe('access tokens', () => {
  let svc: TestService;
  let tokens: TokenStore;
  const created: string[] = [];
  const revokedJtis: string[] = [];
  const datasetUrn = () => `urn:li:dataset:(urn:li:dataPlatform:hive,auth_${uniqueId()},PROD)`;

  async function createDataset(): Promise<string> {
    const urn = datasetUrn();
    created.push(urn);
    expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'status', { removed: false }))).status).toBe(200);
    return urn;
  }

  const token = async (scopes: Scope[], extra: { actor?: string; ttlSeconds?: number; now?: number; secret?: string } = {}) =>
    (await mintToken({ scopes, ...extra })).token;

  beforeAll(async () => {
    svc = await startTestService();
    tokens = new TokenStore(svc.graph);
  });
  afterAll(async () => {
    for (const urn of created) await svc.call('POST', '/entities?action=delete', { urn });
    // The revocations these tests made (the service itself never forgets one before the token expires).
    await svc.graph.write('test.cleanup', (tx) => tx.run('MATCH (t:RevokedToken) WHERE t.jti IN $jtis DELETE t', { jtis: revokedJtis }));
    await svc.close();
  });

  let graphqlTarget: string;
  let testTarget: string;
  beforeAll(async () => {
    graphqlTarget = await createDataset();
    testTarget = await createDataset();
  });

  const targets: Target[] = [
    {
      name: 'an operation (POST /operations?action=getIndexSizes)',
      needs: 'admin',
      tooWeak: 'write',
      call: (s, headers) => s.call('POST', '/operations?action=getIndexSizes', {}, headers),
    },
    {
      name: 'a GraphQL mutation (updateDeprecation)',
      needs: 'write',
      tooWeak: 'read',
      call: (s, headers) => s.call('POST', '/api/graphql', { query: UPDATE, variables: { input: { urn: graphqlTarget, deprecated: true } } }, headers),
      async unchanged(s) {
        const admin = bearer(await token(['admin']));
        const read = await s.call('POST', '/api/graphql', { query: QUERY, variables: { urn: graphqlTarget } }, admin);
        expect(read.body.data.dataset.deprecation).toBeNull();
      },
    },
    {
      name: 'the test endpoint with push (POST /test?action=evaluate)',
      needs: 'write',
      tooWeak: 'read',
      call: (s, headers) => s.call('POST', '/test?action=evaluate', { urn: testTarget, push: true }, headers),
      forbiddenPending: "src/http/routes/tests.ts does not call requireScope(principal, 'write') for push yet",
      async unchanged(s) {
        const stored = await s.call('GET', `/entitiesV2/${enc(testTarget)}?aspects=List(testResults)`);
        expect(stored.body.aspects.testResults).toBeUndefined();
      },
    },
  ];

  describe.each(targets)('$name', (target) => {
    if (target.pending) {
      it.todo(`the whole token matrix — PENDING: ${target.pending}`);
      return;
    }
    const expect401 = async (headers: Record<string, string>, message: RegExp) => {
      const res = await target.call(svc, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ status: 401, message: expect.stringMatching(message), exceptionClass: 'UnauthorizedError' });
      await target.unchanged?.(svc);
    };

    it('refuses a call without a token (401)', async () => {
      await expect401({}, /^Missing access token/);
    });

    it('refuses a malformed token (401)', async () => {
      await expect401(bearer('not-a-jwt'), /not a well-formed JWT/);
      await expect401({ Authorization: 'Basic dXNlcjpwYXNz' }, /expected 'Bearer <token>'/);
    });

    it('refuses a token with a bad signature (401)', async () => {
      await expect401(bearer(await token([target.needs], { secret: 'another-secret-0123456789abcdef0123456789' })), /signature verification failed/);
    });

    it('refuses an expired token (401)', async () => {
      await expect401(bearer(await token([target.needs], { now: Date.now() - 2 * 3600_000, ttlSeconds: 3600 })), /^Access token expired at /);
    });

    it('refuses a revoked token (401)', async () => {
      const { token: revoked, claims } = await mintToken({ scopes: [target.needs] });
      revokedJtis.push(claims.jti);
      await tokens.revoke(claims.jti, claims.expiresAt);
      await expect401(bearer(revoked), new RegExp(`Access token ${claims.jti} has been revoked`));
    });

    if (target.forbiddenPending) it.todo(`refuses a token without the scope (403) — PENDING: ${target.forbiddenPending}`);
    else it('refuses a token without the scope (403)', async () => {
      const res = await target.call(svc, bearer(await token([target.tooWeak])));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status: 403, message: expect.stringContaining(`lacks scope '${target.needs}'`), exceptionClass: 'ForbiddenError' });
      await target.unchanged?.(svc);
    });

    it('accepts a valid token with the scope', async () => {
      const res = await target.call(svc, bearer(await token([target.needs])));
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body)).not.toMatch(/"errors"/);
    });
  });

  it('lets a read token run GraphQL queries and the test endpoint without push', async () => {
    const read = bearer(await token(['read']));
    const query = await svc.call('POST', '/api/graphql', { query: QUERY, variables: { urn: graphqlTarget } }, read);
    expect(query).toMatchObject({ status: 200, body: { data: { dataset: {} }, extensions: {} } });
    const evaluate = await svc.call('POST', '/test?action=evaluate', { urn: testTarget }, read);
    expect(evaluate.status).toBe(200);
  });

  it('records the token actor as the audit actor of a deprecation', async () => {
    const urn = await createDataset();
    const actor = `urn:li:corpuser:${uniqueId('bot')}`;
    const res = await svc.call('POST', '/api/graphql', { query: UPDATE, variables: { input: { urn, deprecated: true, note: 'n' } } }, bearer(await token(['write'], { actor })));
    expect(res.body).toEqual({ data: { updateDeprecation: true }, extensions: {} });
    const stored = await svc.call('GET', `/entitiesV2/${enc(urn)}?aspects=List(deprecation)`);
    expect(stored.body.aspects.deprecation).toMatchObject({ created: { actor }, value: { actor, deprecated: true, note: 'n' } });
  });

  it('keeps ingestion, retrieval and search open by default, and credits a presented token', async () => {
    const urn = datasetUrn();
    created.push(urn);
    expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'status', { removed: false }))).status).toBe(200);
    expect((await svc.call('GET', `/entitiesV2/${enc(urn)}`)).status).toBe(200);
    expect((await svc.call('POST', '/entities?action=search', { input: '*', entity: 'dataset', start: 0, count: 1 })).status).toBe(200);

    const actor = `urn:li:corpuser:${uniqueId('emitter')}`;
    const withToken = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'status', { removed: true }), bearer(await token(['write'], { actor })));
    expect(withToken.status).toBe(200);
    const stored = await svc.call('GET', `/entitiesV2/${enc(urn)}?aspects=List(status)`);
    expect(stored.body.aspects.status.created.actor).toBe(actor);
  });

  it('verifies a token sent to an open endpoint: a bad one is 401, a read-only one cannot ingest', async () => {
    const urn = datasetUrn();
    const bad = await svc.call('GET', `/entitiesV2/${enc(urn)}`, undefined, bearer('garbage'));
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe('Bearer');
    const readOnly = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'status', { removed: false }), bearer(await token(['read'])));
    expect(readOnly.status).toBe(403);
  });

  it('never asks a token of /health and /config, even a bad one', async () => {
    for (const path of ['/health', '/config', '/gms/config']) {
      expect((await svc.call('GET', path)).status).toBe(200);
      expect((await svc.call('GET', path, undefined, bearer('garbage'))).status).toBe(200);
    }
  });

  it('answers a GraphQL call without a token with 401 before reading it', async () => {
    const res = await svc.call('POST', '/api/graphql', { query: QUERY, variables: { urn: graphqlTarget } });
    expect(res.status).toBe(401);
    expect(res.body.exceptionClass).toBe('UnauthorizedError');
  });

  describe('with AUTH_REQUIRED_EVERYWHERE', () => {
    let strict: TestService;
    beforeAll(async () => {
      strict = await startTestService({ AUTH_REQUIRED_EVERYWHERE: 'true' });
    });
    afterAll(async () => strict.close());

    it('requires read for retrieval and search, write for ingestion, nothing for /health and /config', async () => {
      const urn = datasetUrn();
      created.push(urn);
      const read = bearer(await token(['read']));
      const write = bearer(await token(['write']));
      expect((await strict.call('GET', `/entitiesV2/${enc(urn)}`)).status).toBe(401);
      expect((await strict.call('GET', `/entitiesV2/${enc(urn)}`, undefined, read)).status).toBe(200);
      const search = { input: '*', entity: 'dataset', start: 0, count: 1 };
      expect((await strict.call('POST', '/entities?action=search', search)).status).toBe(401);
      expect((await strict.call('POST', '/entities?action=search', search, read)).status).toBe(200);
      const ingest = proposal(urn, 'status', { removed: false });
      expect((await strict.call('POST', '/aspects?action=ingestProposal', ingest)).status).toBe(401);
      expect((await strict.call('POST', '/aspects?action=ingestProposal', ingest, read)).status).toBe(403);
      expect((await strict.call('POST', '/aspects?action=ingestProposal', ingest, write)).status).toBe(200);
      expect((await strict.call('GET', '/health')).status).toBe(200);
      expect((await strict.call('GET', '/config')).status).toBe(200);
    });
  });

  describe('the token command', () => {
    const run = promisify(execFile);
    const root = join(__dirname, '..', '..');
    const env = {
      ...process.env,
      TOKEN_SECRET: TEST_TOKEN_SECRET,
      NEO4J_URI: process.env.TEST_NEO4J_URI,
      SEARCH_URL: engineUrl('opensearch'),
    };
    const tokenCommand = (...args: string[]) => run(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'src/cli/token.ts'), ...args], { cwd: root, env });

    it('issues a token the service accepts, and revokes it', async () => {
      const actor = `urn:li:corpuser:${uniqueId('cli')}`;
      const issued = await tokenCommand('--actor', actor, '--scopes', 'read,write', '--ttl', '30d');
      const cliToken = issued.stdout.trim();
      expect(issued.stderr).toMatch(/^jti [0-9a-f-]{36}$/m);

      const urn = await createDataset();
      const call = () => svc.call('POST', '/api/graphql', { query: UPDATE, variables: { input: { urn, deprecated: true } } }, bearer(cliToken));
      expect((await call()).body).toEqual({ data: { updateDeprecation: true }, extensions: {} });
      const stored = await svc.call('GET', `/entitiesV2/${enc(urn)}?aspects=List(deprecation)`);
      expect(stored.body.aspects.deprecation.created.actor).toBe(actor);

      revokedJtis.push(/^jti (\S+)$/m.exec(issued.stderr)![1]);
      const revoked = await tokenCommand('revoke', cliToken);
      expect(revoked.stdout).toMatch(/^revoked /);
      const refused = await call();
      expect(refused.status).toBe(401);
      expect(refused.body.message).toMatch(/has been revoked/);
    });

    it('rejects unknown scopes and bad durations', async () => {
      await expect(tokenCommand('--actor', 'urn:li:corpuser:x', '--scopes', 'root')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('Unknown scope') });
      await expect(tokenCommand('--actor', 'urn:li:corpuser:x', '--ttl', 'forever')).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('Invalid ttl') });
    });
  });
});
