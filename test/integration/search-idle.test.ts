import { OutboxStore } from '../../src/stores/graph/outbox-store';
import { proposal } from '../support/samples';
import { engineUrl, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * Entity indices keep the engine's default refresh: a shard nobody searches skips its scheduled refreshes (an ingestion
 * run nobody watches pays for none), and the next search waits for the pending one. So a search still finds what was
 * indexed while the shard was idle.
 */
describe.each(['opensearch', 'elasticsearch'] as const)('an entity index nobody searched (%s)', (engine) => {
  let svc: TestService;
  const prefix = `idle${Date.now().toString(36)}${engine.slice(0, 2)}_`;
  const id = uniqueId().toLowerCase();
  const urnOf = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
  const index = () => svc.indexNames.entity('dataset');
  const engineCall = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${engineUrl(engine)}/${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return (await res.json()) as any;
  };
  const ingestName = async (name: string) => {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urnOf(name), 'datasetProperties', { name, description: 'idle shard' }));
    expect(res.status).toBe(200);
  };
  const searchNames = async (input: string) => {
    const res = await svc.call('POST', '/entities?action=search', { input, entity: 'dataset', start: 0, count: 10 });
    expect(res.status).toBe(200);
    return res.body.value.entities as string[];
  };

  beforeAll(async () => {
    svc = await startTestService({ SEARCH_INDEX_PREFIX: prefix }, engine);
  });
  afterAll(async () => {
    await fetch(`${engineUrl(engine)}/${prefix}*`, { method: 'DELETE' });
    await svc.close();
  });

  it('sets no refresh interval of its own, and a search finds what was indexed while the shard was idle', async () => {
    await ingestName(`first_${id}`);
    await svc.indexer.waitUntilIndexed([urnOf(`first_${id}`)]);
    const settings = await engineCall('GET', `${index()}/_settings`);
    for (const concrete of Object.values<any>(settings)) expect(concrete.settings.index.refresh_interval).toBeUndefined();

    // Idle after a second instead of the default 30 s, so the test need not wait that long.
    await engineCall('PUT', `${index()}/_settings`, { index: { 'search.idle.after': '1s' } });
    await new Promise((r) => setTimeout(r, 2500));
    const refreshes = async () => (await engineCall('GET', `${index()}/_stats/refresh`))._all.primaries.refresh.total as number;
    const idleSince = await refreshes();
    await ingestName(`second_${id}`);
    // Indexed (its outbox entry acknowledged), with no explicit refresh (waitUntilIndexed would make one).
    const outbox = new OutboxStore(svc.graph, prefix);
    for (let waited = 0; (await outbox.pending([urnOf(`second_${id}`)])) > 0; waited += 50) {
      if (waited > 20_000) throw new Error('not indexed within 20 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    // Past the next scheduled refresh: a shard with an interval of its own would refresh now; an idle one waits.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await refreshes()).toBe(idleSince);
    expect(await searchNames(`second_${id}`)).toEqual([urnOf(`second_${id}`)]);
    expect(await refreshes()).toBeGreaterThan(idleSince);
  });
});
