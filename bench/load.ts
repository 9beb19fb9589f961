import neo4j from 'neo4j-driver';
import { fork, type ChildProcess } from 'node:child_process';
import { removeRunEntities } from '../test/fuzzing/dataset';
import { backends, flag, memoryOf, percentile, report, startServiceProcess } from './lib';

/**
 * Mixed read/write load from several worker processes for a fixed time, against the service in its own process:
 * ingestProposal / entitiesV2 / relationships / search (40/30/15/15 by default) over a seeded set of datasets.
 * Reports throughput, latency percentiles and errors per operation, and the service's memory (VmRSS sampled from
 * /proc/<pid>/status during the run, and VmHWM).
 *   npx tsx bench/load.ts [--seconds 60] [--workers 4] [--concurrency 4] [--datasets 500]
 * BENCH_NEO4J_URI / BENCH_SEARCH_URL: use an existing stack (else a fresh one of its own under .stack/bench).
 */

const OPERATIONS = ['ingestProposal', 'entitiesV2', 'relationships', 'search'] as const;
type Operation = (typeof OPERATIONS)[number];
const MIX: Record<Operation, number> = { ingestProposal: 40, entitiesV2: 30, relationships: 15, search: 15 };

interface WorkerTask {
  url: string;
  prefix: string;
  datasets: number;
  seconds: number;
  concurrency: number;
  worker: number;
}

interface WorkerResult {
  /** Epoch ms of the worker's first request and of its last answer. */
  startedAt: number;
  endedAt: number;
  latencies: Record<Operation, number[]>;
  statuses: Record<Operation, Record<string, number>>;
}

const names = (prefix: string) => ({
  dataset: (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,${prefix}table_${i},PROD)`,
  user: (i: number) => `urn:li:corpuser:${prefix}user_${i % 20}`,
  tag: (i: number) => `urn:li:tag:${prefix}tag_${i % 10}`,
});

function proposal(urn: string, aspectName: string, value: unknown) {
  return { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } };
}

/** One write of the mix: a new value of one of four aspects of one dataset (a few datasets are new). */
function randomWrite(prefix: string, datasets: number, i: number) {
  return aspectWrite(prefix, Math.floor(Math.random() * datasets * (Math.random() < 0.1 ? 2 : 1)), i);
}

/** Aspect `i % 4` of dataset `d`: properties, tags, owner or lineage (which project TaggedWith, OwnedBy, DownstreamOf). */
function aspectWrite(prefix: string, d: number, i: number) {
  const n = names(prefix);
  const urn = n.dataset(d);
  switch (i % 4) {
    case 0:
      return proposal(urn, 'datasetProperties', { name: `table_${d}`, description: `Load test table ${d}, write ${i}`, customProperties: { team: `team_${i % 7}` } });
    case 1:
      return proposal(urn, 'globalTags', { tags: [{ tag: n.tag(i) }, { tag: n.tag(i + 3) }] });
    case 2:
      return proposal(urn, 'ownership', { owners: [{ owner: n.user(i), type: 'DATAOWNER' }] });
    default:
      return proposal(urn, 'upstreamLineage', { upstreams: [{ dataset: n.dataset(Math.max(0, d - 1)), type: 'TRANSFORMED', auditStamp: { time: 0, actor: n.user(0) } }] });
  }
}

async function workerMain(task: WorkerTask): Promise<WorkerResult> {
  const n = names(task.prefix);
  const result: WorkerResult = {
    startedAt: Date.now(),
    endedAt: 0,
    latencies: { ingestProposal: [], entitiesV2: [], relationships: [], search: [] },
    statuses: { ingestProposal: {}, entitiesV2: {}, relationships: {}, search: {} },
  };
  const total = OPERATIONS.reduce((s, op) => s + MIX[op], 0);
  const pickOperation = (): Operation => {
    let roll = Math.random() * total;
    return OPERATIONS.find((op) => (roll -= MIX[op]) < 0) ?? 'search';
  };
  const randomDataset = () => n.dataset(Math.floor(Math.random() * task.datasets));
  const json = { 'content-type': 'application/json' };
  const request = (op: Operation, i: number): [string, RequestInit] => {
    switch (op) {
      case 'ingestProposal':
        return ['/aspects?action=ingestProposal', { method: 'POST', headers: json, body: JSON.stringify({ proposal: randomWrite(task.prefix, task.datasets, i) }) }];
      case 'entitiesV2':
        return [`/entitiesV2/${encodeURIComponent(randomDataset())}${i % 3 === 0 ? '?aspects=List(ownership,globalTags)' : ''}`, { method: 'GET' }];
      case 'relationships': {
        const [urn, direction] = i % 3 === 0 ? [n.tag(i), 'INCOMING'] : i % 3 === 1 ? [n.user(i), 'INCOMING'] : [randomDataset(), 'OUTGOING'];
        return [`/relationships?urn=${encodeURIComponent(urn)}&direction=${direction}&types=List(OwnedBy,TaggedWith,DownstreamOf)&count=20`, { method: 'GET' }];
      }
      default: {
        const input = [`${task.prefix}table_${Math.floor(Math.random() * task.datasets)}`, `tags:${task.prefix}tag_${i % 10}`, `Load test table ${i % 100}`, `${task.prefix}*`][i % 4];
        return ['/entities?action=search', { method: 'POST', headers: json, body: JSON.stringify({ input, entity: 'dataset', start: 0, count: 10 }) }];
      }
    }
  };
  const deadline = Date.now() + task.seconds * 1000;
  let counter = task.worker * 1_000_000;
  await Promise.all(
    Array.from({ length: task.concurrency }, async () => {
      while (Date.now() < deadline) {
        const op = pickOperation();
        const [path, init] = request(op, counter++);
        const started = performance.now();
        let status: string;
        try {
          const res = await fetch(`${task.url}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
          await res.arrayBuffer();
          status = String(res.status);
        } catch (err) {
          status = (err as Error).name === 'TimeoutError' ? 'timeout' : 'network';
        }
        result.latencies[op].push(performance.now() - started);
        result.statuses[op][status] = (result.statuses[op][status] ?? 0) + 1;
      }
    }),
  );
  result.endedAt = Date.now();
  return result;
}

function runWorker(task: WorkerTask): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = fork(__filename, ['--worker'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (m) => resolve(m as WorkerResult));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`worker ${task.worker} exited with ${code}`)));
    child.send(task);
  });
}

async function main() {
  const seconds = flag('seconds', 60);
  const workers = flag('workers', 4);
  const concurrency = flag('concurrency', 4);
  const datasets = flag('datasets', 500);
  const prefix = `load${Date.now().toString(36)}_`;
  const b = await backends(['neo4j', 'opensearch']);
  const service = await startServiceProcess(b, { LOG_LEVEL: 'warn', TOKEN_SECRET: 'load-token-secret-0123456789abcdef0123456789' });
  const driver = neo4j.driver(b.neo4jUri, undefined, { disableLosslessIntegers: true });
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, text: await r.text() };
  };
  try {
    // The data the mix reads and rewrites: datasets with properties, tags, owners and lineage.
    const seed = Array.from({ length: datasets }, (_, d) => [0, 1, 2, 3].map((k) => aspectWrite(prefix, d, d + k))).flat();
    for (let i = 0; i < seed.length; i += 500) {
      const res = await post('/aspects?action=ingestProposalBatch', { proposals: seed.slice(i, i + 500) });
      if (res.status !== 200) throw new Error(`seeding failed: ${res.status} ${res.text.slice(0, 300)}`);
    }
    const pid = service.child.pid!;
    const before = memoryOf(pid);
    console.log(`load: ${workers} workers x ${concurrency} in flight for ${seconds} s against ${service.url} (pid ${pid}); ${datasets} datasets seeded; memory before ${JSON.stringify(before)}`);

    const samples: number[] = [];
    const sampler = setInterval(() => {
      const m = memoryOf(pid);
      if (m) samples.push(m.rssMb);
    }, 500);
    const results = await Promise.all(Array.from({ length: workers }, (_, worker) => runWorker({ url: service.url, prefix, datasets, seconds, concurrency, worker })));
    // The window in which workers sent requests (process start-up excluded).
    const elapsed = (Math.max(...results.map((r) => r.endedAt)) - Math.min(...results.map((r) => r.startedAt))) / 1000;
    clearInterval(sampler);
    const after = memoryOf(pid);

    const rows: Record<string, Record<string, unknown>> = {};
    const round = (x: number) => Math.round(x * 10) / 10;
    const all: number[] = [];
    let errors = 0;
    for (const op of OPERATIONS) {
      const latencies = results.flatMap((r) => r.latencies[op]).sort((a, b) => a - b);
      const statuses: Record<string, number> = {};
      for (const r of results) for (const [s, c] of Object.entries(r.statuses[op])) statuses[s] = (statuses[s] ?? 0) + c;
      const failed = Object.entries(statuses).filter(([s]) => !/^2\d\d$/.test(s)).reduce((sum, [, c]) => sum + c, 0);
      errors += failed;
      all.push(...latencies);
      rows[op] = {
        requests: latencies.length,
        perSecond: round(latencies.length / elapsed),
        errors: failed,
        p50: round(percentile(latencies, 50)),
        p95: round(percentile(latencies, 95)),
        p99: round(percentile(latencies, 99)),
        max: round(latencies.at(-1) ?? 0),
        statuses: Object.entries(statuses).map(([s, c]) => `${s}:${c}`).join(' '),
      };
    }
    all.sort((a, b) => a - b);
    rows.total = { requests: all.length, perSecond: round(all.length / elapsed), errors, p50: round(percentile(all, 50)), p95: round(percentile(all, 95)), p99: round(percentile(all, 99)), max: round(all.at(-1) ?? 0) };
    const memory = {
      rssBeforeMb: before?.rssMb,
      rssDuringMb: { min: Math.min(...samples), median: percentile([...samples].sort((a, b) => a - b), 50), max: Math.max(...samples), samples: samples.length },
      rssAfterMb: after?.rssMb,
      peakVmHWMMb: after?.hwmMb,
    };
    report('load', rows, { seconds: round(elapsed), workers, concurrency, datasets, mix: MIX, serviceMemory: memory, note: 'shared 2-core machine: other work ran at the same time' });
    console.log('service memory', JSON.stringify(memory));
  } finally {
    await removeRunEntities(post, driver, 'neo4j', prefix, []).catch((err) => console.error('cleanup failed', err));
    await driver.close();
    await service.stop();
    await b.stop();
  }
}

if (process.argv.includes('--worker')) {
  process.once('message', (task) => {
    workerMain(task as WorkerTask)
      .then((result) => process.send!(result, () => process.exit(0)))
      .catch((err) => {
        console.error(err);
        process.exit(1);
      });
  });
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
