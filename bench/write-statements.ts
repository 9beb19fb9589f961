import neo4j from 'neo4j-driver';
import { join } from 'node:path';
import pino from 'pino';
import type { Principal } from '../src/auth';
import { loadConfig } from '../src/config';
import { Registry } from '../src/model/registry';
import { createOfflineWritePath } from '../src/service';
import { AspectStore } from '../src/stores/graph/aspect-store';
import { disableNagleForDriverSockets, Neo4jExecutor } from '../src/stores/graph/neo4j-executor';
import { OutboxStore } from '../src/stores/graph/outbox-store';
import { aspect, PHASES } from './catalog-data';
import { backends, cpuSnapshot, flag, report, ROOT } from './lib';
import { defaultRows, RAW_INGEST_STATEMENT, RAW_OUTBOX_CLEANUP, rawRow } from './write-floor';

/**
 * Neo4j's CPU per aspect for the write path's statements alone, beside the raw reference's UNWIND statement sent in
 * transactions of the same size (the same rows: a dataset's first write also stores its defaults, write-floor.ts defaultRows). Both run in this process, without HTTP, validation cost on the servers or indexing:
 * 16 writers each send one aspect at a time (scenario a's data: N datasets x 5 aspects, phase by phase); the service's
 * write path (the group writer of `npm start`'s settings: at most 2 transactions in flight, each taking every write
 * waiting) and the raw statement group-committed the same way. The service's outbox is then drained as its indexer
 * does (claim 500, acknowledge), and that is counted apart. Rounds alternate raw and service on new names; the first
 * round warms up and is not counted. Where bench/ingest.ts compares a with e (1,000-row transactions), this compares
 * the statements at a's own transaction sizes, so what is left between them is what the statements do.
 *   BENCH_NEO4J_URI=… BENCH_SEARCH_URL=… BENCH_PIDS=neo4j:<pid> npx tsx bench/write-statements.ts [--datasets 2000] [--rounds 5]
 * CYPHER_DIR=<a copy of cypher/> runs the service's statements from that copy: an ablation is a copy with a stage cut.
 */
const datasets = flag('datasets', 2000);
const rounds = flag('rounds', 5);
const WRITERS = 16;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `jobs` jobs (n = 0 …) run by WRITERS writers, each one job at a time. */
async function writers(jobs: number, work: (n: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: WRITERS }, async () => {
    while (next < jobs) await work(next++);
  }));
}

/** Writes waiting at any moment go in one transaction, at most two in flight: the service's group commit. */
function rawGroupCommit(run: (rows: unknown[]) => Promise<unknown>, onGroup: () => void): (row: unknown) => Promise<void> {
  const waiting: { row: unknown; done: () => void; failed: (err: unknown) => void }[] = [];
  let inFlight = 0;
  const pump = () => {
    while (inFlight < 2 && waiting.length > 0) {
      const group = waiting.splice(0, waiting.length);
      inFlight++;
      onGroup();
      run(group.map((g) => g.row))
        .then(() => group.forEach((g) => g.done()), (err) => group.forEach((g) => g.failed(err)))
        .finally(() => {
          inFlight--;
          pump();
        });
    }
  };
  return (row) => new Promise<void>((done, failed) => {
    waiting.push({ row, done, failed });
    setImmediate(pump);
  });
}

async function main() {
  const b = await backends(['neo4j']);
  if (!b.pids.neo4j) throw new Error('name the Neo4j process (BENCH_PIDS=neo4j:<pid>): its CPU is what this measures');
  const neo4jCpuMs = () => cpuSnapshot(b.pids).processes.neo4j;
  disableNagleForDriverSockets();
  const logger = pino({ level: 'warn' });
  const cypherDir = process.env.CYPHER_DIR ?? join(ROOT, 'cypher');
  const graph = new Neo4jExecutor({ uri: b.neo4jUri, user: '', password: '', database: 'neo4j', timeoutMs: 30_000, cypherDir }, logger);
  const driver = neo4j.driver(b.neo4jUri, undefined, { disableLosslessIntegers: true });
  const registry = Registry.load(join(ROOT, 'schema'));
  const run = `ws${Date.now().toString(36)}`;
  const namespace = `${run}_`;
  const store = new AspectStore(graph, namespace);
  let groups = 0;
  // Counted where the service's group writer hands each group to the store.
  const writeGroup = store.writeGroup.bind(store);
  store.writeGroup = <A, T>(...args: Parameters<typeof store.writeGroup<A, T>>) => {
    groups++;
    return writeGroup<A, T>(...args);
  };
  // And groups planned from known states (src/services/write-path/known-states.ts); one that was stale goes on to
  // writeGroup and is counted there too.
  const writeKnownGroup = store.writeKnownGroup.bind(store);
  store.writeKnownGroup = async (...args: Parameters<typeof store.writeKnownGroup>) => {
    const tx = await writeKnownGroup(...args);
    if (tx.applied) groups++;
    return tx;
  };
  // WRITE_CACHE_SIZE=0 compares the write path without known states.
  const writePath = createOfflineWritePath(loadConfig({ WRITE_CACHE_SIZE: process.env.WRITE_CACHE_SIZE }), registry, store, logger);
  const outbox = new OutboxStore(graph, namespace);
  const principal: Principal = { actor: 'urn:li:corpuser:bench', scopes: ['read', 'write'], authenticated: true };
  const aspects = datasets * PHASES.length;
  const measured: Record<'raw' | 'service' | 'drain', number[]> = { raw: [], service: [], drain: [] };
  const groupSizes: Record<'raw' | 'service', number[]> = { raw: [], service: [] };
  try {
    await graph.ensureSchema();
    for (let round = 0; round < rounds; round++) {
      for (const side of ['raw', 'service'] as const) {
        const prefix = `${run}.${side}${round}`;
        groups = 0;
        const before = neo4jCpuMs();
        if (side === 'raw') {
          const write = rawGroupCommit(async (rows) => {
            const session = driver.session({ database: 'neo4j' });
            try {
              await session.executeWrite((tx) => tx.run(RAW_INGEST_STATEMENT, { rows }));
            } finally {
              await session.close();
            }
          }, () => groups++);
          await writers(aspects, async (n) => {
            const phase = Math.floor(n / datasets);
            const a = aspect(prefix, n % datasets, phase, false);
            // A dataset's first write also stores its defaults, as the service does.
            const defaults = phase === 0 ? defaultRows(a.urn).map((d) => write(rawRow(a.urn, d.name, d.value))) : [];
            await Promise.all([...defaults, write(rawRow(a.urn, a.name, a.value))]);
          });
        } else {
          await writers(aspects, async (n) => {
            const a = aspect(prefix, n % datasets, Math.floor(n / datasets), false);
            const proposal = { entityUrn: a.urn, entityType: 'dataset', aspectName: a.name, changeType: 'UPSERT', aspect: { contentType: 'application/json', value: JSON.stringify(a.value) }, systemMetadata: { runId: 'bench', lastObserved: Date.now() } };
            await writePath.ingestion.ingestProposal(proposal, principal);
          });
        }
        const written = neo4jCpuMs();
        if (round > 0) {
          measured[side].push(((written - before) * 1000) / aspects);
          groupSizes[side].push(aspects / groups);
        }
        if (side === 'service') {
          for (;;) {
            const entries = await outbox.claim(500, 30_000);
            if (entries.length === 0) break;
            await outbox.acknowledge(entries);
          }
          if (round > 0) measured.drain.push(((neo4jCpuMs() - written) * 1000) / aspects);
        }
        console.error(`round ${round} ${side}: ${Math.round(((written - before) * 1000) / aspects)} µs of Neo4j CPU per aspect, groups of ${(aspects / groups).toFixed(1)}`);
      }
    }
    const rows: Record<string, Record<string, unknown>> = {
      'raw UNWIND statement, group-committed': { 'neo4j µs/aspect (median)': Math.round(median(measured.raw)), runs: measured.raw.map(Math.round).join(' '), 'mean group': Math.round(median(groupSizes.raw) * 10) / 10 },
      'service write path (lock + apply)': { 'neo4j µs/aspect (median)': Math.round(median(measured.service)), runs: measured.service.map(Math.round).join(' '), 'mean group': Math.round(median(groupSizes.service) * 10) / 10 },
      'service outbox drain (claim + acknowledge)': { 'neo4j µs/aspect (median)': Math.round(median(measured.drain)), runs: measured.drain.map(Math.round).join(' ') },
      'service / raw': { ratio: Math.round((median(measured.service) / median(measured.raw)) * 100) / 100 },
    };
    report('write-statements', rows, { datasets, rounds, cypherDir: process.env.CYPHER_DIR ? cypherDir : 'cypher/' });
  } finally {
    const session = driver.session({ database: 'neo4j' });
    await session.run(
      `MATCH (e:Entity) WHERE e.urn CONTAINS $run
       CALL (e) { OPTIONAL MATCH (e)-[:ASPECT]->(a:Aspect) DETACH DELETE a, e } IN TRANSACTIONS OF 2000 ROWS`,
      { run },
    ).catch((err) => console.error(`cleanup: ${(err as Error).message}`));
    await session.run(RAW_OUTBOX_CLEANUP).catch(() => undefined);
    await session.close();
    await writePath.close();
    await driver.close();
    await graph.close();
    await b.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
