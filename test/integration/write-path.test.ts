import { join } from 'node:path';
import { createLogger } from '../../src/logger';
import { AspectStore } from '../../src/stores/graph/aspect-store';
import { Neo4jExecutor } from '../../src/stores/graph/neo4j-executor';
import { writePipeline } from '../../src/services/write-path/pipeline';
import { Publisher } from '../../src/services/write-path/publish';
import type { WriteItem } from '../../src/services/write-path/plan';
import { proposal } from '../support/samples';
import { engineUrl, serviceProcess, startTestService, uniqueId, type TestService } from '../support/service';

/** The group-commit write path: ordering, isolation of failures, hot targets and backpressure. */
const ROOT = join(__dirname, '..', '..');
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;

describe('write path', () => {
  let svc: TestService;
  const created: string[] = [];

  beforeAll(async () => {
    svc = await startTestService({ RETENTION_MAX_VERSIONS: '5000' });
  });
  afterAll(async () => {
    for (let i = 0; i < created.length; i += 200) {
      const batch = created.slice(i, i + 200);
      await svc.call('POST', '/aspects?action=ingestProposalBatch', {
        proposals: batch.map((urn) => ({ entityUrn: urn, changeType: 'DELETE', aspectName: keyAspectOf(urn) })),
      });
    }
    await svc.close();
  });

  function keyAspectOf(urn: string): string {
    return urn.startsWith('urn:li:dataset:') ? 'datasetKey' : urn.startsWith('urn:li:tag:') ? 'tagKey' : 'corpUserKey';
  }

  async function history(urn: string, aspect: string): Promise<{ version: number; value: Record<string, unknown> }[]> {
    const result = await svc.graph.driver.executeQuery(
      'MATCH (a:Aspect {urn: $urn, name: $aspect}) RETURN a.version AS v, a.value AS value ORDER BY v',
      { urn, aspect },
      { database: 'neo4j' },
    );
    return result.records.map((r) => ({ version: Number(r.get('v')), value: JSON.parse(r.get('value')) }));
  }

  async function incoming(urn: string, type: string): Promise<number> {
    const result = await svc.graph.driver.executeQuery(`MATCH (:Entity)-[r:${type}]->(:Entity {urn: $urn}) RETURN count(r) AS n`, { urn }, { database: 'neo4j' });
    return Number(result.records[0].get('n'));
  }

  it('32 concurrent writers x 50 writes on one aspect: contiguous versions in arrival order, 0 errors', async () => {
    const urn = `urn:li:tag:order_${uniqueId()}`;
    created.push(urn);
    const log: { label: string; sent: number; acked: number; status: number }[] = [];
    await Promise.all(
      Array.from({ length: 32 }, async (_, writer) => {
        for (let i = 0; i < 50; i++) {
          const sent = performance.now();
          const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'tagProperties', { name: 'c', description: `${writer}-${i}` }));
          log.push({ label: `${writer}-${i}`, sent, acked: performance.now(), status: res.status });
        }
      }),
    );
    expect(log.filter((l) => l.status !== 200)).toEqual([]);
    const versions = await history(urn, 'tagProperties');
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 1600 }, (_, i) => i));
    // Version order: history 1..1599 oldest first, then the latest (0).
    const order = [...versions.slice(1), versions[0]].map((v) => String(v.value.description));
    expect(new Set(order).size).toBe(1600);
    const position = new Map(order.map((label, i) => [label, i]));
    // Each writer's writes in its own order…
    for (let w = 0; w < 32; w++) {
      const mine = Array.from({ length: 50 }, (_, i) => position.get(`${w}-${i}`)!);
      expect(mine).toEqual([...mine].sort((a, b) => a - b));
    }
    // …and across writers: a write acknowledged before another was sent has the lower version.
    const byAck = [...log].sort((a, b) => a.acked - b.acked);
    const bySent = [...log].sort((a, b) => a.sent - b.sent);
    let maxAcked = -1;
    let j = 0;
    for (const later of bySent) {
      while (j < byAck.length && byAck[j].acked < later.sent) maxAcked = Math.max(maxAcked, position.get(byAck[j++].label)!);
      expect(position.get(later.label)!).toBeGreaterThan(maxAcked);
    }
  });

  it('applies a batch mixing UPSERT and DELETE in proposal order', async () => {
    const id = uniqueId();
    const a = ds(`mixed_a_${id}`);
    const b = ds(`mixed_b_${id}`);
    const tag1 = `urn:li:tag:t1_${id}`;
    const tag2 = `urn:li:tag:t2_${id}`;
    const owner = `urn:li:corpuser:o_${id}`;
    created.push(a, b);
    const up = (urn: string, aspect: string, value: unknown) => proposal(urn, aspect, value).proposal;
    const del = (urn: string, aspect: string) => ({ entityUrn: urn, entityType: 'dataset', changeType: 'DELETE', aspectName: aspect });
    const res = await svc.call('POST', '/aspects?action=ingestProposalBatch', {
      proposals: [
        up(a, 'globalTags', { tags: [{ tag: tag1 }] }),
        up(a, 'globalTags', { tags: [{ tag: tag1 }, { tag: tag2 }] }),
        del(a, 'globalTags'),
        up(a, 'globalTags', { tags: [{ tag: tag2 }] }),
        up(a, 'ownership', { owners: [{ owner, type: 'DATAOWNER' }] }),
        del(a, 'ownership'),
        up(b, 'status', { removed: false }),
        up(b, 'globalTags', { tags: [{ tag: tag1 }] }),
        del(b, 'datasetKey'),
        up(b, 'datasetProperties', { name: 'after the delete' }),
      ],
    });
    expect(res.status).toBe(200);
    // a: the delete dropped both earlier versions; the last upsert is a fresh latest without history.
    expect((await history(a, 'globalTags')).map((v) => [v.version, v.value])).toEqual([[0, { tags: [{ tag: tag2 }] }]]);
    expect(await history(a, 'ownership')).toEqual([]);
    expect(await incoming(tag1, 'TaggedWith')).toBe(0);
    expect(await incoming(tag2, 'TaggedWith')).toBe(1);
    expect(await incoming(owner, 'OwnedBy')).toBe(0);
    // b: the entity delete removed what came before it; what came after it stands.
    const entity = await svc.call('GET', `/entitiesV2/${encodeURIComponent(b)}`);
    expect(Object.keys(entity.body.aspects).sort()).toEqual(['browsePaths', 'browsePathsV2', 'datasetKey', 'datasetProperties']);
  });

  it('runs a patch inside the transaction, on the locked latest value (concurrent patches lose nothing)', async () => {
    const id = uniqueId();
    const urn = ds(`patched_${id}`);
    created.push(urn);
    const principal = { actor: 'urn:li:corpuser:patcher', scopes: new Set(['write']) } as never;
    const tags = Array.from({ length: 20 }, (_, i) => `urn:li:tag:p${i}_${id}`);
    const addTag = (tag: string) => (current: Record<string, unknown> | null) => ({
      tags: [...((current?.tags as { tag: string }[] | undefined) ?? []), { tag }],
    });
    const outcomes = await Promise.all(tags.map((tag) => svc.ingestion.patchAspect(urn, 'globalTags', addTag(tag), principal)));
    expect(outcomes.every((o) => !o.unchanged)).toBe(true);
    const versions = await history(urn, 'globalTags');
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(((versions[0].value.tags as { tag: string }[]).map((t) => t.tag)).sort()).toEqual([...tags].sort());
    const edges = await svc.graph.driver.executeQuery("MATCH (:Entity {urn: $urn})-[r:TaggedWith {aspect: 'globalTags'}]->() RETURN count(r) AS n", { urn }, { database: 'neo4j' });
    expect(Number(edges.records[0].get('n'))).toBe(20);
    // null = leave it; a patch whose result fails validation fails alone, with the usual 422 error.
    expect(await svc.ingestion.patchAspect(urn, 'globalTags', () => null, principal)).toEqual({ unchanged: true });
    await expect(svc.ingestion.patchAspect(urn, 'globalTags', () => ({ tags: 'not a list' }), principal)).rejects.toMatchObject({ status: 422 });
    expect((await history(urn, 'globalTags')).length).toBe(20);
  });

  it('a write that fails in Neo4j fails alone; the rest of its group commits', async () => {
    const logger = createLogger('silent');
    const graph = new Neo4jExecutor(
      { uri: process.env.TEST_NEO4J_URI!, user: '', password: '', database: 'neo4j', timeoutMs: 5000, cypherDir: join(ROOT, 'cypher') },
      logger,
    );
    // A long window so all units land in one group.
    const writer = writePipeline(new AspectStore(graph, ''), new Publisher({}), { windowMs: 200, maxGroupWrites: 1000, concurrency: 1, maxQueuedWrites: 1000, timeoutMs: 5000 }, logger);
    const id = uniqueId();
    const write = (urn: string, edgeType: string): WriteItem[] => {
      const value = { tags: [{ tag: `urn:li:tag:g_${id}` }] };
      return [
        {
          kind: 'upsert',
          urn,
          entityType: 'dataset',
          name: 'globalTags',
          actor: 'urn:li:corpuser:test',
          now: Date.now(),
          systemMetadata: '{}',
          retention: 20,
          defaults: [],
          projected: { value: JSON.stringify(value), hash: `h${urn}`, edges: [{ type: edgeType, target: `urn:li:tag:g_${id}`, targetType: 'tag', isLineage: false }] },
        },
      ];
    };
    const urns = [0, 1, 2, 3].map((i) => ds(`group_${i}_${id}`));
    created.push(...urns, `urn:li:tag:g_${id}`);
    try {
      // An empty relationship type is refused by Neo4j (TokenNameError) when the group's statements run.
      const results = await Promise.allSettled(urns.map((urn, i) => writer.submit(write(urn, i === 2 ? '' : 'TaggedWith'))));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      for (const [i, urn] of urns.entries()) expect((await history(urn, 'globalTags')).length).toBe(i === 2 ? 0 : 1);
      expect(await incoming(`urn:li:tag:g_${id}`, 'TaggedWith')).toBe(3);
    } finally {
      await writer.close();
      await graph.close();
    }
  });

  it('while a group runs, waiting writes start the next only when enough wait or the oldest waited the overlap window', async () => {
    const logger = createLogger('silent');
    const graph = new Neo4jExecutor(
      { uri: process.env.TEST_NEO4J_URI!, user: '', password: '', database: 'neo4j', timeoutMs: 5000, cypherDir: join(ROOT, 'cypher') },
      logger,
    );
    const id = uniqueId();
    const write = (urn: string): WriteItem[] => [
      { kind: 'upsert', urn, entityType: 'dataset', name: 'status', actor: 'urn:li:corpuser:test', now: Date.now(), systemMetadata: '{}', retention: 20, defaults: [], projected: { value: '{"removed":false}', hash: 'h', edges: [] } },
    ];
    let n = 0;
    const next = () => {
      const urn = ds(`overlap_${n++}_${id}`);
      created.push(urn);
      return urn;
    };
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    /** Entities per group in start order; the first group takes `firstMs` longer, so the others arrive while it runs. */
    async function run(options: { overlapMinWrites: number; overlapWindowMs: number }, firstMs: number, later: number): Promise<{ groups: number[]; order: string[] }> {
      const store = new AspectStore(graph, '');
      const groups: number[] = [];
      const writeGroup = store.writeGroup.bind(store);
      store.writeGroup = (async (requests, now, timeoutMs, planLocked) => {
        groups.push(requests.length);
        if (groups.length === 1) await pause(firstMs);
        return writeGroup(requests, now, timeoutMs, planLocked);
      }) as typeof store.writeGroup;
      const writer = writePipeline(store, new Publisher({}), { windowMs: 0, maxGroupWrites: 1000, concurrency: 2, maxQueuedWrites: 1000, timeoutMs: 5000, ...options }, logger);
      const order: string[] = [];
      try {
        const first = writer.submit(write(next())).then(() => order.push('first'));
        await pause(50);
        await Promise.all([first, ...Array.from({ length: later }, () => writer.submit(write(next())).then(() => order.push('later')))]);
      } finally {
        await writer.close();
      }
      return { groups, order };
    }
    try {
      // Fewer than enough: they wait for the running group and then commit as one.
      expect(await run({ overlapMinWrites: 4, overlapWindowMs: 3000 }, 400, 3)).toEqual({ groups: [1, 3], order: ['first', 'later', 'later', 'later'] });
      // Enough: the next group overlaps the running one at once.
      expect(await run({ overlapMinWrites: 4, overlapWindowMs: 3000 }, 1500, 4)).toEqual({ groups: [1, 4], order: ['later', 'later', 'later', 'later', 'first'] });
      // The window bounds the wait of a lone write.
      expect(await run({ overlapMinWrites: 4, overlapWindowMs: 100 }, 1500, 1)).toEqual({ groups: [1, 1], order: ['later', 'first'] });
    } finally {
      await graph.close();
    }
  });

  it('400 concurrent proposals on one tag through two service processes: 200, or 429/503 with Retry-After and absent', async () => {
    const id = uniqueId();
    const tag = `urn:li:tag:hot_${id}`;
    const prefix = `wp${id.toLowerCase()}_`;
    const env = { NEO4J_URI: process.env.TEST_NEO4J_URI!, SEARCH_URL: engineUrl('opensearch'), SEARCH_INDEX_PREFIX: prefix, LOG_LEVEL: 'silent' };
    // One process with a small queue, so the burst overflows it and the refusals are exercised too.
    const [p1, p2] = await Promise.all([serviceProcess({ ...env, WRITE_QUEUE_MAX_WRITES: '40' }), serviceProcess(env)]);
    const indexed = await startTestService({ SEARCH_INDEX_PREFIX: prefix });
    const urns = Array.from({ length: 400 }, (_, i) => ds(`hot_${i}_${id}`));
    created.push(...urns);
    try {
      const answers = await Promise.all(
        urns.map(async (urn, i) => {
          const res = await fetch(`${i % 2 ? p1.url : p2.url}/aspects?action=ingestProposal`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(proposal(urn, 'globalTags', { tags: [{ tag }] })),
          });
          return { urn, status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { message?: string } };
        }),
      );
      const acked = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status !== 200);
      for (const r of refused) {
        expect([429, 503]).toContain(r.status);
        expect(Number(r.retryAfter)).toBeGreaterThan(0);
        expect(r.body.message).toMatch(/overloaded/);
      }
      expect(refused.length).toBeGreaterThan(0);
      expect(acked.length).toBeGreaterThan(0);
      expect(await incoming(tag, 'TaggedWith')).toBe(acked.length);
      const present = await svc.graph.driver.executeQuery('UNWIND $urns AS urn MATCH (:Entity {urn: urn})-[:ASPECT]->(:Aspect {name: "globalTags"}) RETURN collect(urn) AS urns', { urns }, { database: 'neo4j' });
      expect(new Set(present.records[0].get('urns'))).toEqual(new Set(acked.map((a) => a.urn)));
      await indexed.indexer.waitUntilIndexed(urns, 120_000);
      const search = await indexed.call('POST', '/entities?action=search', { input: '*', entity: 'dataset', start: 0, count: 1, filter: { or: [{ and: [{ field: 'tags', value: tag, condition: 'EQUAL' }] }] } });
      expect(search.status).toBe(200);
      expect(search.body.value.numEntities).toBe(acked.length);
    } finally {
      await Promise.all([p1.stop(), p2.stop()]);
      await indexed.indexer.stop();
      await indexed.search.deleteIndex(`${prefix}*`);
      await indexed.close();
    }
  });
});
