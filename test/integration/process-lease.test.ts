import { join } from 'node:path';
import { createLogger } from '../../src/logger';
import { AspectStore } from '../../src/stores/graph/aspect-store';
import { LatestAspectCache } from '../../src/stores/graph/latest-aspect-cache';
import { Neo4jStore } from '../../src/stores/graph/neo4j';
import { ProcessLease, type ProcessLeaseOptions } from '../../src/stores/graph/process-lease';
import { proposal } from '../support/samples';
import { enc, serviceProcess, startTestService, uniqueId } from '../support/service';

/**
 * The sole-writer lease behind unchecked cached reads: a process reads its cache without asking Neo4j only while no
 * other process can commit a write, and every process that can write is registered, renewed and fenced.
 */
const ROOT = join(__dirname, '..', '..');
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await pause(20);
  }
}

describe('process lease', () => {
  const logger = createLogger('silent');
  let graph: Neo4jStore;
  const quick: ProcessLeaseOptions = { renewMs: 100, soleMs: 600, freshMs: 1000, maxWriteMs: 1000 };

  beforeAll(async () => {
    graph = new Neo4jStore({ uri: process.env.TEST_NEO4J_URI!, user: '', password: '', database: 'neo4j', timeoutMs: 5000, cypherDir: join(ROOT, 'cypher') }, logger);
    await graph.ensureSchema();
  });
  afterAll(() => graph.close());

  it('a process alone holds the sole lease; one that starts beside it waits the lease out and ends it; alone again, a new epoch', async () => {
    const a = new ProcessLease(graph, quick);
    const b = new ProcessLease(graph, quick);
    try {
      await a.start();
      // Registrations another test file left behind count as live for their aliveMs.
      await until(() => a.sole(), 30_000);
      const epoch = a.epoch;

      const started = performance.now();
      await b.start();
      // B may write only once any lease A took before it could see B has run out.
      expect(performance.now() - started).toBeGreaterThanOrEqual(quick.soleMs);
      expect(a.sole()).toBe(false);
      expect(b.sole()).toBe(false);

      await b.stop();
      await until(() => a.sole(), 5000);
      expect(a.epoch).toBeGreaterThan(epoch);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('a write of a process that stopped renewing is fenced off, and goes through once the process has renewed', async () => {
    // Renews once at start, then not for an hour: a process paused (or cut off) after registering.
    const paused = new ProcessLease(graph, { ...quick, renewMs: 3_600_000, freshMs: 300 });
    const store = new AspectStore(graph, '', null, paused);
    const urn = ds(`fenced_${uniqueId()}`);
    const queries = jest.spyOn(graph, 'query');
    try {
      await paused.start();
      await pause(400);
      expect((await graph.query('test', 'processes/fence', paused.fence(), { mode: 'WRITE' }))[0].get('writable')).toBe(false);
      queries.mockClear();
      const request = { urn, entityType: 'dataset', create: true, all: false, names: [], values: [], columns: [] };
      const written = await store.writeGroup([request], Date.now(), 5000, (locked) => ({
        plan: { wipes: [], rows: [], removeEdges: [], targets: [], createEdges: [], removeColumnEdges: [], createColumnEdges: [], entities: [] },
        result: locked.get(urn)?.rev,
      }));
      expect(typeof written).toBe('number');
      // The first attempt was refused by the fence and rolled back; the store renewed, then wrote.
      expect(queries.mock.calls.map(([caller]) => caller)).toContain('lease.renew');
    } finally {
      queries.mockRestore();
      await paused.stop();
      await graph.driver.executeQuery('MATCH (e:Entity {urn: $urn}) DETACH DELETE e', { urn }, { database: 'neo4j' });
    }
  });

  it("a process alone serves cached reads without asking Neo4j, and sees another process's write once that one has started", async () => {
    const svc = await startTestService();
    let other: { url: string; stop(): Promise<void> } | undefined;
    const urn = ds(`sole_${uniqueId()}`);
    const path = `/entitiesV2/${enc(urn)}`;
    const nameSeen = async (call: (p: string) => Promise<any>) => (await call(path)).aspects.datasetProperties.value.name as string;
    const viaService = async (p: string) => (await svc.call('GET', p)).body;
    try {
      await until(() => svc.lease.sole(), 30_000);
      expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'datasetProperties', { name: 'first', customProperties: {} }))).status).toBe(200);
      expect(await nameSeen(viaService)).toBe('first');

      const queries = jest.spyOn(svc.graph, 'query');
      expect(await nameSeen(viaService)).toBe('first');
      expect(queries.mock.calls.filter(([caller]) => caller === 'retrieval.latest')).toHaveLength(0);

      // Its own write drops the copy before it is acknowledged.
      expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'datasetProperties', { name: 'second', customProperties: {} }))).status).toBe(200);
      expect(await nameSeen(viaService)).toBe('second');
      expect(await nameSeen(viaService)).toBe('second');
      queries.mockRestore();

      other = await serviceProcess({ NEO4J_URI: process.env.TEST_NEO4J_URI!, SEARCH_URL: process.env.TEST_OPENSEARCH_URL!, LOG_LEVEL: 'silent' });
      const written = await fetch(`${other.url}/aspects?action=ingestProposal`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(proposal(urn, 'datasetProperties', { name: 'third', customProperties: {} })),
      });
      expect(written.status).toBe(200);
      expect(svc.lease.sole()).toBe(false);
      expect(await nameSeen(viaService)).toBe('third');
    } finally {
      await other?.stop();
      await svc.call('POST', '/entities?action=delete', { urn });
      await svc.close();
    }
  }, 90_000);
});
