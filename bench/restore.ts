import { Client } from '@opensearch-project/opensearch';
import neo4j, { type Driver } from 'neo4j-driver';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pino from 'pino';
import { contentHash } from '../src/model/canonical';
import { Registry } from '../src/model/registry';
import { SearchIndexer } from '../src/services/indexing/indexer';
import { RestoreService, type RestoreCounts } from '../src/services/restore';
import { loadConfig } from '../src/config';
import { createOfflineWritePath } from '../src/service';
import { AspectStore } from '../src/stores/graph/aspect-store';
import { Neo4jExecutor } from '../src/stores/graph/neo4j-executor';
import { OutboxStore } from '../src/stores/graph/outbox-store';
import { RestoreStore } from '../src/stores/graph/restore-store';
import { createSearchEngine } from '../src/stores/search/adapters';
import { entityIndexDefinition, IndexNames } from '../src/stores/search/mappings';
import { buildDocument } from '../src/services/indexing/document';
import { backends, cpuSnapshot, flag, report, ROOT } from './lib';

/**
 * Full-restore throughput (restoreIndices / `npm run restore -- --all`): N datasets with 7 latest aspects each are
 * seeded straight into Neo4j, then restored (search documents + projected edges) by the service's RestoreService,
 * beside the same work sent straight to the backends: a raw Cypher read of the same pages, a bulk of the same document per
 * entity with the OpenSearch client, and the same edge MERGEs. Then the usual case, the search indices lost but Neo4j
 * intact (every edge already right): the service restores again beside a raw read and bulk. Each side runs more than
 * once per case (raw: 1, 2 and 3 pages at once; the service: SERVICE_RUNS times) and its fastest run counts. Target:
 * >= 10,000 aspects/s.
 *   BENCH_NEO4J_URI=… BENCH_SEARCH_URL=… npx tsx bench/restore.ts [--entities 100000] [--batchSize 1000]
 */
const entities = flag('entities', 100_000);
const batchSize = flag('batchSize', 1000);
const ASPECTS_PER_ENTITY = 7;
/** The raw reference runs with each of these many pages written at once; the fastest counts. */
const PAGES_IN_FLIGHT = [1, 2, 3];
/**
 * The service restores this many times in each case, the fastest counting as the raw reference's does: its first run
 * in the process met its code cold (the reprojection's lock, planning and apply ran there for the first time).
 */
const SERVICE_RUNS = 2;
const fastest = <R extends { aspects: number; seconds: number }>(runs: R[]) => runs.reduce((best, r) => (r.seconds < best.seconds ? r : best));
const fastestRestore = <R extends RestoreCounts>(runs: R[]) => runs.reduce((best, r) => (r.timeTakenMs < best.timeTakenMs ? r : best));

/** Removes the edges of the benchmark's entities, so the next run restores every one of them. */
async function wipeEdges(driver: Driver): Promise<void> {
  const session = driver.session({ database: 'neo4j' });
  try {
    await session.run(
      `MATCH (e:Entity) WHERE e.urn STARTS WITH $prefix
       CALL (e) { MATCH (e)-[r]->(:Entity) DELETE r } IN TRANSACTIONS OF 2000 ROWS`,
      { prefix: urnPrefix },
    );
  } finally {
    await session.close();
  }
}

/**
 * CPU seconds a run used in each process: this one (the service's restore runs in it, as the raw reference does) and
 * the servers. On two cores shared by all three, what each side costs the machine is what bounds it.
 */
async function measured<R>(pids: Record<string, number>, run: () => Promise<R>): Promise<R & { cpuSeconds: Record<string, number> }> {
  const before = cpuSnapshot(pids);
  const result = await run();
  const after = cpuSnapshot(pids);
  const seconds = (ms: number) => Math.round(ms / 10) / 100;
  const cpuSeconds: Record<string, number> = { 'bench process': seconds(after.self - before.self) };
  for (const name of Object.keys(pids)) cpuSeconds[name] = seconds(after.processes[name] - before.processes[name]);
  cpuSeconds.total = Math.round(Object.values(cpuSeconds).reduce((a, b) => a + b, 0) * 100) / 100;
  return { ...result, cpuSeconds };
}

const run = `r${randomUUID().slice(0, 8)}`;
const urnPrefix = `urn:li:dataset:(urn:li:dataPlatform:bench,restore_${run}.`;
const urnOf = (i: number) => `${urnPrefix}t${String(i).padStart(7, '0')},PROD)`;
const ownerOf = (i: number) => `urn:li:corpuser:bench_${run}_u${i % 50}`;
const tagOf = (i: number) => `urn:li:tag:bench_${run}_t${i % 20}`;

function aspectsOf(i: number): { name: string; value: Record<string, unknown> }[] {
  const stamp = { time: 1_700_000_000_000, actor: 'urn:li:corpuser:bench' };
  return [
    { name: 'datasetKey', value: { platform: 'urn:li:dataPlatform:bench', name: `restore_${run}.t${String(i).padStart(7, '0')}`, origin: 'PROD' } },
    { name: 'datasetProperties', value: { name: `t${i}`, description: `Benchmark table ${i} of run ${run}`, customProperties: { team: `team_${i % 7}` } } },
    { name: 'ownership', value: { owners: [{ owner: ownerOf(i), type: 'DATAOWNER' }], lastModified: stamp } },
    { name: 'globalTags', value: { tags: [{ tag: tagOf(i) }] } },
    { name: 'status', value: { removed: false } },
    { name: 'browsePaths', value: { paths: [`/prod/bench/restore_${run}`] } },
    { name: 'upstreamLineage', value: { upstreams: [{ dataset: urnOf(Math.max(0, i - 1)), type: 'TRANSFORMED', auditStamp: stamp }] } },
  ];
}

async function seed(driver: Driver): Promise<void> {
  const session = driver.session({ database: 'neo4j' });
  try {
    for (let from = 0; from < entities; from += 2000) {
      const rows: { urn: string; aspects: { name: string; value: string; hash: string }[] }[] = [];
      for (let i = from; i < Math.min(entities, from + 2000); i++) {
        rows.push({ urn: urnOf(i), aspects: aspectsOf(i).map((a) => ({ name: a.name, value: JSON.stringify(a.value), hash: contentHash(a.value) })) });
      }
      await session.executeWrite((tx) =>
        tx.run(
          `UNWIND $rows AS row
           CREATE (e:Entity {urn: row.urn, type: 'dataset', createdAt: $now, rev: $rev})
           WITH e, row
           UNWIND row.aspects AS a
           CREATE (e)-[:ASPECT]->(:Aspect {urn: row.urn, name: a.name, version: 0, value: a.value, hash: a.hash, createdTime: $now,
                                           createdActor: 'urn:li:corpuser:bench', systemMetadata: '{"runId":"bench"}'})`,
          { rows, now: Date.now(), rev: Date.now() * 1000 },
        ),
      );
    }
  } finally {
    await session.close();
  }
}

async function cleanup(driver: Driver): Promise<void> {
  // CALL … IN TRANSACTIONS needs an auto-commit transaction.
  const session = driver.session({ database: 'neo4j' });
  try {
    await session.run(
      `MATCH (e:Entity) WHERE e.urn STARTS WITH $prefix OR e.urn STARTS WITH $users OR e.urn STARTS WITH $tags
       CALL (e) { OPTIONAL MATCH (e)-[:ASPECT]->(a:Aspect) DETACH DELETE a, e } IN TRANSACTIONS OF 2000 ROWS`,
      { prefix: urnPrefix, users: `urn:li:corpuser:bench_${run}_`, tags: `urn:li:tag:bench_${run}_` },
    );
  } finally {
    await session.close();
  }
}

/**
 * The raw reference: same pages by keyset, the same search documents (built by the service's document builder: the
 * document is the product's, any restore builds it) in one bulk per page into an index of the same mapping, the same
 * edge MERGEs (sorted by target, so concurrent pages lock in one order); no locks, no plans, no outbox. `pagesInFlight`
 * pages are written at once (as the service restores several at once; the reference runs each of PAGES_IN_FLIGHT and the
 * fastest counts).
 */
async function rawRestore(driver: Driver, client: Client, index: string, registry: Registry, pagesInFlight: number, withEdges = true): Promise<{ aspects: number; seconds: number }> {
  const dataset = registry.entity('dataset');
  const started = performance.now();
  const read = async (after: string) => {
    const session = driver.session({ database: 'neo4j', defaultAccessMode: neo4j.session.READ });
    try {
      const result = await session.run(
        `MATCH (e:Entity) WHERE e.urn STARTS WITH $prefix AND e.urn > $after
         WITH e ORDER BY e.urn LIMIT $limit
         CALL (e) { MATCH (e)-[:ASPECT]->(a:Aspect) RETURN collect({name: a.name, value: a.value}) AS aspects }
         RETURN e.urn AS urn, e.rev AS rev, aspects`,
        { prefix: urnPrefix, after, limit: neo4j.int(batchSize) },
      );
      return result.records.map((r) => ({ urn: r.get('urn') as string, rev: Number(r.get('rev')), aspects: r.get('aspects') as { name: string; value: string }[] }));
    } finally {
      await session.close();
    }
  };
  let aspects = 0;
  let next = read('');
  const inFlight: Promise<unknown>[] = [];
  for (;;) {
    const page = await next;
    if (page.length === 0) break;
    next = page.length < batchSize ? Promise.resolve([]) : read(page[page.length - 1].urn);
    const body: Record<string, unknown>[] = [];
    const edges: { urn: string; aspect: string; type: string; target: string }[] = [];
    for (const entity of page) {
      const values = new Map<string, Record<string, unknown>>();
      for (const a of entity.aspects) {
        const value = JSON.parse(a.value);
        values.set(a.name, value);
        if (a.name === 'ownership') edges.push({ urn: entity.urn, aspect: a.name, type: 'OwnedBy', target: value.owners[0].owner });
        if (a.name === 'globalTags') edges.push({ urn: entity.urn, aspect: a.name, type: 'TaggedWith', target: value.tags[0].tag });
        if (a.name === 'upstreamLineage') edges.push({ urn: entity.urn, aspect: a.name, type: 'DownstreamOf', target: value.upstreams[0].dataset });
      }
      aspects += entity.aspects.length;
      const doc = buildDocument(registry, dataset, entity.urn, values);
      body.push({ index: { _index: index, _id: entity.urn, version: entity.rev, version_type: 'external_gte' } }, doc);
    }
    edges.sort((x, y) => (x.target < y.target ? -1 : x.target > y.target ? 1 : 0));
    if (!withEdges) edges.length = 0;
    const session = driver.session({ database: 'neo4j' });
    inFlight.push(Promise.all([
      client.bulk({ body }),
      session
        .executeWrite((tx) =>
          tx.run(
            `UNWIND $edges AS edge
             MATCH (e:Entity {urn: edge.urn})
             MERGE (t:Entity {urn: edge.target}) ON CREATE SET t.placeholder = true
             MERGE (e)-[:$(edge.type) {aspect: edge.aspect}]->(t)`,
            { edges },
          ),
        )
        .finally(() => session.close()),
    ]));
    if (inFlight.length >= pagesInFlight) await inFlight.shift();
  }
  await Promise.all(inFlight);
  await client.indices.refresh({ index });
  return { aspects, seconds: (performance.now() - started) / 1000 };
}

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const prefix = `bench_${run}_`;
  const driver = neo4j.driver(b.neo4jUri, undefined, { disableLosslessIntegers: true });
  const client = new Client({ node: b.searchUrl, requestTimeout: 120_000 });
  const logger = pino({ level: 'warn' });
  const graph = new Neo4jExecutor({ uri: b.neo4jUri, user: '', password: '', database: 'neo4j', timeoutMs: 30_000, cypherDir: join(ROOT, 'cypher') }, logger);
  const search = createSearchEngine({ engine: 'opensearch', url: b.searchUrl, timeoutMs: 120_000 });
  const rows: Record<string, Record<string, unknown>> = {};
  try {
    console.log(`seeding ${entities.toLocaleString('en')} datasets x ${ASPECTS_PER_ENTITY} aspects into Neo4j…`);
    await seed(driver);
    await graph.ensureSchema();

    // The raw reference first, a page at a time and two at once; after each its edges go, so every run creates every edge.
    const registry = Registry.load(join(ROOT, 'schema'));
    const raws: { aspects: number; seconds: number; cpuSeconds: Record<string, number> }[] = [];
    for (const pagesInFlight of PAGES_IN_FLIGHT) {
      const rawIndex = `${prefix}raw${pagesInFlight}`;
      await client.indices.create({ index: rawIndex, body: entityIndexDefinition(registry, registry.entity('dataset')) });
      raws.push(await measured(b.pids, () => rawRestore(driver, client, rawIndex, registry, pagesInFlight)));
      await wipeEdges(driver);
    }
    const raw = fastest(raws);

    const names = new IndexNames(prefix);
    const aspectStore = new AspectStore(graph, prefix);
    const indices = new SearchIndexer(registry, aspectStore, new OutboxStore(graph, prefix), search, names, { batchSize, pollMs: 1000 }, logger);
    const writePath = createOfflineWritePath(loadConfig({ RETENTION_MAX_VERSIONS: '20' }), registry, aspectStore, logger);
    const restore = new RestoreService(registry, new RestoreStore(graph), search, names, indices, writePath.ingestion);
    await indices.ensureIndices();
    /**
     * Each service run restores into an empty index, created with the service's mapping before the run, as each raw run
     * writes into an index it created before its run: the cases are "seeded into Neo4j, never indexed" and "the search
     * indices lost". Restored again into a full index, every document replaced one (a Lucene delete and insert), which
     * cost the engine ~15 % more CPU than the raw reference's inserts.
     */
    const emptyServiceIndex = async () => {
      const alias = names.entity('dataset');
      const concrete = Object.keys(await client.indices.get({ index: alias }).then((r) => r.body));
      if (concrete.length > 0) await client.indices.delete({ index: concrete.join(',') });
      await indices.ensureIndices(['dataset'], { recheck: true });
    };
    const serviceRuns: (RestoreCounts & { cpuSeconds: Record<string, number> })[] = [];
    for (let i = 0; i < SERVICE_RUNS; i++) {
      // Every run restores every edge: the edges the run before made go first (the last run's stay, for the case below).
      if (i > 0) await wipeEdges(driver);
      await emptyServiceIndex();
      let last: RestoreCounts | null = null;
      serviceRuns.push(await measured(b.pids, () => restore.restoreAll({ urnLike: `${urnPrefix}%`, batchSize }, (c) => {
        if (!last || c.entitiesRead - last.entitiesRead >= 10_000 || c.entitiesRead === entities) {
          console.log(`  restored ${c.entitiesRead.toLocaleString('en')} entities (${Math.round(c.rowsRead / (c.timeTakenMs / 1000)).toLocaleString('en')} aspects/s)`);
          last = c;
        }
      })));
    }
    const ours = fastestRestore(serviceRuns);
    rows['service restore (RestoreService.restoreAll)'] = {
      entities: ours.entitiesRead,
      aspects: ours.rowsRead,
      documents: ours.documentsWritten,
      edges: ours.edgesWritten,
      seconds: ours.timeTakenMs / 1000,
      runs: serviceRuns.map((r) => r.timeTakenMs / 1000).join(' '),
      aspectsPerSecond: Math.round(ours.rowsRead / (ours.timeTakenMs / 1000)),
      cpuSeconds: ours.cpuSeconds,
    };

    // The usual case: Neo4j intact, the search indices lost. Every edge is right now (the run above made them), so the
    // service writes none (its shortcut); the raw reference reads and bulks only.
    const indicesOnlyRaw: { aspects: number; seconds: number; cpuSeconds: Record<string, number> }[] = [];
    for (const pagesInFlight of PAGES_IN_FLIGHT) {
      const rawIndex = `${prefix}rawdocs${pagesInFlight}`;
      await client.indices.create({ index: rawIndex, body: entityIndexDefinition(registry, registry.entity('dataset')) });
      indicesOnlyRaw.push(await measured(b.pids, () => rawRestore(driver, client, rawIndex, registry, pagesInFlight, false)));
    }
    const againRuns: (RestoreCounts & { cpuSeconds: Record<string, number> })[] = [];
    for (let i = 0; i < SERVICE_RUNS; i++) {
      await emptyServiceIndex();
      againRuns.push(await measured(b.pids, () => restore.restoreAll({ urnLike: `${urnPrefix}%`, batchSize })));
    }
    const again = fastestRestore(againRuns);
    await writePath.close();
    raws.forEach((r, i) => {
      rows[`raw Cypher read + bulk + edge MERGE, ${PAGES_IN_FLIGHT[i]} page${PAGES_IN_FLIGHT[i] > 1 ? 's' : ''} at once`] = { entities, aspects: r.aspects, seconds: Math.round(r.seconds * 100) / 100, aspectsPerSecond: Math.round(r.aspects / r.seconds), cpuSeconds: r.cpuSeconds };
    });
    const rawDocs = fastest(indicesOnlyRaw);
    rows['indices only (edges intact): service restore'] = { entities: again.entitiesRead, aspects: again.rowsRead, documents: again.documentsWritten, seconds: again.timeTakenMs / 1000, runs: againRuns.map((r) => r.timeTakenMs / 1000).join(' '), aspectsPerSecond: Math.round(again.rowsRead / (again.timeTakenMs / 1000)), cpuSeconds: again.cpuSeconds };
    indicesOnlyRaw.forEach((r, i) => {
      rows[`indices only: raw Cypher read + bulk, ${PAGES_IN_FLIGHT[i]} page${PAGES_IN_FLIGHT[i] > 1 ? 's' : ''} at once`] = { entities, aspects: r.aspects, seconds: Math.round(r.seconds * 100) / 100, aspectsPerSecond: Math.round(r.aspects / r.seconds), cpuSeconds: r.cpuSeconds };
    });
    rows['indices only: ratio'] = { serviceOverFasterRaw: Math.round(((again.rowsRead / (again.timeTakenMs / 1000)) / (rawDocs.aspects / rawDocs.seconds)) * 100) / 100 };
    rows.ratio = { serviceOverFasterRaw: Math.round(((ours.rowsRead / (ours.timeTakenMs / 1000)) / (raw.aspects / raw.seconds)) * 100) / 100 };
  } finally {
    await cleanup(driver).catch((err) => console.error('cleanup failed', err));
    await search.deleteIndex(`${prefix}*`).catch(() => undefined);
    await Promise.allSettled([driver.close(), client.close(), graph.close(), search.close()]);
    await b.stop();
  }
  report('restore', rows, { entities, aspectsPerEntity: ASPECTS_PER_ENTITY, batchSize, target: '>= 10000 aspects/s' });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
