import { join } from 'node:path';
import { createLogger } from '../../src/logger';
import { AspectStore } from '../../src/stores/graph/aspect-store';
import { Neo4jExecutor } from '../../src/stores/graph/neo4j-executor';
import { MARGIN_MS, ProcessLease, type ProcessLeaseOptions } from '../../src/stores/graph/process-lease';
import { PeerInvalidation } from '../../src/stores/peers/peer-invalidation';
import { LeasedReadCoherence } from '../../src/stores/graph/read-coherence';
import { UnavailableError } from '../../src/model/errors';
import { KnownStates } from '../../src/services/write-path/known-states';
import { commitGroup, rehearseWrites, writePipeline } from '../../src/services/write-path/pipeline';
import { Publisher } from '../../src/services/write-path/publish';
import { lockRequests, planLocked, type WriteItem } from '../../src/services/write-path/plan';
import { proposal } from '../support/samples';
import { enc, serviceProcess, startTestService, uniqueId } from '../support/service';

/**
 * Leases behind unchecked cached reads: a process reads its cache without asking Neo4j only while every write, through
 * any process, tells it (or waits its lease out) before it is acknowledged.
 */
const ROOT = join(__dirname, '..', '..');
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** One status upsert, as the write path hands it to the group writer. */
const statusWrite = (urn: string): WriteItem[] => [
  { kind: 'upsert', urn, entityType: 'dataset', name: 'status', actor: 'urn:li:corpuser:test', now: Date.now(), systemMetadata: '{}', retention: 20, defaults: [], projected: { value: '{"removed":false}', hash: 'h', edges: [] } },
];

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await pause(20);
  }
}

describe('process lease', () => {
  const logger = createLogger('silent');
  let graph: Neo4jExecutor;
  const quick: ProcessLeaseOptions = { renewMs: 100, leaseMs: 600, maxWriteMs: 1000, revokedBackoffMs: 2000 };
  const endpoint = { url: 'http://127.0.0.1:9', token: 'unused' };
  const registration = async (id: string) =>
    (await graph.driver.executeQuery('MATCH (p:ServiceProcess {id: $id}) RETURN p.peerUrl AS url, p.revokedAt AS revokedAt', { id }, { database: 'neo4j' })).records[0];

  beforeAll(async () => {
    graph = new Neo4jExecutor({ uri: process.env.TEST_NEO4J_URI!, user: '', password: '', database: 'neo4j', timeoutMs: 5000, cypherDir: join(ROOT, 'cypher') }, logger);
    await graph.ensureSchema();
    // As the service does before its first write: planning the write statements cold on a fresh Neo4j took most of the
    // 5 s these tests give a write transaction.
    await rehearseWrites(new AspectStore(graph, ''), 'li');
  });
  afterAll(() => graph.close());

  it('trusts its cache only once every write begun before its lease can have ended; a lapse starts a new epoch and a new wait', async () => {
    const lease = new ProcessLease(graph, quick);
    const unadvertised = new ProcessLease(graph, quick);
    lease.advertise(endpoint);
    const query = graph.query.bind(graph);
    const renewals = jest.spyOn(graph, 'query');
    try {
      const started = performance.now();
      await Promise.all([lease.start(), unadvertised.start()]);
      expect(lease.unchecked()).toBe(false);
      await until(() => lease.unchecked(), 5000);
      expect(performance.now() - started).toBeGreaterThanOrEqual(quick.maxWriteMs + MARGIN_MS);
      const epoch = lease.epoch;

      // Renewals fail for longer than the lease: it lapses, and the next one starts over.
      renewals.mockImplementation((caller, ...rest) => (caller === 'lease.renew' ? Promise.reject(new Error('Neo4j is unavailable')) : query(caller, ...rest)));
      await until(() => !lease.unchecked(), 2000);
      await pause(quick.leaseMs);
      renewals.mockRestore();
      await until(() => lease.epoch > epoch, 2000);
      expect(lease.unchecked()).toBe(false);
      await until(() => lease.unchecked(), 5000);

      // Without an endpoint nobody would tell it of their writes: never unchecked.
      expect(unadvertised.unchecked()).toBe(false);
    } finally {
      renewals.mockRestore();
      await Promise.all([lease.stop(), unadvertised.stop()]);
    }
  });

  it('a peer that cannot be told is revoked: the write waits its lease out, it reads checked, and later writes skip it', async () => {
    const ghost = new ProcessLease(graph, quick);
    ghost.advertise(endpoint); // nothing listens there
    const writer = new ProcessLease(graph, quick);
    const peers = new PeerInvalidation(writer, { host: '127.0.0.1', port: 0, timeoutMs: 200 });
    const coherence = new LeasedReadCoherence(null, writer, peers);
    const store = new AspectStore(graph, '', coherence);
    const urn = ds(`revoked_${uniqueId()}`);
    const known = new KnownStates(0);
    const write = () => commitGroup(store, new Publisher({ coherence }), known, [statusWrite(urn)], Date.now(), 5000, () => undefined);
    try {
      await Promise.all([ghost.start(), writer.start()]);
      await until(() => ghost.unchecked(), 5000);

      const began = performance.now();
      expect(await write()).toHaveLength(1);
      // Any lease the ghost took before the revocation has run out before the write is acknowledged.
      expect(performance.now() - began).toBeGreaterThanOrEqual(quick.leaseMs);
      await until(async () => (await registration(ghost.id))?.get('url') === null, 2000);
      expect(ghost.unchecked()).toBe(false);

      const again = performance.now();
      await write();
      expect(performance.now() - again).toBeLessThan(quick.leaseMs);
    } finally {
      await Promise.all([ghost.stop(), writer.stop()]);
      await graph.driver.executeQuery('MATCH (e:Entity {urn: $urn}) DETACH DELETE e', { urn }, { database: 'neo4j' });
    }
  });

  it('a peer that cannot be told holds the answers of the writes it concerns, not the transactions after them', async () => {
    const ghost = new ProcessLease(graph, quick);
    ghost.advertise(endpoint);
    const writerLease = new ProcessLease(graph, quick);
    const coherence = new LeasedReadCoherence(null, writerLease, new PeerInvalidation(writerLease, { host: '127.0.0.1', port: 0, timeoutMs: 200 }));
    // One transaction at a time: the second group can commit only once the first has given up its slot.
    const writer = writePipeline(new AspectStore(graph, '', coherence), new Publisher({ coherence }), { windowMs: 0, maxGroupWrites: 1000, concurrency: 1, maxQueuedWrites: 1000, timeoutMs: 5000 }, logger);
    const [first, second] = [ds(`held_a_${uniqueId()}`), ds(`held_b_${uniqueId()}`)];
    const stored = async (urn: string) =>
      (await graph.driver.executeQuery('MATCH (e:Entity {urn: $urn})-[:ASPECT]->(:Aspect {name: "status"}) RETURN count(*) AS n', { urn }, { database: 'neo4j' })).records[0].get('n') > 0;
    try {
      await Promise.all([ghost.start(), writerLease.start()]);
      let firstAnswered = false;
      const firstWrite = writer.submit(statusWrite(first)).then(() => (firstAnswered = true));
      await until(() => stored(first), 2000);
      const secondWrite = writer.submit(statusWrite(second));
      await until(() => stored(second), 2000);
      // Committed while the first write's answer still waits out the ghost's lease.
      expect(firstAnswered).toBe(false);
      await Promise.all([firstWrite, secondWrite]);
    } finally {
      await writer.close();
      await Promise.all([ghost.stop(), writerLease.stop()]);
      await graph.driver.executeQuery('UNWIND $urns AS urn MATCH (e:Entity {urn: urn}) DETACH DELETE e', { urns: [first, second] }, { database: 'neo4j' });
    }
  });

  it('a committed group whose peers could be neither told nor revoked fails as a whole, and is not written again unit by unit', async () => {
    const ghost = new ProcessLease(graph, quick);
    ghost.advertise(endpoint);
    const writerLease = new ProcessLease(graph, quick);
    const unreachable = { notify: async () => Promise.reject(new Error('Neo4j is unavailable')) };
    const coherence = new LeasedReadCoherence(null, writerLease, unreachable);
    const store = new AspectStore(graph, '', coherence);
    const groups = jest.spyOn(store, 'writeGroup');
    const writer = writePipeline(store, new Publisher({ coherence }), { windowMs: 50, maxGroupWrites: 1000, concurrency: 1, maxQueuedWrites: 1000, timeoutMs: 5000 }, logger);
    const urns = [ds(`untold_a_${uniqueId()}`), ds(`untold_b_${uniqueId()}`)];
    try {
      await Promise.all([ghost.start(), writerLease.start()]);
      const answers = await Promise.allSettled(urns.map((urn) => writer.submit(statusWrite(urn))));
      expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected']);
      expect((answers[0] as PromiseRejectedResult).reason).toBeInstanceOf(UnavailableError);
      expect(groups).toHaveBeenCalledTimes(1);
    } finally {
      await writer.close();
      await Promise.all([ghost.stop(), writerLease.stop()]);
      await graph.driver.executeQuery('UNWIND $urns AS urn MATCH (e:Entity {urn: urn}) DETACH DELETE e', { urns }, { database: 'neo4j' });
    }
  });

  it('a writer that finds a peer already revoked waits out the leases it held instead of telling it', async () => {
    // Renews once, then not for an hour: revoked, it never learns so.
    const silent = new ProcessLease(graph, { ...quick, renewMs: 3_600_000 });
    silent.advertise(endpoint);
    const other = new ProcessLease(graph, quick);
    const urn = ds(`revoked_seen_${uniqueId()}`);
    try {
      await silent.start();
      await graph.query('test', 'processes/revoke', { peer: silent.id }, { mode: 'WRITE' });
      // A write transaction reads its peers: the revoked one comes with the time its leases still run.
      const store = new AspectStore(graph, '', new LeasedReadCoherence(null, other, new PeerInvalidation(other, { host: '127.0.0.1', port: 0, timeoutMs: 200 })));
      const tx = await store.writeGroup(lockRequests([statusWrite(urn)]), Date.now(), 5000, planLocked([]));
      expect(tx.committed).toBe(true);
      const found = tx.peers.find((p) => p.id === silent.id);
      expect(found).toBeDefined();
      const waitMs = Number(found!.waitMs);
      expect(waitMs).toBeGreaterThan(0);
      expect(waitMs).toBeLessThanOrEqual(quick.leaseMs + MARGIN_MS);
    } finally {
      await silent.stop();
      await graph.driver.executeQuery('MATCH (e:Entity {urn: $urn}) DETACH DELETE e', { urn }, { database: 'neo4j' });
    }
  });

  it("two service processes read their caches unchecked, and each drops its copy before the other's write is acknowledged", async () => {
    const svc = await startTestService({ READ_CACHE_UNCHECKED: 'true' });
    let other: { url: string; stop(): Promise<void> } | undefined;
    const urn = ds(`peers_${uniqueId()}`);
    const path = `/entitiesV2/${enc(urn)}`;
    const nameSeen = async (base: string) => (await (await fetch(`${base}${path}`)).json()).aspects.datasetProperties.value.name as string;
    const write = async (base: string, name: string) =>
      (await fetch(`${base}/aspects?action=ingestProposal`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(proposal(urn, 'datasetProperties', { name, customProperties: {} })),
      })).status;
    try {
      other = await serviceProcess({ NEO4J_URI: process.env.TEST_NEO4J_URI!, SEARCH_URL: process.env.TEST_OPENSEARCH_URL!, LOG_LEVEL: 'silent', READ_CACHE_UNCHECKED: 'true' });
      await until(() => svc.lease.unchecked(), 30_000);
      expect(await write(svc.url, 'first')).toBe(200);
      expect(await nameSeen(svc.url)).toBe('first');
      expect(await nameSeen(other.url)).toBe('first');

      const queries = jest.spyOn(svc.graph, 'query');
      expect(await nameSeen(svc.url)).toBe('first');
      expect(queries.mock.calls.filter(([caller]) => caller === 'retrieval.latest')).toHaveLength(0);

      // Written through the other process: this one's copy is gone before that write is answered.
      expect(await write(other.url, 'second')).toBe(200);
      expect(await nameSeen(svc.url)).toBe('second');
      expect(await nameSeen(svc.url)).toBe('second');
      expect(queries.mock.calls.filter(([caller]) => caller === 'retrieval.latest')).toHaveLength(1);
      queries.mockRestore();

      // And the other way round: first planned from a state the other process's write made stale (it reads again),
      // then from the state that read left, in one statement (writes/apply with `known`), which finds the peers too.
      const knownGroups = jest.spyOn(AspectStore.prototype, 'writeKnownGroup');
      expect(await write(svc.url, 'third')).toBe(200);
      expect(await nameSeen(other.url)).toBe('third');
      expect(await write(svc.url, 'fourth')).toBe(200);
      expect(await nameSeen(other.url)).toBe('fourth');
      const known = await Promise.all(knownGroups.mock.results.map((r) => r.value as Promise<{ applied: boolean }>));
      knownGroups.mockRestore();
      expect(known.map((t) => t.applied)).toEqual([false, true]);
    } finally {
      await other?.stop();
      await svc.call('POST', '/entities?action=delete', { urn });
      await svc.close();
    }
  }, 90_000);

  it("relationship pages are served unchecked too, and any write through either process drops them before it is acknowledged", async () => {
    const svc = await startTestService({ READ_CACHE_UNCHECKED: 'true' });
    let other: { url: string; stop(): Promise<void> } | undefined;
    const id = uniqueId();
    const owner = `urn:li:corpuser:pages_${id}`;
    const [a, b] = [ds(`pages_a_${id}`), ds(`pages_b_${id}`)];
    const incoming = `/relationships?direction=INCOMING&urn=${enc(owner)}&types=OwnedBy`;
    const outgoing = `/relationships?direction=OUTGOING&urn=${enc(a)}&types=OwnedBy`;
    const owned = async (base: string) => (await (await fetch(`${base}${incoming}`)).json()).entities as string[];
    const ownersOfA = async (base: string) => (await (await fetch(`${base}${outgoing}`)).json()).entities as string[];
    const own = async (base: string, urn: string, owners: string[]) =>
      (await fetch(`${base}/aspects?action=ingestProposal`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(proposal(urn, 'ownership', { owners: owners.map((o) => ({ owner: o, type: 'DATAOWNER' })) })),
      })).status;
    try {
      other = await serviceProcess({ NEO4J_URI: process.env.TEST_NEO4J_URI!, SEARCH_URL: process.env.TEST_OPENSEARCH_URL!, LOG_LEVEL: 'silent', READ_CACHE_UNCHECKED: 'true' });
      await until(() => svc.lease.unchecked(), 30_000);
      expect(await own(svc.url, a, [owner])).toBe(200);
      expect(await owned(svc.url)).toEqual([a]);
      expect(await ownersOfA(svc.url)).toEqual([owner]);

      const queries = jest.spyOn(svc.graph, 'query');
      const relationshipReads = () => queries.mock.calls.filter(([caller]) => caller === 'retrieval.relationships').length;
      expect(await owned(svc.url)).toEqual([a]);
      expect(await ownersOfA(svc.url)).toEqual([owner]);
      expect(relationshipReads()).toBe(0);

      // Another entity's write through the other process changes the owner's incoming page: gone before it is answered.
      expect(await own(other.url, b, [owner])).toBe(200);
      expect(await owned(svc.url)).toEqual([a, b]);
      expect(await owned(svc.url)).toEqual([a, b]);
      expect(relationshipReads()).toBe(1);
      queries.mockRestore();

      // And the other way round, for both directions; a hard delete of a source takes its edges out of the pages too.
      expect(await owned(other.url)).toEqual([a, b]);
      expect(await ownersOfA(other.url)).toEqual([owner]);
      expect(await own(svc.url, a, [])).toBe(200);
      expect(await owned(other.url)).toEqual([b]);
      expect(await ownersOfA(other.url)).toEqual([]);
      expect((await svc.call('POST', '/entities?action=delete', { urn: b })).status).toBe(200);
      expect(await owned(other.url)).toEqual([]);
    } finally {
      await other?.stop();
      for (const urn of [a, b]) await svc.call('POST', '/entities?action=delete', { urn });
      await svc.close();
    }
  }, 90_000);
});
