import type { ProcessLease } from '../../src/stores/graph/process-lease';
import { PeerInvalidation } from '../../src/stores/peers/peer-invalidation';

/** The endpoint a process hears others' writes on: only peers holding its token may drop its cached copies. */
describe('peer invalidation endpoint', () => {
  const lease = { revoke: jest.fn(async () => undefined), waitOut: jest.fn(async () => undefined) } as unknown as ProcessLease;
  const channel = new PeerInvalidation(lease, { host: '127.0.0.1', port: 0, timeoutMs: 500 });
  const dropped: string[][] = [];
  let endpoint: { url: string; token: string };

  beforeAll(async () => {
    endpoint = await channel.listen((urns) => dropped.push(urns));
  });
  afterAll(() => channel.close());
  beforeEach(() => {
    dropped.length = 0;
    jest.clearAllMocks();
  });

  const post = (body: string, token = endpoint.token) =>
    fetch(`${endpoint.url}/invalidate`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body });

  it('drops the named entities for a peer with the token', async () => {
    expect((await post(JSON.stringify({ urns: ['urn:li:corpuser:a', 'urn:li:corpuser:b'] }))).status).toBe(204);
    expect(dropped).toEqual([['urn:li:corpuser:a', 'urn:li:corpuser:b']]);
  });

  it('refuses a wrong token and a malformed body, and drops nothing', async () => {
    expect((await post(JSON.stringify({ urns: ['urn:li:corpuser:a'] }), 'x'.repeat(48))).status).toBe(401);
    expect((await post('{not json')).status).toBe(400);
    expect((await post(JSON.stringify({ urns: [1] }))).status).toBe(400);
    expect(dropped).toEqual([]);
  });

  it('tells reachable peers, revokes one that does not confirm, and waits out one already revoked', async () => {
    const peers = [
      { id: 'reachable', ...endpoint, waitMs: null },
      { id: 'wrong-token', url: endpoint.url, token: 'nope', waitMs: null },
      { id: 'revoked', url: 'http://127.0.0.1:9', token: 't', waitMs: 250 },
    ];
    await channel.notify(peers, ['urn:li:corpuser:c']);
    expect(dropped).toEqual([['urn:li:corpuser:c']]);
    expect((lease.revoke as jest.Mock).mock.calls.map(([peer]) => peer.id)).toEqual(['wrong-token']);
    expect((lease.waitOut as jest.Mock).mock.calls).toEqual([[250]]);
  });
});
