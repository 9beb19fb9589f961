import neo4j from 'neo4j-driver';
import { SearchIndexer } from '../../src/services/indexing/indexer';
import { writePipeline } from '../../src/services/write-path/pipeline';
import { Publisher } from '../../src/services/write-path/publish';
import { AspectStore } from '../../src/stores/graph/aspect-store';
import { OutboxStore } from '../../src/stores/graph/outbox-store';
import { proposal } from '../support/samples';
import { startTestService, uniqueId, type TestService } from '../support/service';

/**
 * The indexer acknowledges the revision it indexed. A write that re-dirties the entry while the acknowledgement waits
 * for the entry's lock must keep its entry (Neo4j reads committed data: a comparison made before the lock would see the
 * old revision and delete the new entry, and the write would never reach the index).
 */
describe('search outbox under concurrent writes', () => {
  let svc: TestService;
  const ns = `${uniqueId('outbox')}_`;
  const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,${uniqueId('race')},PROD)`;
  let outbox: OutboxStore;

  const run = (query: string, params: Record<string, unknown> = {}) => svc.graph.driver.executeQuery(query, { urn, ns, ...params }, { database: 'neo4j' });
  const entry = async () => (await run('MATCH (o:Outbox {urn: $urn, ns: $ns}) RETURN o.rev AS rev, o.applied AS applied, keys(o) AS keys')).records[0]?.toObject();

  beforeAll(async () => {
    // The service's own indexer consumes another namespace and leaves these entries alone.
    svc = await startTestService();
    outbox = new OutboxStore(svc.graph, ns);
  });
  afterAll(async () => {
    await run('MATCH (o:Outbox {ns: $ns}) DELETE o');
    await svc.close();
  });

  /** Re-dirties the entry (rev 1 → 2) in a transaction that commits while `operation` waits for the entry's lock. */
  async function rewriteDuring(operation: () => Promise<unknown>): Promise<void> {
    await run('MERGE (o:Outbox {urn: $urn, ns: $ns}) SET o.rev = 1, o.updatedAt = 0, o.claimUntil = 0 REMOVE o.applied');
    const session = svc.graph.driver.session({ database: 'neo4j' });
    const tx = await session.beginTransaction();
    try {
      await tx.run('MATCH (o:Outbox {urn: $urn, ns: $ns}) SET o.rev = 2, o.claimUntil = 0', { urn, ns });
      const waiting = operation();
      await new Promise((r) => setTimeout(r, 300));
      await tx.commit();
      await waiting;
    } finally {
      await session.close();
    }
  }

  it('acknowledging an indexed revision keeps the entry a later write re-dirtied', async () => {
    await rewriteDuring(() => outbox.acknowledge([{ urn, rev: 1 }]));
    expect(await entry()).toEqual({ rev: 2, applied: null, keys: expect.not.arrayContaining(['_LOCK_']) });
    expect(await outbox.pending([urn])).toBe(1);
  });

  it("marking a revision's delete applied leaves a later write pending", async () => {
    await rewriteDuring(() => outbox.markApplied([{ urn, rev: 1 }], Date.now() + 60_000));
    expect(await entry()).toEqual({ rev: 2, applied: null, keys: expect.not.arrayContaining(['_LOCK_']) });
    expect(await outbox.pending([urn])).toBe(1);
  });

  it('acknowledges and marks the revision it was given', async () => {
    await run('MERGE (o:Outbox {urn: $urn, ns: $ns}) SET o.rev = 5, o.updatedAt = 0, o.claimUntil = 0 REMOVE o.applied');
    await outbox.markApplied([{ urn, rev: 5 }], Date.now() + 60_000);
    expect(await entry()).toEqual({ rev: 5, applied: 5, keys: expect.not.arrayContaining(['_LOCK_']) });
    expect(await outbox.pending([urn])).toBe(0);
    await outbox.acknowledge([{ urn, rev: 5 }]);
    expect(await entry()).toBeUndefined();
  });
});

describe('indexers of several processes', () => {
  let svc: TestService;
  const ns = `${uniqueId('claims')}_`;

  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    await svc.graph.driver.executeQuery('MATCH (o:Outbox {ns: $ns}) DELETE o', { ns }, { database: 'neo4j' });
    await svc.close();
  });

  it("a claim that waited for another claim's locks does not take that claim's entries", async () => {
    const urns = Array.from({ length: 10 }, (_, i) => `urn:li:dataset:(urn:li:dataPlatform:hive,claim_${i}_${uniqueId()},PROD)`);
    await svc.graph.driver.executeQuery('UNWIND $urns AS urn CREATE (:Outbox {urn: urn, ns: $ns, rev: 1, updatedAt: 0, claimUntil: 0})', { urns, ns }, { database: 'neo4j' });
    // The first claim, another process's, holds its transaction open while the second claim waits for its locks.
    const session = svc.graph.driver.session({ database: 'neo4j' });
    const tx = await session.beginTransaction();
    try {
      const first = await tx.run(svc.graph.cypher.get('outbox/claim'), { ns, limit: neo4j.int(10), leaseMs: 60_000, now: Date.now() });
      expect(first.records.map((r) => r.get('urn')).sort()).toEqual([...urns].sort());
      const second = new OutboxStore(svc.graph, ns).claim(10, 60_000);
      await new Promise((r) => setTimeout(r, 300));
      await tx.commit();
      expect(await second).toEqual([]);
    } finally {
      await session.close();
    }
  });
});

describe('a write whose outbox entry an indexer deletes meanwhile', () => {
  let svc: TestService;
  const ns = `${uniqueId('outboxw')}_`;
  const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,${uniqueId('rewrite')},PROD)`;

  beforeAll(async () => {
    svc = await startTestService({ SEARCH_INDEX_PREFIX: ns });
    // Nobody else consumes this namespace: the test plays the indexer.
    await svc.indexer.stop();
  });
  afterAll(async () => {
    await svc.call('POST', '/entities?action=delete', { urn });
    await svc.graph.driver.executeQuery('MATCH (o:Outbox {ns: $ns}) DELETE o', { ns }, { database: 'neo4j' });
    await svc.close();
  });

  it('keeps an entry for the write: acknowledging the old revision cannot take the new one with it', async () => {
    expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'status', { removed: false }))).status).toBe(200);
    // The indexer acknowledges the first revision: it holds the entry's lock and deletes it, not yet committed.
    const session = svc.graph.driver.session({ database: 'neo4j' });
    const ack = await session.beginTransaction();
    let answered: { status: number };
    try {
      await ack.run('MATCH (o:Outbox {urn: $urn, ns: $ns}) SET o._LOCK_ = true WITH o DELETE o', { urn, ns });
      const write = svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'datasetProperties', { description: 'second write' }));
      await new Promise((r) => setTimeout(r, 300));
      await ack.commit();
      answered = await write;
    } finally {
      await session.close();
    }
    expect(answered.status).toBe(200);
    const { records } = await svc.graph.driver.executeQuery(
      'MATCH (e:Entity {urn: $urn}) OPTIONAL MATCH (o:Outbox {urn: $urn, ns: $ns}) RETURN e.rev AS rev, o.rev AS entry',
      { urn, ns },
      { database: 'neo4j' },
    );
    const { rev, entry } = records[0].toObject();
    expect(entry).not.toBeNull();
    expect(Number(entry)).toBe(Number(rev));
  });
});

describe('indexer workers', () => {
  it('several workers of one process never claim the same entry, and every entry is indexed', async () => {
    const prefix = `${uniqueId('workers').toLowerCase()}_`;
    const claim = jest.spyOn(OutboxStore.prototype, 'claim');
    const svc = await startTestService({ SEARCH_INDEX_PREFIX: prefix, OUTBOX_WORKERS: '3', OUTBOX_BATCH_SIZE: '5' });
    const id = uniqueId();
    const urns = Array.from({ length: 60 }, (_, i) => `urn:li:dataset:(urn:li:dataPlatform:hive,workers_${i}_${id},PROD)`);
    try {
      for (let i = 0; i < urns.length; i += 10) {
        const res = await svc.call('POST', '/aspects?action=ingestProposalBatch', {
          proposals: urns.slice(i, i + 10).map((urn) => proposal(urn, 'datasetProperties', { name: `workers ${id}`, customProperties: {} }).proposal),
        });
        expect(res.status).toBe(200);
      }
      await svc.indexer.waitUntilIndexed(urns, 60_000);
      // Entries nobody holds a lease on (as a restore or another process leaves them): the workers claim them.
      const outbox = new OutboxStore(svc.graph, prefix);
      await outbox.enqueue(urns);
      svc.indexer.notify();
      await svc.indexer.waitUntilIndexed(urns, 60_000);
      const claimed: string[] = [];
      for (let i = 0; i < claim.mock.calls.length; i++) {
        if ((claim.mock.contexts[i] as unknown as { ns: string }).ns !== prefix) continue;
        for (const entry of await claim.mock.results[i].value) if (urns.includes(entry.urn)) claimed.push(entry.urn);
      }
      expect(claimed.length).toBe(new Set(claimed).size);
      expect(new Set(claimed).size).toBe(urns.length);
      const search = await svc.call('POST', '/entities?action=search', { input: `workers_*_${id}`, entity: 'dataset', start: 0, count: 0 });
      expect(search.body.value.numEntities).toBe(urns.length);
    } finally {
      claim.mockRestore();
      for (const urn of urns) await svc.call('POST', '/entities?action=delete', { urn });
      await svc.indexer.stop();
      await svc.search.deleteIndex(`${prefix}*`);
      await svc.close();
    }
  });
});

/**
 * A process's own writes reach its indexer at commit, their outbox entries written under a lease taken for it: it
 * indexes them without claiming them, and no other indexer claims them while the lease lasts. Should the process die
 * before it has indexed them, the lease runs out and any indexer claims them.
 */
describe('entries handed over at commit', () => {
  it("are indexed by the writing process's workers without a claim, each once", async () => {
    const prefix = `${uniqueId('handoff').toLowerCase()}_`;
    const claim = jest.spyOn(OutboxStore.prototype, 'claim');
    const indexed = jest.spyOn(SearchIndexer.prototype, 'indexEntries');
    const svc = await startTestService({ SEARCH_INDEX_PREFIX: prefix, OUTBOX_WORKERS: '2', OUTBOX_BATCH_SIZE: '7' });
    const id = uniqueId();
    const urns = Array.from({ length: 40 }, (_, i) => `urn:li:dataset:(urn:li:dataPlatform:hive,handoff_${i}_${id},PROD)`);
    try {
      await Promise.all(
        [0, 10, 20, 30].map(async (from) => {
          const res = await svc.call('POST', '/aspects?action=ingestProposalBatch', {
            proposals: urns.slice(from, from + 10).map((urn) => proposal(urn, 'datasetProperties', { name: `handoff ${id}`, customProperties: {} }).proposal),
          });
          expect(res.status).toBe(200);
        }),
      );
      await svc.indexer.waitUntilIndexed(urns, 60_000);
      const claimed = (await Promise.all(claim.mock.results.map((r) => r.value as Promise<{ urn: string }[]>))).flat().filter((e) => urns.includes(e.urn));
      expect(claimed).toEqual([]);
      const handled = indexed.mock.calls.flatMap(([entries]) => entries.map((e) => e.urn)).filter((urn) => urns.includes(urn));
      expect(handled.sort()).toEqual([...urns].sort());
      const search = await svc.call('POST', '/entities?action=search', { input: `handoff_*_${id}`, entity: 'dataset', start: 0, count: 0 });
      expect(search.body.value.numEntities).toBe(urns.length);
    } finally {
      claim.mockRestore();
      indexed.mockRestore();
      for (const urn of urns) await svc.call('POST', '/entities?action=delete', { urn });
      await svc.indexer.stop();
      await svc.search.deleteIndex(`${prefix}*`);
      await svc.close();
    }
  });

  it('are claimed by another indexer once the lease of a process that died with them runs out', async () => {
    const prefix = `${uniqueId('orphaned').toLowerCase()}_`;
    const svc = await startTestService({ SEARCH_INDEX_PREFIX: prefix, OUTBOX_POLL_MS: '50', OUTBOX_IDLE_POLL_MS: '100' });
    const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,${uniqueId('orphaned')},PROD)`;
    const leaseMs = 2000;
    // A process whose indexer took the entry over at commit and died before indexing it.
    const died = { handoffLease: (now: number) => now + leaseMs, committed: () => undefined, notify: () => undefined };
    const writer = writePipeline(new AspectStore(svc.graph, prefix), new Publisher({ indexer: died }), { windowMs: 0, maxGroupWrites: 10, concurrency: 1, maxQueuedWrites: 10, timeoutMs: 5000 });
    const outbox = new OutboxStore(svc.graph, prefix);
    try {
      const written = Date.now();
      await writer.submit([
        { kind: 'upsert', urn, entityType: 'dataset', name: 'status', actor: 'urn:li:corpuser:test', now: written, systemMetadata: '{}', retention: 20, defaults: [], projected: { value: '{"removed":false}', hash: 'h', edges: [] } },
      ]);
      svc.indexer.notify();
      await new Promise((r) => setTimeout(r, leaseMs / 2));
      // The other indexer polls every 100 ms, and leaves the entry to the lease's holder.
      expect(await outbox.pending([urn])).toBe(1);
      await svc.indexer.waitUntilIndexed([urn], 10_000);
      expect(Date.now() - written).toBeGreaterThanOrEqual(leaseMs);
      const found = await svc.search.search(`${prefix}datasetindex_v2`, { query: { term: { urn } } });
      expect(found.hits.map((h: { id: string }) => h.id)).toEqual([urn]);
    } finally {
      await writer.close();
      await svc.call('POST', '/entities?action=delete', { urn });
      await svc.indexer.stop();
      await svc.search.deleteIndex(`${prefix}*`);
      await svc.close();
    }
  });
});

describe('idle indexer', () => {
  const claimsOf = (claim: jest.SpyInstance, ns: string) => claim.mock.contexts.filter((c) => (c as { ns: string }).ns === ns).length;

  it('backs off its polling while the outbox stays empty', async () => {
    const prefix = `${uniqueId('idle').toLowerCase()}_`;
    const claim = jest.spyOn(OutboxStore.prototype, 'claim');
    const svc = await startTestService({ SEARCH_INDEX_PREFIX: prefix, OUTBOX_WORKERS: '2', OUTBOX_POLL_MS: '20', OUTBOX_IDLE_POLL_MS: '400' });
    try {
      const before = claimsOf(claim, prefix);
      await new Promise((r) => setTimeout(r, 1500));
      // Two workers polling every 20 ms would claim about 150 times.
      expect(claimsOf(claim, prefix) - before).toBeLessThan(30);
    } finally {
      claim.mockRestore();
      await svc.close();
    }
  });

  it('is woken by a write at once, not at its next idle poll', async () => {
    const prefix = `${uniqueId('wake').toLowerCase()}_`;
    const svc = await startTestService({ SEARCH_INDEX_PREFIX: prefix, OUTBOX_POLL_MS: '1000', OUTBOX_IDLE_POLL_MS: '8000' });
    const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,${uniqueId('wake')},PROD)`;
    try {
      // Idle for 3.5 s: the first worker polled after 1 s and 3 s and sleeps until 7 s; the second sleeps 8 s.
      await new Promise((r) => setTimeout(r, 3500));
      const written = performance.now();
      expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'datasetProperties', { name: 'wake', customProperties: {} }))).status).toBe(200);
      const pending = async () => Number((await svc.graph.driver.executeQuery('MATCH (o:Outbox {urn: $urn, ns: $ns}) RETURN count(o) AS n', { urn, ns: prefix }, { database: 'neo4j' })).records[0].get('n'));
      while ((await pending()) > 0 && performance.now() - written < 5000) await new Promise((r) => setTimeout(r, 20));
      expect(await pending()).toBe(0);
      expect(performance.now() - written).toBeLessThan(2000);
    } finally {
      await svc.call('POST', '/entities?action=delete', { urn });
      await svc.indexer.stop();
      await svc.search.deleteIndex(`${prefix}*`);
      await svc.close();
    }
  });
});

/**
 * Backpressure: a process writing faster than its indexer indexes holds new write groups while INDEX_BACKLOG_MAX_WRITES
 * of its writes wait, so the index stays within a bounded distance of the acknowledged writes instead of falling ever
 * further behind. Each batch is held 150 ms here, an engine far slower than the writes; a batch may take twice the bound,
 * so writes in a batch must count too.
 */
describe('writes faster than the indexer', () => {
  async function burst(maxBacklog: string): Promise<{ most: number; statuses: number[] }> {
    const prefix = `${uniqueId('backlog').toLowerCase()}_`;
    const original = SearchIndexer.prototype.indexEntries;
    // Writes through indexEntries so far: an acknowledged write not counted here waits for the index, or is in a batch.
    let indexed = 0;
    const slowed = jest.spyOn(SearchIndexer.prototype, 'indexEntries').mockImplementation(async function (this: SearchIndexer, entries) {
      await new Promise((r) => setTimeout(r, 150));
      const result = await original.call(this, entries);
      indexed += result.done.length;
      return result;
    });
    const svc = await startTestService({ SEARCH_INDEX_PREFIX: prefix, OUTBOX_WORKERS: '1', OUTBOX_BATCH_SIZE: '20', OUTBOX_LINGER_MS: '0', INDEX_BACKLOG_MAX_WRITES: maxBacklog });
    const id = uniqueId();
    const urns = Array.from({ length: 96 }, (_, i) => `urn:li:dataset:(urn:li:dataPlatform:hive,backlog_${i}_${id},PROD)`);
    let most = 0;
    let acknowledged = 0;
    const statuses: number[] = [];
    try {
      // 12 clients, each writing its next dataset once the last was acknowledged; the backlog is read at each answer.
      await Promise.all(
        Array.from({ length: 12 }, async (_, client) => {
          for (let i = client; i < urns.length; i += 12) {
            const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urns[i], 'datasetProperties', { name: `backlog ${id}`, customProperties: {} }));
            statuses.push(res.status);
            if (res.status === 200) acknowledged++;
            most = Math.max(most, acknowledged - indexed);
          }
        }),
      );
      await svc.indexer.waitUntilIndexed(urns, 60_000);
      const search = await svc.call('POST', '/entities?action=search', { input: `backlog_*_${id}`, entity: 'dataset', start: 0, count: 0 });
      expect(search.body.value.numEntities).toBe(urns.length);
      return { most, statuses };
    } finally {
      slowed.mockRestore();
      await svc.indexer.stop();
      await svc.search.deleteIndex(`${prefix}*`);
      await svc.close();
    }
  }

  it('are held while the backlog is at its bound, and every one is acknowledged and indexed', async () => {
    const held = await burst('10');
    expect(held.statuses.every((s) => s === 200)).toBe(true);
    // Acknowledged and not yet indexed, batches in flight included. At the bound no group starts; the groups already
    // running when it was reached add at most one write per client.
    expect(held.most).toBeLessThanOrEqual(10 + 12);
  });

  it('without the bound, leave the indexer ever further behind', async () => {
    const unbounded = await burst('0');
    expect(unbounded.statuses.every((s) => s === 200)).toBe(true);
    expect(unbounded.most).toBeGreaterThan(10 + 12);
  });
});
