import { AspectStore } from '../../src/stores/graph/aspect-store';
import { LatestAspectCache } from '../../src/stores/graph/latest-aspect-cache';
import { LeasedReadCoherence } from '../../src/stores/graph/read-coherence';
import { proposal } from '../support/samples';
import { deleteEntities, enc, serviceProcess, startTestService, uniqueId, type TestService } from '../support/service';

/** The read path's mechanisms: coalesced round trips and the latest-aspect cache, checked against a second process. */
describe('read path', () => {
  let writer: TestService;
  let reader: { url: string; stop(): Promise<void> };
  const created: string[] = [];
  const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;

  beforeAll(async () => {
    writer = await startTestService();
    // A separate process with its own cache and driver, on the same Neo4j: it learns of the writer's writes only there.
    reader = await serviceProcess({ NEO4J_URI: process.env.TEST_NEO4J_URI!, SEARCH_URL: process.env.TEST_OPENSEARCH_URL!, LOG_LEVEL: 'silent' });
  }, 90_000);
  afterAll(async () => {
    await reader?.stop();
    await deleteEntities(writer.call, created);
    await writer.close();
  });

  async function write(urn: string, aspect: string, value: unknown, changeType = 'UPSERT') {
    const res = await writer.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value, changeType));
    expect(res.status).toBe(200);
  }

  async function readThroughReader(path: string): Promise<any> {
    const res = await fetch(`${reader.url}${path}`);
    expect(res.status).toBe(200);
    return res.json();
  }

  const aspectsOf = (body: any) => Object.fromEntries(Object.entries(body.aspects as Record<string, { value: unknown }>).map(([name, a]) => [name, a.value]));

  it("another process's writes are seen at once by a process that cached the entity", async () => {
    const urn = ds(`cached_${uniqueId()}`);
    created.push(urn);
    const path = `/entitiesV2/${enc(urn)}`;
    const filtered = `${path}?aspects=List(datasetProperties)`;
    await write(urn, 'datasetProperties', { name: 'v1', customProperties: {} });

    // Read twice: the second answer comes from the reader's cache after Neo4j confirmed the entity is unchanged.
    for (let i = 0; i < 2; i++) {
      expect(aspectsOf(await readThroughReader(path)).datasetProperties).toEqual({ name: 'v1', customProperties: {} });
      expect(aspectsOf(await readThroughReader(filtered)).datasetProperties).toEqual({ name: 'v1', customProperties: {} });
    }

    // Each acknowledged write is visible through the reader on its very next request, for both cached shapes.
    await write(urn, 'datasetProperties', { name: 'v2', customProperties: {} });
    expect(aspectsOf(await readThroughReader(path)).datasetProperties).toEqual({ name: 'v2', customProperties: {} });
    expect(aspectsOf(await readThroughReader(filtered)).datasetProperties).toEqual({ name: 'v2', customProperties: {} });

    await write(urn, 'ownership', { owners: [{ owner: 'urn:li:corpuser:cache_owner', type: 'DATAOWNER' }] });
    expect(Object.keys(aspectsOf(await readThroughReader(path)))).toEqual(expect.arrayContaining(['datasetKey', 'datasetProperties', 'ownership']));

    await write(urn, 'datasetProperties', null, 'DELETE');
    const afterDelete = Object.keys(aspectsOf(await readThroughReader(path)));
    expect(afterDelete).toEqual(expect.arrayContaining(['datasetKey', 'ownership']));
    expect(afterDelete).not.toContain('datasetProperties');
    expect(Object.keys(aspectsOf(await readThroughReader(filtered)))).toEqual(['datasetKey']);

    // A hard delete leaves only the key aspect derived from the URN, as for an entity never written.
    expect((await writer.call('POST', '/entities?action=delete', { urn })).status).toBe(200);
    const gone = await readThroughReader(path);
    expect(Object.keys(gone.aspects)).toEqual(['datasetKey']);
    expect(gone.aspects.datasetKey.created.time).toBe(0);

    // Re-created after the delete: the new value, not the copy cached before the delete.
    await write(urn, 'datasetProperties', { name: 'v3', customProperties: {} });
    expect(aspectsOf(await readThroughReader(path)).datasetProperties).toEqual({ name: 'v3', customProperties: {} });
  });

  it('concurrent reads share round trips and each gets its own answer', async () => {
    const id = uniqueId();
    const owners = Array.from({ length: 5 }, (_, o) => `urn:li:corpuser:coalesce_${o}_${id}`);
    const urns = Array.from({ length: 20 }, (_, i) => ds(`coalesce_${i}_${id}`));
    created.push(...urns);
    const batch = await writer.call('POST', '/aspects?action=ingestProposalBatch', {
      proposals: urns.flatMap((urn, i) => [
        proposal(urn, 'datasetProperties', { name: `n${i}`, customProperties: {} }).proposal,
        proposal(urn, 'ownership', { owners: owners.slice(0, (i % 5) + 1).map((owner) => ({ owner, type: 'DATAOWNER' })) }).proposal,
      ]),
    });
    expect(batch.status).toBe(200);
    const absent = ds(`never_written_${id}`);
    const paths = [
      ...urns.map((urn) => `/entitiesV2/${enc(urn)}`),
      ...urns.map((urn) => `/entitiesV2/${enc(urn)}?aspects=List(ownership)`),
      `/entitiesV2/${enc(absent)}`,
      ...owners.map((owner) => `/relationships?direction=INCOMING&urn=${enc(owner)}&types=OwnedBy&count=3`),
      ...owners.map((owner) => `/relationships?direction=INCOMING&urn=${enc(owner)}&types=OwnedBy&start=3&count=100`),
      ...urns.slice(0, 5).map((urn) => `/relationships?direction=OUTGOING&urn=${enc(urn)}&types=OwnedBy`),
    ];
    const sequential: any[] = [];
    for (const path of paths) sequential.push((await writer.call('GET', path)).body);

    const concurrent = await Promise.all(paths.map((path) => writer.call('GET', path)));
    expect(concurrent.map((r) => r.status)).toEqual(paths.map(() => 200));
    expect(concurrent.map((r) => r.body)).toEqual(sequential);

    // Reads asked for in the same turn of the event loop go to Neo4j as one statement.
    const store = new AspectStore(writer.graph, '', new LeasedReadCoherence(new LatestAspectCache(1_000_000)));
    const queries = jest.spyOn(writer.graph, 'query');
    try {
      const [latest, pages] = await Promise.all([
        Promise.all(urns.map((urn) => store.latest(urn, null))),
        // Owner 0's page twice more: identical reads in one batch are asked once, each still gets its own answer.
        Promise.all([...owners, owners[0], owners[0]].map((owner) => store.relationships(owner, 'INCOMING', ['OwnedBy'], 0, 100))),
      ]);
      // The service's own background work (indexer, lease renewals) shares this store; only these reads are counted.
      const reads = queries.mock.calls.map(([caller]) => caller).filter((c) => c === 'retrieval.latest' || c === 'retrieval.relationships');
      expect(reads.sort()).toEqual(['retrieval.latest', 'retrieval.relationships']);
      expect(latest.map((aspects) => aspects.find((a) => a.name === 'datasetProperties')?.value.name)).toEqual(urns.map((_, i) => `n${i}`));
      expect(pages.map((p) => p.total)).toEqual([20, 16, 12, 8, 4, 20, 20]);
      const relationshipCall = queries.mock.calls.find(([caller]) => caller === 'retrieval.relationships')!;
      expect((relationshipCall[2] as { items: unknown[] }).items).toHaveLength(owners.length);
      expect(pages[5]).toEqual(pages[0]);
      expect(pages[5].relationships).not.toBe(pages[0].relationships);
      expect(pages[0].relationships[0]).toEqual({ type: 'OwnedBy', entity: [...urns].sort()[0] });
    } finally {
      queries.mockRestore();
    }

    // The answers are right, not only alike: owner 0 owns every dataset, owner 4 every fifth.
    const page = (o: number) => sequential[urns.length * 2 + 1 + o];
    expect(page(0)).toMatchObject({ start: 0, count: 3, total: 20 });
    expect(sequential[urns.length * 2 + 1 + owners.length + 4]).toMatchObject({ start: 3, count: 1, total: 4 });
    expect(aspectsOf(sequential[7]).datasetProperties).toEqual({ name: 'n7', customProperties: {} });
    expect(Object.keys(sequential[urns.length + 7].aspects).sort()).toEqual(['datasetKey', 'ownership']);
    expect(Object.keys(sequential[urns.length * 2].aspects)).toEqual(['datasetKey']);
  });

  it('a read sent right after an acknowledged write in the same burst sees it', async () => {
    const urn = ds(`burst_${uniqueId()}`);
    created.push(urn);
    await write(urn, 'datasetProperties', { name: 'before', customProperties: {} });
    const path = `/entitiesV2/${enc(urn)}`;
    await writer.call('GET', path);
    const results = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        await write(urn, 'datasetProperties', { name: `w${i}`, customProperties: {} });
        const seen = aspectsOf((await writer.call('GET', path)).body).datasetProperties as { name: string };
        return seen.name;
      }),
    );
    // Each read started after its own write was acknowledged, so it sees that write or a later one, never 'before'.
    expect(results).not.toContain('before');
  });
});

describe('LatestAspectCache', () => {
  const entry = (rev: number, bytes: number) => ({ rev, packed: Buffer.alloc(bytes), epoch: -1 });

  it('keeps its entries within the size it was given, evicting the least recently used', () => {
    const cache = new LatestAspectCache(10_000);
    for (let i = 0; i < 100; i++) cache.set(`urn:${i}`, entry(i, 1000));
    expect(cache.size).toBeLessThanOrEqual(10);
    expect(cache.get('urn:99')?.rev).toBe(99);
    expect(cache.get('urn:0')).toBeUndefined();
  });

  it('keys a filtered read apart from a full one, whatever the order of names', () => {
    expect(LatestAspectCache.key('u', null)).not.toBe(LatestAspectCache.key('u', ['a']));
    expect(LatestAspectCache.key('u', ['b', 'a'])).toBe(LatestAspectCache.key('u', ['a', 'b']));
  });
});
