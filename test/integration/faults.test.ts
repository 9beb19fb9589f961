import { join } from 'node:path';
import { restartServer, startServers, stopServer, stopServers } from '../../stack';
import { proposal } from '../support/samples';
import { enc, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * Backends going away and coming back, on a stack of its own (these tests kill servers, so they must not share the
 * suite's stack): /health reports the outage, requests fail fast with 503, nothing acknowledged is lost, and the
 * service recovers by itself.
 */
describe('backend faults', () => {
  const root = join(__dirname, '..', '..', '.stack', 'test-faults');
  let svc: TestService;
  // The default backend timeout: a tighter one turns slow commits on a busy 2-core machine into 503s.
  const timeoutMs = 5000;

  beforeAll(async () => {
    const servers = await startServers({ root, servers: ['neo4j', 'opensearch'], persistent: false, heap: { neo4j: '512m', opensearch: '512m' } });
    // A tight indexing backpressure bound: while the engine is down it must hold no write.
    svc = await startTestService({ NEO4J_URI: servers.neo4j.url, SEARCH_URL: servers.opensearch.url, BACKEND_TIMEOUT_MS: String(timeoutMs), INDEX_BACKLOG_MAX_WRITES: '20' });
  }, 300_000);
  afterAll(async () => {
    await svc?.close();
    await stopServers(['neo4j', 'opensearch'], root);
  });

  async function healthUntil(status: number, deadlineMs: number): Promise<{ body: any; elapsed: number }> {
    const started = Date.now();
    for (;;) {
      const res = await svc.call('GET', '/health');
      if (res.status === status) return { body: res.body, elapsed: Date.now() - started };
      if (Date.now() - started > deadlineMs) throw new Error(`/health still ${res.status} after ${deadlineMs} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  it('keeps every write acknowledged while the search engine is down and indexes it when the engine returns', async () => {
    const tag = `urn:li:tag:outage_${uniqueId()}`;
    const urns = Array.from({ length: 1000 }, (_, i) => `urn:li:dataset:(urn:li:dataPlatform:hive,outage_${uniqueId()}_${i},PROD)`);
    await stopServer('opensearch', root);
    const down = await healthUntil(503, 10_000);
    expect(down.body.search.status).toBe('DOWN');
    expect(down.body.neo4j.status).toBe('UP');

    // 2,000 aspects: properties and tags of 1,000 datasets, 8 writers at a time.
    const writes = urns.flatMap((urn, i) => [
      proposal(urn, 'datasetProperties', { name: `outage ${i}` }),
      proposal(urn, 'globalTags', { tags: [{ tag }] }),
    ]);
    const statuses: number[] = [];
    for (let i = 0; i < writes.length; i += 8) {
      const batch = await Promise.all(writes.slice(i, i + 8).map((w) => svc.call('POST', '/aspects?action=ingestProposal', w)));
      statuses.push(...batch.map((r) => r.status));
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(statuses).toHaveLength(2000);

    await restartServer('opensearch', root);
    await healthUntil(200, 120_000);
    await svc.indexer.waitUntilIndexed(urns, 120_000);
    const found = await svc.call('POST', '/entities?action=search', { input: `tags:${tag.split(':').pop()}`, entity: 'dataset', start: 0, count: 2000 });
    expect(found.status).toBe(200);
    expect(found.body.value.numEntities).toBe(1000);
    expect([...found.body.value.entities].sort()).toEqual([...urns].sort());
  });

  it('answers 503 quickly while Neo4j is down, reports it, and recovers by itself', async () => {
    const urn = `urn:li:tag:neo4jdown_${uniqueId()}`;
    await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'tagProperties', { name: 'before' }));
    await stopServer('neo4j', root);
    const down = await healthUntil(503, 10_000);
    expect(down.body.neo4j.status).toBe('DOWN');

    const started = Date.now();
    const read = await svc.call('GET', `/entitiesV2/${enc(urn)}`);
    const write = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'tagProperties', { name: 'during' }));
    expect(Date.now() - started).toBeLessThan(4 * timeoutMs + 2000);
    expect(read.status).toBe(503);
    expect(write.status).toBe(503);
    expect(read.body).toEqual({ status: 503, message: expect.any(String), exceptionClass: 'UnavailableError' });

    await restartServer('neo4j', root);
    await healthUntil(200, 120_000);
    const after = await svc.call('GET', `/aspects/${enc(urn)}?aspect=tagProperties&version=0`);
    expect(after.status).toBe(200);
    expect(after.body.aspect['com.linkedin.tag.TagProperties'].name).toBe('before');
  });
});
