import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { proposal, samples } from '../support/samples';
import { bearer, deleteEntities, enc, engineUrl, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const PREFIX = 'ops_';

describe('administrative operations: task status and restoreIndices', () => {
  let svc: TestService;
  let admin: Record<string, string>;
  const id = uniqueId().toLowerCase();
  const s = samples(id);
  const page = Array.from({ length: 5 }, (_, k) => `urn:li:dataset:(urn:li:dataPlatform:hive,page_${id}_${k},PROD)`);
  const pagePattern = `urn:li:dataset:(urn:li:dataPlatform:hive,page_${id}_%`;
  const pageTag = `urn:li:tag:page_${id}`;
  const all = [...Object.values(s.urns).filter((u) => u !== s.urns.platform), ...page, pageTag];

  const operation = (action: string, body?: Record<string, unknown>) => svc.call('POST', `/operations?action=${action}`, body, admin);
  async function restore(body: Record<string, unknown>) {
    const res = await operation('restoreIndices', body);
    expect(res.status).toBe(200);
    expect(typeof res.body.value).toBe('string');
    return JSON.parse(res.body.value);
  }
  async function search(entity: string, input: string) {
    const res = await svc.call('POST', '/entities?action=search', { input, entity, start: 0, count: 100 });
    expect(res.status).toBe(200);
    const value = res.body.value;
    // Everything but the order (scores depend on index-wide statistics that other tests change).
    const matches = Object.fromEntries((value.entities as string[]).map((urn, i) => [urn, value.metadata.matches[i]]));
    return { total: value.numEntities as number, urns: [...(value.entities as string[])].sort(), matches, facets: value.metadata.searchResultMetadatas };
  }
  async function outgoing(urn: string) {
    const res = await svc.call('GET', `/relationships?direction=OUTGOING&urn=${enc(urn)}`);
    expect(res.status).toBe(200);
    return (res.body.relationships as { type: string; entity: string }[]).map((r) => `${r.type} ${r.entity}`).sort();
  }
  /** Simulates lost derived state: the edges the entities project, removed straight in Neo4j. */
  async function dropEdges(urns: string[]) {
    await svc.graph.write('test.dropEdges', (tx) => tx.run('UNWIND $urns AS urn MATCH (:Entity {urn: urn})-[r]->(:Entity) DELETE r', { urns }));
  }
  const dropIndex = (pattern: string) => svc.search.deleteIndex(`${PREFIX}${pattern}`);

  beforeAll(async () => {
    svc = await startTestService({ SEARCH_INDEX_PREFIX: PREFIX });
    admin = bearer((await mintToken({ scopes: ['admin'] })).token);
    for (const snapshot of Object.values(s.snapshots)) {
      const res = await svc.call('POST', '/entities?action=ingest', { entity: { value: snapshot } });
      expect(res.status).toBe(200);
    }
    for (const [k, urn] of page.entries()) {
      for (const [aspect, value] of [
        ['datasetProperties', { name: `page_${id}_${k}`, description: `page dataset ${k}` }],
        ['globalTags', { tags: [{ tag: pageTag }] }],
        ['ownership', { owners: [{ owner: s.urns.user, type: 'DATAOWNER' }] }],
      ] as const) {
        expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value))).status).toBe(200);
      }
    }
    await svc.indexer.waitUntilIndexed(all);
  });
  afterAll(async () => {
    await deleteEntities(svc.call, all);
    await svc.search.deleteIndex(`${PREFIX}*aspect_v1*`);
    await svc.close();
  });

  describe('getEsTaskStatus', () => {
    it('says what to send when the task reference is incomplete or ambiguous', async () => {
      for (const body of [{}, { nodeId: 'n1' }, { taskId: 5 }, { task: 'n1:5', nodeId: 'n1', taskId: 5 }, { task: 'not-a-task' }]) {
        const res = await operation('getEsTaskStatus', body);
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/task \("<node_id>:<task_number>"\) or both nodeId and taskId/);
      }
    });

    it('answers an error string naming the task when the engine does not know it', async () => {
      for (const body of [{ task: 'nosuchnode:12345' }, { nodeId: 'nosuchnode', taskId: 12345 }]) {
        const res = await operation('getEsTaskStatus', body);
        expect(res.status).toBe(200);
        expect(res.body.value).toBe('{"error":"Could not get task status for nosuchnode:12345"}');
      }
    });

    it('reports a truncation task by task or by nodeId and taskId', async () => {
      const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,usage_${id},PROD)`;
      all.push(urn);
      for (const day of [1, 2, 3]) {
        await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'datasetUsageStatistics', { timestampMillis: day * 86_400_000, uniqueUserCount: day }));
      }
      const truncate = await operation('truncateTimeseriesAspect', { entityType: 'dataset', aspect: 'datasetUsageStatistics', endTimeMillis: 86_400_000, dryRun: false });
      expect(truncate.status).toBe(200);
      const task = truncate.body.value as string;
      const [nodeId, taskId] = task.split(':');
      // Polls the engine's asynchronous task until it completes.
      let status = JSON.parse((await operation('getEsTaskStatus', { nodeId, taskId: Number(taskId) })).body.value);
      while (!status.completed) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = JSON.parse((await operation('getEsTaskStatus', { nodeId, taskId: Number(taskId) })).body.value);
      }
      expect(status).toEqual({
        completed: true,
        taskId: task,
        runTimeNanos: expect.any(Number),
        status: expect.objectContaining({
          total: 1,
          updated: 0,
          created: 0,
          deleted: 1,
          batches: 1,
          version_conflicts: 0,
          noops: 0,
          retries: { bulk: 0, search: 0 },
          throttled_millis: 0,
          requests_per_second: -1,
          throttled_until_millis: 0,
        }),
      });
      expect(JSON.parse((await operation('getEsTaskStatus', { task })).body.value)).toEqual(status);
    });
  });

  describe('restoreIndices', () => {
    it('rejects bad arguments', async () => {
      expect((await operation('restoreIndices', { urn: 'not a urn' })).status).toBe(400);
      expect((await operation('restoreIndices', { aspect: 'noSuchAspect' })).status).toBe(400);
      expect((await operation('restoreIndices', { batchSize: 0 })).status).toBe(400);
    });

    it('restores one entity by urn: its search document and its edges', async () => {
      const dataset = s.urns.dataset;
      const edges = await outgoing(dataset);
      expect(edges).toEqual(expect.arrayContaining([`OwnedBy ${s.urns.user}`, `DownstreamOf ${s.urns.upstream}`, `TaggedWith ${s.urns.tag}`]));
      const rows = Object.keys((await svc.call('GET', `/entitiesV2/${enc(dataset)}`)).body.aspects).length;
      expect((await search('dataset', `tags:Legacy_${id}`)).urns).toEqual([dataset]);

      await dropIndex('datasetindex_v2');
      await dropEdges([dataset]);
      expect(await outgoing(dataset)).toEqual([]);
      expect((await search('dataset', `tags:Legacy_${id}`)).urns).toEqual([]);

      const result = await restore({ urn: dataset });
      expect(result).toMatchObject({
        args: { urn: dataset, aspect: null, urnLike: null, start: 0, batchSize: 10 },
        entitiesRead: 1,
        rowsRead: rows,
        documentsWritten: 1,
        edgesWritten: edges.length,
        ignored: 0,
        lastUrn: dataset,
      });
      expect(result.timeTakenMs).toEqual(expect.any(Number));
      expect(await outgoing(dataset)).toEqual(edges);
      expect((await search('dataset', `tags:Legacy_${id}`)).urns).toEqual([dataset]);
      // Only that entity was restored.
      expect((await search('dataset', `page_${id}*`)).urns).toEqual([]);
    });

    it('restores the entities whose urn matches a urnLike pattern', async () => {
      await dropIndex('datasetindex_v2');
      const result = await restore({ urnLike: pagePattern });
      expect(result).toMatchObject({ args: { urnLike: pagePattern }, entitiesRead: 5, documentsWritten: 5, ignored: 0, lastUrn: page[4] });
      expect(result.rowsRead).toBe(5 * 6); // datasetKey, browsePaths, browsePathsV2, datasetProperties, globalTags, ownership
      expect(result.edgesWritten).toBe(5 * 2);
      expect((await search('dataset', `page_${id}*`)).urns).toEqual([...page].sort());
      expect((await search('dataset', `tags:Legacy_${id}`)).urns).toEqual([]);
    });

    it('pages through the matching entities by urn with start and batchSize', async () => {
      await dropIndex('datasetindex_v2');
      const sorted = [...page].sort();
      const seen: string[] = [];
      for (const [start, expected] of [
        [0, 2],
        [2, 2],
        [4, 1],
        [6, 0],
      ]) {
        const result = await restore({ urnLike: pagePattern, start, batchSize: 2 });
        expect(result).toMatchObject({ args: { start, batchSize: 2 }, entitiesRead: expected, documentsWritten: expected });
        seen.push(...sorted.slice(start, start + expected));
        expect(result.lastUrn).toBe(expected ? sorted[start + expected - 1] : null);
        // Exactly the pages restored so far are searchable.
        expect((await search('dataset', `page_${id}*`)).urns).toEqual(seen);
      }
      expect(seen).toEqual(sorted);
    });

    it('restores only the named aspect’s edges and counts only its rows', async () => {
      await dropEdges(page);
      const result = await restore({ urnLike: pagePattern, aspect: 'globalTags' });
      expect(result).toMatchObject({ args: { aspect: 'globalTags', urnLike: pagePattern }, entitiesRead: 5, rowsRead: 5, documentsWritten: 5, edgesWritten: 5, ignored: 0 });
      for (const urn of page) expect(await outgoing(urn)).toEqual([`TaggedWith ${pageTag}`]);
      await restore({ urnLike: pagePattern, aspect: 'ownership' });
      for (const urn of page) expect(await outgoing(urn)).toEqual([`OwnedBy ${s.urns.user}`, `TaggedWith ${pageTag}`]);
    });

    it('`npm run restore` restores batch after batch, two at once: every document and edge, totals in urn order', async () => {
      await dropIndex('datasetindex_v2');
      await dropEdges(page);
      const { stdout } = await run('npx', ['tsx', 'src/cli/restore.ts', '--urnLike', pagePattern, '--batchSize', '2'], {
        cwd: ROOT,
        env: { ...process.env, NEO4J_URI: process.env.TEST_NEO4J_URI, SEARCH_URL: engineUrl('opensearch'), SEARCH_ENGINE: 'opensearch', SEARCH_INDEX_PREFIX: PREFIX, LOG_LEVEL: 'warn' },
        timeout: 120_000,
      });
      // One progress line per batch of 2 (5 entities: 2, 4, 5), in order although two batches ran at once.
      expect([...stdout.matchAll(/^(\d+) entities, \d+ aspects, (\d+) documents, (\d+) edges/gm)].map((m) => m.slice(1).map(Number))).toEqual([
        [2, 2, 4],
        [4, 4, 8],
        [5, 5, 10],
      ]);
      expect(JSON.parse(stdout.trim().split('\n').pop()!)).toMatchObject({ entitiesRead: 5, rowsRead: 5 * 6, documentsWritten: 5, edgesWritten: 5 * 2, ignored: 0 });
      for (const urn of page) expect(await outgoing(urn)).toEqual([`OwnedBy ${s.urns.user}`, `TaggedWith ${pageTag}`]);
      expect((await search('dataset', `page_${id}*`)).urns).toEqual([...page].sort());
    });

    it('gives the same search answers after every index is dropped and `npm run restore -- --all` rebuilds them', async () => {
      await restore({ urnLike: pagePattern });
      await restore({ urn: s.urns.dataset });
      const queries: [string, string][] = [
        ['dataset', `tags:Legacy_${id}`],
        ['dataset', `page_${id}*`],
        ['dataset', `owners:${s.urns.user}`],
        ['dataset', `field_foo AND SampleHiveDataset_${id}`],
        ['corpuser', `jdoe_${id}`],
        ['corpGroup', `bfoo_${id}`],
        ['tag', `Legacy_${id}`],
        ['glossaryTerm', `Sensitive_${id}`],
        ['chart', `urn:"${s.urns.chart}"`],
        ['dashboard', `urn:"${s.urns.dashboard}"`],
      ];
      const before = await Promise.all(queries.map(([entity, input]) => search(entity, input)));
      expect(before.filter((r) => r.total > 0)).toHaveLength(queries.length);

      await dropIndex('*index_v2');
      const { stdout } = await run('npx', ['tsx', 'src/cli/restore.ts', '--all', '--batchSize', '500'], {
        cwd: ROOT,
        env: { ...process.env, NEO4J_URI: process.env.TEST_NEO4J_URI, SEARCH_URL: engineUrl('opensearch'), SEARCH_ENGINE: 'opensearch', SEARCH_INDEX_PREFIX: PREFIX, LOG_LEVEL: 'warn' },
        timeout: 300_000,
      });
      const totals = JSON.parse(stdout.trim().split('\n').pop()!);
      expect(totals.entitiesRead).toBeGreaterThanOrEqual(page.length + Object.keys(s.snapshots).length);
      expect(totals.documentsWritten).toBe(totals.entitiesRead);
      expect(stdout).toMatch(/aspects\/s/);

      const after = await Promise.all(queries.map(([entity, input]) => search(entity, input)));
      expect(after).toEqual(before);
    });
  });
});
