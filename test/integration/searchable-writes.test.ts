import { join } from 'node:path';
import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, runProcess, type DatahubClient } from '../support/datahub-client';
import { proposal } from '../support/samples';
import { bearer, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * Writes that answer only once searchable, as DataHub's synchronous index update: proposals carrying
 * `X-DataHub-Sync-Index-Update: true` (the official emitter's EmitMode.SYNC_WAIT) or `appSource: ui`, and GraphQL
 * mutations. Each is searched for the moment it answers, with no wait: a plain write reaches search through the outbox
 * and the engine's next refresh, about a second later.
 */
describe('writes that answer once searchable', () => {
  let svc: TestService;
  let client: DatahubClient;
  let token: string;

  beforeAll(async () => {
    svc = await startTestService();
    client = await datahubClient(svc.url);
    token = (await mintToken({ scopes: ['read', 'write'] })).token;
  }, CLIENT_SETUP_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  const word = (id: string, n: number) => `${id.replace(/[^a-zA-Z0-9]/g, '')}w${n}`;
  const dataset = (w: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${w},PROD)`;
  const found = async (input: string, filter?: Record<string, unknown>) => {
    const res = await svc.call('POST', '/entities?action=search', { input, entity: 'dataset', start: 0, count: 10, ...(filter ? { filter } : {}) });
    expect(res.status).toBe(200);
    return res.body.value.numEntities as number;
  };

  it('the official emitter with EmitMode.SYNC_WAIT (OpenAPI): every write is found by a search the moment it returns', async () => {
    const run = await runProcess(join(client.venv, 'bin', 'python'), [join(__dirname, '..', 'python', 'searchable_writes_check.py'), svc.url, token, word(uniqueId('emit'), 0), '5'], client.env(), { cwd: client.home });
    expect(run.stderr).not.toMatch(/Traceback/);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toEqual({ openapi: true, found: [1, 1, 1, 1, 1] });
  });

  it('rest.li proposals with the sync header or a UI source, single and in batches', async () => {
    const id = uniqueId('restli');
    const properties = (w: string) => ({ name: w, description: `orders of ${w}`, customProperties: {} });
    for (let n = 0; n < 3; n++) {
      const w = word(id, n);
      const body = proposal(dataset(w), 'datasetProperties', properties(w));
      const asked = n === 2 ? { systemMetadata: { properties: { appSource: 'ui' } } } : { headers: { 'X-DataHub-Sync-Index-Update': 'true' } };
      expect((await svc.call('POST', '/aspects?action=ingestProposal', { proposal: { ...body.proposal, ...asked } })).status).toBe(200);
      expect(await found(w)).toBe(1);
    }
    const batch = [3, 4, 5].map((n) => ({ ...proposal(dataset(word(id, n)), 'datasetProperties', properties(word(id, n))).proposal, headers: { 'X-DataHub-Sync-Index-Update': 'true' } }));
    expect((await svc.call('POST', '/aspects?action=ingestProposalBatch', { proposals: batch })).status).toBe(200);
    for (const n of [3, 4, 5]) expect(await found(word(id, n))).toBe(1);
  });

  it('GraphQL mutations: a tag added is found by a tag filter the moment the mutation answers', async () => {
    const id = uniqueId('gql');
    const tag = `urn:li:tag:${word(id, 0)}`;
    const tagged = [1, 2, 3].map((n) => dataset(word(id, n)));
    for (const urn of tagged) expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'status', { removed: false }))).status).toBe(200);
    expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(tag, 'tagProperties', { name: word(id, 0) }))).status).toBe(200);
    for (const [i, urn] of tagged.entries()) {
      const res = await svc.call('POST', '/api/graphql', { query: 'mutation($i: TagAssociationInput!) { addTag(input: $i) }', variables: { i: { tagUrn: tag, resourceUrn: urn } } }, bearer(token));
      expect(res.body).toEqual({ data: { addTag: true }, extensions: {} });
      expect(await found('*', { or: [{ and: [{ field: 'tags', values: [tag], condition: 'EQUAL' }] }] })).toBe(i + 1);
    }
  });
});
