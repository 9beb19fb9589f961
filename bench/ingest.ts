import { execFile, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import neo4j, { type Driver } from 'neo4j-driver';
import { CypherLibrary } from '../src/stores/graph/cypher';
import { disableNagleForDriverSockets } from '../src/stores/graph/neo4j-executor';
import { aspect, PHASES, urnOf } from './catalog-data';
import { defaultRows, RAW_INGEST_STATEMENT, RAW_OUTBOX_CLEANUP, rawRow, startInstantServer, startWriteFloor } from './write-floor';
import { ON_CPU_NODE_ARGS, startOnCpuProfile } from './oncpu';
import { startJfr } from './jfr';
import { backends, cpuPerOperation, cpuSnapshot, datahubVenv, flag, http, jitSettled, jitShare, jvmSnapshot, peakRssMb, percentile, report, ROOT, runLoad, runQueueSampler, startServiceProcess, stringFlag, type Backends, type RunResult } from './lib';

/**
 * Ingest throughput of the write path, beside the raw physical limit of the same rows written straight to Neo4j.
 *   npx tsx bench/ingest.ts [--datasets 10000] [--scenarios e,h,i,j,k,a,b,c,d] [--rounds 1] [--profile dir] [--perf dir] [--jfr dir] [--warmup 10000] [--file-order phase|entity] [--warmup-jit 15] [--warmup-rounds 15] [--service-warmup 10000]
 * N datasets x 5 aspects (datasetProperties, schemaMetadata with 5-80 fields skewed towards few, ownership, globalTags,
 * upstreamLineage), written phase by phase (all datasetProperties, then all schemaMetadata, …), each scenario on fresh
 * datasets and with an index set of its own:
 *   a  ingestProposal, 16 clients, targets spread (500 owners, 200 tags, Zipf-skewed)
 *   b  ingestProposal, 16 clients, one tag on every dataset and 3 owners
 *   c  ingestProposalBatch, 100 proposals per request, 4 clients
 *   d  the official client: `datahub ingest` of a file of MCPs into the datahub-rest sink, default settings
 *   e  raw reference: the same rows with UNWIND … MERGE straight to Neo4j, 1,000 rows per transaction, one client;
 *      the same rows as the service stores: a dataset's first write also stores its key aspect and default browse paths
 *      (bench/write-floor.ts defaultRows; h, i and k too), 8 aspect nodes per dataset for 5 written
 *   h  a's floor: a's requests through a bare node:http server that group-commits them with e's statement and indexes
 *      nothing (bench/write-floor.ts): what any Node HTTP service could reach for a on this machine
 *   i  h, also indexing every write with the service's documents (no outbox): a's floor with search
 *   k  c's requests (batches of 100, 4 clients) through i's server: c's floor with search (held back, as c is, while
 *      500 entities wait for the engine: without that k wrote faster than it indexed and ended ~3 s behind)
 *   i and k are searched while they fill, by the same probe as a–d: an index nobody searches goes search-idle and skips
 *   its refreshes, which a searched one pays for (unsearched, i's engine CPU per aspect was 15-25 % lower)
 *   j  d's `datahub ingest` into a server that answers at once and writes nothing: the official client's own limit
 *   --file-order entity writes d's and j's file dataset by dataset (its five aspects together, as a source emits a
 *   table's workunits) instead of phase by phase
 * Before any scenario, rounds of --warmup aspects (default 10,000; 0 = none) go through the raw statement and through a
 * service (single proposals and batches, with indexing) on throw-away names, until the JIT compilers of Neo4j and the
 * engine take at most --warmup-jit % (default 15) of their CPU, at most --warmup-rounds (15) rounds: the scenario that
 * ran first used to meet cold JVMs, and with them half the throughput of the same scenario run warm. Each scenario
 * reports the compilers' share it still met (`jit % neo4j`, `jit % opensearch`; a lower bound). The service of each
 * scenario a–d is warmed the same way before it is measured: --service-warmup aspects (default 10,000; 0 = measure it
 * cold) of single proposals and batches on throw-away names, indexed before the scenario starts. A freshly started
 * service spends the CPU of its first writes compiling (V8's optimizing compiler took a third of the service's CPU in
 * the first 5,000 aspects of c), which a service that has run for a while no longer pays.
 * Scenarios run in the order listed. --rounds N runs the list N times, reversed every other round, each round on fresh
 * names, and reports each target's ratio (a/h, b/h, c/e, d/j; a/i, b/i, c/k) per round and its median: on this shared
 * machine the same build's CPU per aspect moved 30-40 % between runs minutes apart, so only ratios within a round, and
 * their median over rounds, compare builds (`steal %`: the share of the machine's CPU time the hypervisor gave away).
 * For a–d, i and k: ack-to-searchable lag of sampled writes (p50/p99) and time from the last acknowledgement until every
 * write is searchable; for a–d the service's peak RSS. --profile writes a V8 CPU profile of the service per scenario (main thread, by
 * wall time); --perf an on-CPU profile of the whole service process with Linux perf (bench/oncpu.ts; root), each scenario's
 * report in <dir>/<scenario>/report.txt; --jfr a Java Flight Recorder CPU profile of Neo4j and the engine per scenario
 * (bench/jfr.ts; <dir>/<scenario>-<jvm>.txt), from the scenario's start until everything is searchable. Each costs CPU:
 * profiled runs are for the profile, not the figures.
 */
const datasets = flag('datasets', 10_000);
const scenarios = stringFlag('scenarios', 'e,h,i,j,k,a,b,c,d').split(',');
const profileDir = stringFlag('profile', '');
const perfDir = stringFlag('perf', '');
const jfrDir = stringFlag('jfr', '');
const warmupAspects = flag('warmup', 10_000);
const warmupJitPercent = flag('warmup-jit', 15);
const warmupRounds = flag('warmup-rounds', 15);
const serviceWarmup = flag('service-warmup', 10_000);
const rounds = flag('rounds', 1);
/** The search field each phase's aspect fills: a sampled write is searchable when its document has it. */
const FIELD: Record<(typeof PHASES)[number], string> = {
  datasetProperties: 'name',
  schemaMetadata: 'fieldPaths',
  ownership: 'owners',
  globalTags: 'tags',
  upstreamLineage: 'upstreams',
};

/** Job n writes phase ⌊n/N⌋ of dataset n mod N: every client writes different entities, as parallel ingestion jobs would. */
const job = (n: number) => ({ i: n % datasets, phase: Math.floor(n / datasets) });
/**
 * The order of d's and j's file: `phase` (default) as a–c write, or `entity`: each dataset's five aspects one after
 * the other, as a source emits a table's workunits (its whole document is then indexed once, not after each aspect).
 */
const fileOrder = stringFlag('file-order', 'phase');
const fileJob = (n: number) => (fileOrder === 'entity' ? { i: Math.floor(n / PHASES.length), phase: n % PHASES.length } : job(n));

const PROBE_INTERVAL_MS = 250;

/**
 * Samples writes at their acknowledgement and polls the engine until each is searchable. A write became searchable
 * between the last poll that missed it (or its acknowledgement) and the poll that found it; its lag is taken at the
 * midpoint, so polling every PROBE_INTERVAL_MS costs the engine 4 searches a second and the lags ± 125 ms.
 */
class LagProbe {
  private pending: { urn: string; field: string; acked: number; missedAt: number }[] = [];
  readonly lags: number[] = [];
  private stopped = false;
  private loop: Promise<void>;

  constructor(
    private readonly searchUrl: string,
    private readonly index: string,
  ) {
    this.loop = this.run();
  }

  acked(urn: string, phase: number): void {
    const now = performance.now();
    this.pending.push({ urn, field: FIELD[PHASES[phase]], acked: now, missedAt: now });
  }

  private async run(): Promise<void> {
    while (!this.stopped || this.pending.length > 0) {
      const batch = this.pending.splice(0, 2000);
      if (batch.length > 0) {
        const sent = performance.now();
        const found = await this.searchable(batch);
        for (const p of batch) {
          if (found.has(`${p.urn}|${p.field}`)) this.lags.push((p.missedAt + sent) / 2 - p.acked);
          else this.pending.push({ ...p, missedAt: sent });
        }
      }
      await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS));
    }
  }

  /**
   * One search per field for the whole batch, answering ids only. (A search per write every 50 ms cost the engine a
   * tenth of a core; one search with the batch's sources every 50 ms still cost it about 300 µs per aspect in a.)
   */
  private async searchable(batch: { urn: string; field: string }[]): Promise<Set<string>> {
    const byField = new Map<string, Set<string>>();
    for (const p of batch) byField.set(p.field, (byField.get(p.field) ?? new Set()).add(p.urn));
    const out = new Set<string>();
    await Promise.all(
      [...byField].map(async ([field, urns]) => {
        // `exists` is false for null and [], as for a field the document does not hold yet.
        const body = { size: urns.size, _source: false, track_total_hits: false, query: { bool: { filter: [{ ids: { values: [...urns] } }, { exists: { field } }] } } };
        const res = await fetch(`${this.searchUrl}/${this.index}/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const json = (await res.json()) as { hits?: { hits?: { _id: string }[] } };
        for (const hit of json.hits?.hits ?? []) out.add(`${hit._id}|${field}`);
      }),
    );
    return out;
  }

  async finish(timeoutMs = 300_000): Promise<{ p50: number; p99: number; max: number; allSearchableAfterLastAckMs: number | null }> {
    const start = performance.now();
    this.stopped = true;
    let timeout: NodeJS.Timeout | undefined;
    // A pending timer would keep the benchmark alive for timeoutMs after its report.
    const timer = new Promise<void>((r) => (timeout = setTimeout(r, timeoutMs)));
    await Promise.race([this.loop, timer]);
    clearTimeout(timeout);
    const left = this.pending.length;
    this.pending = [];
    const sorted = [...this.lags].sort((a, b) => a - b);
    const round = (n: number) => Math.round(n);
    return { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted[sorted.length - 1] ?? 0), allSearchableAfterLastAckMs: left ? null : round(performance.now() - start) };
  }
}

/** Every dataset of the scenario has the last phase's field in its document. */
async function waitAllSearchable(searchUrl: string, index: string, expected: number, field: string, since: number, timeoutMs = 300_000, urnPrefix?: string): Promise<number | null> {
  const query = urnPrefix ? { bool: { filter: [{ exists: { field } }, { prefix: { urn: urnPrefix } }] } } : { exists: { field } };
  for (;;) {
    const res = await fetch(`${searchUrl}/${index}/_count`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    const count = res.ok ? ((await res.json()) as { count: number }).count : 0;
    if (count >= expected) return Math.round(performance.now() - since);
    if (performance.now() - since > timeoutMs) return null;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const load = () => loadavg().map((l) => Math.round(l * 100) / 100).join(' ');

/** --jfr: a flight recording of each JVM of the stack for one scenario; `stop()` prints where its report went. */
function jvmProfiles(b: Backends, key: string): { stop(): void } {
  if (!jfrDir) return { stop: () => undefined };
  const recordings = Object.entries(b.pids).map(([jvm, pid]) => ({ jvm, recording: startJfr(pid, jfrDir, `${key}-${jvm}`) }));
  let stopped = false;
  return {
    stop: () => {
      if (stopped) return;
      stopped = true;
      for (const { jvm, recording } of recordings) console.error(`JFR profile of ${jvm} in ${key} (${join(jfrDir, `${key}-${jvm}.txt`)}):\n${recording.stop().split('\n').slice(0, 40).join('\n')}`);
    },
  };
}

/** The service's constraints and indexes: a fresh stack has none before the service first starts, and the raw statement needs them. */
async function ensureServiceSchema(driver: Driver): Promise<void> {
  for (const ddl of new CypherLibrary(join(ROOT, 'cypher')).file('schema')) await driver.executeQuery(ddl, {}, { database: 'neo4j' });
}

async function rawReference(b: Backends, prefix: string, total = datasets * 5, profileKey = ''): Promise<Record<string, unknown>> {
  disableNagleForDriverSockets(); // as the service's driver has it
  const driver = neo4j.driver(b.neo4jUri, undefined, { disableLosslessIntegers: true });
  await ensureServiceSchema(driver);
  const profiles = profileKey ? jvmProfiles(b, profileKey) : null;
  const cpuBefore = cpuSnapshot(b.pids);
  const started = performance.now();
  const lat: number[] = [];
  try {
    for (let from = 0; from < total; from += 1000) {
      const rows = [];
      for (let n = from; n < Math.min(total, from + 1000); n++) {
        const { i, phase } = job(n);
        const a = aspect(prefix, i, phase, false);
        // A dataset's first write also stores its defaults, as the service does.
        if (phase === 0) for (const d of defaultRows(a.urn)) rows.push(rawRow(a.urn, d.name, d.value));
        rows.push(rawRow(a.urn, a.name, a.value));
      }
      const t = performance.now();
      await driver.executeQuery(RAW_INGEST_STATEMENT, { rows }, { database: 'neo4j' });
      lat.push(performance.now() - t);
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuPerOperation(cpuBefore, cpuSnapshot(b.pids), total);
    profiles?.stop();
    lat.sort((x, y) => x - y);
    await cleanRawOutbox(driver);
    return { operations: total, seconds: Math.round(seconds * 100) / 100, aspectsPerSecond: Math.round(total / seconds), txP50ms: Math.round(percentile(lat, 50)), txP99ms: Math.round(percentile(lat, 99)), ...cpu, load: load() };
  } finally {
    await driver.close();
  }
}

async function cleanRawOutbox(driver: Driver): Promise<void> {
  // CALL … IN TRANSACTIONS needs an auto-commit transaction (session.run), not a managed one.
  const cleanup = driver.session({ database: 'neo4j' });
  await cleanup.run(RAW_OUTBOX_CLEANUP).finally(() => cleanup.close());
}

/**
 * Scenarios h, i and k: a's requests (same rows, 16 clients, one proposal each) through the bare write floor of
 * bench/write-floor.ts, which group-commits them with the raw statement; in i it also indexes them (the service's
 * documents and mapping, no outbox), and the run lasts until every dataset is searchable, as a–c do; k sends c's
 * batches of 100 from 4 clients instead, indexed.
 */
async function writeFloor(b: Backends, prefix: string, indexed: boolean, batches = false, profileKey = ''): Promise<Record<string, unknown>> {
  const index = `${prefix}datasetindex_v2`;
  const driver = neo4j.driver(b.neo4jUri, undefined, { disableLosslessIntegers: true });
  // Without them, a floor run first on a fresh stack MERGEd every outbox entry and target by a label scan (h: 71 aspects/s).
  await ensureServiceSchema(driver);
  const floor = await startWriteFloor(b.neo4jUri, indexed ? { searchUrl: b.searchUrl, name: index } : undefined);
  let probe: LagProbe | null = null;
  try {
    const pids = { floor: floor.child.pid!, ...b.pids };
    // Searched while it is filled, as a's index is: searches keep the engine refreshing the shard every second (an index
    // nobody searches goes search-idle and skips refreshes), and the floor should pay for that as the service does.
    probe = indexed ? new LagProbe(b.searchUrl, index) : null;
    const profiles = jvmProfiles(b, profileKey);
    const cpuBefore = cpuSnapshot(pids);
    const jitBefore = jvmSnapshot(pids, ['neo4j', 'opensearch']);
    const loadBefore = load();
    const loaded = batches
      ? await runLoad(4, Math.ceil((datasets * 5) / 100), async (r) => {
          const items = Array.from({ length: 100 }, (_, k) => r * 100 + k)
            .filter((n) => n < datasets * 5)
            .map((n) => ({ n, ...job(n), a: aspect(prefix, job(n).i, job(n).phase, false) }));
          const res = await http(`${floor.url}/aspects?action=ingestProposalBatch`, { json: { proposals: items.map((x) => proposalOf(x.a)) } });
          if (res.ok) for (const x of items) if (x.n % SAMPLE === 0) probe?.acked(x.a.urn, x.phase);
          return res.ok;
        })
      : await runLoad(16, datasets * 5, async (n) => {
          const { i, phase } = job(n);
          const a = aspect(prefix, i, phase, false);
          const res = await http(`${floor.url}/aspects?action=ingestProposal`, { json: { proposal: proposalOf(a) } });
          if (res.ok && n % SAMPLE === 0) probe?.acked(a.urn, phase);
          return res.ok;
        });
    const result = batches ? { ...loaded, perSecond: Math.round((datasets * 5) / loaded.seconds) } : loaded;
    const loadDuring = load();
    const all = indexed ? await waitAllSearchable(b.searchUrl, index, datasets, FIELD[PHASES[4]], performance.now()) : undefined;
    const cpu = cpuPerOperation(cpuBefore, cpuSnapshot(pids), datasets * 5);
    profiles.stop();
    const lag = await probe?.finish();
    const row = { ...result, ...cpu, ...jitShare(jitBefore, jvmSnapshot(pids, ['neo4j', 'opensearch'])), aspectsPerSecond: result.perSecond, ...(lag ? { lagP50ms: lag.p50, lagP99ms: lag.p99, allSearchableAfterLastAckMs: all } : {}), load: `${loadBefore} -> ${loadDuring}` };
    await cleanRawOutbox(driver);
    return row;
  } finally {
    await probe?.finish();
    await floor.stop();
    await driver.close();
    if (indexed) await fetch(`${b.searchUrl}/${index}`, { method: 'DELETE' }).catch(() => undefined);
  }
}

/** CPU ms of this process's children that have ended (the `datahub` CLI once it exits): cutime + cstime, 10 ms ticks. */
function endedChildrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/**
 * `datahub ingest` of a file of the scenario's MCPs into the datahub-rest sink at `url`, with its default settings; also
 * the CPU the client itself spent per aspect and how long its threads waited for a CPU: the client is one Python
 * process that keeps a core busy on its own (j), and on this 2-core machine it competes with the service and both
 * backends for it (d).
 */
async function datahubIngest(url: string, prefix: string): Promise<RunResult & Record<string, number>> {
  const dir = join(ROOT, '.stack', 'bench-ingest');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `mcps-${prefix}.json`);
  const mcps = Array.from({ length: datasets * 5 }, (_, n) => {
    const { i, phase } = fileJob(n);
    const a = aspect(prefix, i, phase, false);
    return { entityType: 'dataset', entityUrn: a.urn, changeType: 'UPSERT', aspectName: a.name, aspect: { json: a.value } };
  });
  writeFileSync(file, JSON.stringify(mcps));
  const recipe = join(dir, `recipe-${prefix}.yml`);
  writeFileSync(recipe, `source:\n  type: file\n  config:\n    path: ${file}\nsink:\n  type: datahub-rest\n  config:\n    server: ${url}\n`);
  const started = performance.now();
  const clientCpuBefore = endedChildrenCpuMs();
  let child: ChildProcess | undefined;
  const finished = new Promise<{ ok: boolean; output: string }>((resolve) => {
    child = execFile(join(datahubVenv(), 'bin', 'datahub'), ['ingest', '-c', recipe], { env: { ...process.env, DATAHUB_TELEMETRY_ENABLED: 'false', DATAHUB_SKIP_CONFIG: 'true' }, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ ok: !err, output: `${stdout}\n${stderr}` }),
    );
  });
  const client = child?.pid ? runQueueSampler(child.pid) : null;
  const { ok, output } = await finished;
  const scheduling = client?.stop();
  const seconds = (performance.now() - started) / 1000;
  rmSync(file, { force: true });
  rmSync(recipe, { force: true });
  const failures = /failures['"]?:\s*\[\s*\]/.test(output) || !/failures/.test(output) ? 0 : -1;
  if (!ok) console.error(output.slice(-3000));
  // A run that failed reports no rate (it would be the time to fail).
  const clientCpu = Math.round(((endedChildrenCpuMs() - clientCpuBefore) * 1000) / (datasets * 5));
  return { operations: datasets * 5, errors: ok ? Math.max(failures, 0) : datasets * 5, seconds: Math.round(seconds * 100) / 100, perSecond: ok ? Math.round((datasets * 5) / seconds) : 0, p50: 0, p95: 0, p99: 0, max: 0, 'cpu µs/op datahub client': clientCpu, 'datahub client s on a CPU': scheduling?.onCpuSeconds ?? 0, 'datahub client s waiting for a CPU': scheduling?.waitingSeconds ?? 0 };
}

/**
 * Scenario j: d's `datahub ingest` into a server that answers at once and writes nothing (bench/write-floor.ts), with
 * the service's own /config answer. The CLI's CPU shows as `cpu µs/op other`.
 */
async function instantIngest(b: Backends, prefix: string): Promise<Record<string, unknown>> {
  const service = await startServiceProcess(b, { SEARCH_INDEX_PREFIX: prefix });
  const config = await http(`${service.url}/config`).finally(() => service.stop());
  const instant = await startInstantServer(config.text);
  try {
    const cpuBefore = cpuSnapshot(b.pids);
    const loadBefore = load();
    const result = await datahubIngest(instant.url, prefix);
    const cpu = cpuPerOperation(cpuBefore, cpuSnapshot(b.pids), datasets * 5);
    return { ...result, ...cpu, aspectsPerSecond: result.perSecond, proposalsReceived: instant.proposals(), load: `${loadBefore} -> ${load()}` };
  } finally {
    await instant.stop();
  }
}

interface Scenario {
  key: string;
  title: string;
  hot: boolean;
  run(url: string, prefix: string, probe: LagProbe): Promise<RunResult>;
}

const proposalOf = (a: { urn: string; name: string; value: unknown }) => ({
  entityType: 'dataset',
  entityUrn: a.urn,
  changeType: 'UPSERT',
  aspectName: a.name,
  aspect: { value: JSON.stringify(a.value), contentType: 'application/json' },
});

const SAMPLE = 20; // every 20th write is probed for searchability

const single = (hot: boolean) => async (url: string, prefix: string, probe: LagProbe) =>
  runLoad(16, datasets * 5, async (n) => {
    const { i, phase } = job(n);
    const a = aspect(prefix, i, phase, hot);
    const res = await http(`${url}/aspects?action=ingestProposal`, { json: { proposal: proposalOf(a) } });
    if (res.ok && n % SAMPLE === 0) probe.acked(a.urn, phase);
    return res.ok;
  });

/**
 * Warms both JVMs on the work the scenarios do: the raw statement, then single proposals and batches through a service
 * until they are searchable, all on names no scenario uses (indices dropped afterwards). Rounds repeat until the JIT
 * compilers of Neo4j and the engine take at most --warmup-jit % of their CPU (at most --warmup-rounds rounds): a fresh
 * JVM keeps compiling for minutes, and its compiler's CPU would be charged to the first scenarios.
 */
async function warmUp(b: Backends, total: number, stamp: string): Promise<void> {
  const started = performance.now();
  const jvms = ['neo4j', 'opensearch'];
  for (let round = 1; ; round++) {
    const before = jvmSnapshot(b.pids, jvms);
    const roundStarted = performance.now();
    await warmUpRound(b, total, `${stamp}r${round}`);
    const after = jvmSnapshot(b.pids, jvms);
    console.error(`warm-up round ${round}: ${total} aspects raw and through the service in ${Math.round((performance.now() - roundStarted) / 1000)} s; JIT compilers' share of CPU: ${JSON.stringify(jitShare(before, after))}`);
    if (jitSettled(before, after, warmupJitPercent) || round >= warmupRounds) break;
  }
  console.error(`warm-up: ${Math.round((performance.now() - started) / 1000)} s`);
}

async function warmUpRound(b: Backends, total: number, stamp: string): Promise<void> {
  await rawReference(b, `warmraw${stamp}`, total);
  const prefix = `warm${stamp}_`;
  const service = await startServiceProcess(b, { SEARCH_INDEX_PREFIX: prefix });
  try {
    await warmWrites(b, service.url, prefix, prefix, total);
  } finally {
    await service.stop();
    await fetch(`${b.searchUrl}/${prefix}*`, { method: 'DELETE' }).catch(() => undefined);
  }
}

/**
 * `total` aspects through the service at `url` on datasets named by `names`, total / 5 of them phase by phase as in the
 * scenarios, half single proposals and half batches; returns once all are searchable in the index set `indexPrefix`.
 */
async function warmWrites(b: Backends, url: string, indexPrefix: string, names: string, total: number): Promise<void> {
  const perPhase = Math.max(1, Math.floor(total / 5));
  const write = (n: number) => aspect(names, n % perPhase, Math.floor(n / perPhase) % 5, n % 2 === 0);
  const half = Math.floor(total / 2);
  await runLoad(16, half, async (n) => (await http(`${url}/aspects?action=ingestProposal`, { json: { proposal: proposalOf(write(n)) } })).ok);
  await runLoad(4, Math.ceil((total - half) / 100), async (r) => {
    const proposals = Array.from({ length: 100 }, (_, k) => half + r * 100 + k).filter((n) => n < total).map((n) => proposalOf(write(n)));
    return (await http(`${url}/aspects?action=ingestProposalBatch`, { json: { proposals } })).ok;
  });
  await waitAllSearchable(b.searchUrl, `${indexPrefix}datasetindex_v2`, perPhase, FIELD[PHASES[4]], performance.now(), 120_000, datasetUrnPrefix(names));
}

/** What every dataset URN of catalog-data.ts's `urnOf(names, i)` starts with. */
const datasetUrnPrefix = (names: string) => urnOf(names, 0).split(`${names}.`)[0] + `${names}.`;

const FLOOR_TITLES = {
  h: 'h: a through a bare node:http group commit, raw statement, no indexing',
  i: 'i: h, also indexing every write',
  k: "k: c's batches through i's bare server (group commit, raw statement, indexing)",
  j: "j: d's client into a server that answers at once",
};

const SCENARIOS: Scenario[] = [
  { key: 'a', title: 'a: ingestProposal, 16 clients, targets spread', hot: false, run: single(false) },
  { key: 'b', title: 'b: ingestProposal, 16 clients, one tag + 3 owners', hot: true, run: single(true) },
  {
    key: 'c',
    title: 'c: ingestProposalBatch x100, 4 clients',
    hot: false,
    run: async (url, prefix, probe) => {
      const result = await runLoad(4, Math.ceil((datasets * 5) / 100), async (r) => {
        const ns = Array.from({ length: 100 }, (_, k) => r * 100 + k).filter((n) => n < datasets * 5);
        const items = ns.map((n) => ({ n, ...job(n) })).map((x) => ({ ...x, a: aspect(prefix, x.i, x.phase, false) }));
        const res = await http(`${url}/aspects?action=ingestProposalBatch`, { json: { proposals: items.map((x) => proposalOf(x.a)) } });
        if (res.ok) for (const x of items) if (x.n % SAMPLE === 0) probe.acked(x.a.urn, x.phase);
        return res.ok;
      });
      return { ...result, perSecond: Math.round((datasets * 5) / result.seconds) };
    },
  },
  { key: 'd', title: 'd: official client, datahub ingest (file -> datahub-rest, defaults)', hot: false, run: (url, prefix) => datahubIngest(url, prefix) },
];

/** Within-round ratios the targets are set on (issue 37): scenario over its reference. */
const RATIOS: [string, string][] = [['a', 'h'], ['b', 'h'], ['c', 'e'], ['d', 'j'], ['a', 'i'], ['b', 'i'], ['c', 'k']];

const E_TITLE = 'e: raw UNWIND x1000, 1 client';

/** One scenario of a round, its row under `title`. */
async function runScenario(b: Backends, key: string, stamp: string): Promise<Record<string, unknown> | null> {
  if (key === 'e') {
    const jitBefore = jvmSnapshot(b.pids, ['neo4j']);
    const row = await rawReference(b, `raw${stamp}`, datasets * 5, 'e');
    Object.assign(row, jitShare(jitBefore, jvmSnapshot(b.pids, ['neo4j'])));
    return row;
  }
  if (key in FLOOR_TITLES) return key === 'j' ? await instantIngest(b, `bf${stamp}${key}_`) : await writeFloor(b, `bf${stamp}${key}_`, key !== 'h', key === 'k', key);
  const s = SCENARIOS.find((x) => x.key === key);
  if (!s) throw new Error(`unknown scenario ${key}`);
  const prefix = `bi${stamp}${s.key}_`;
  const nodeArgs = [...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', join(profileDir, s.key)] : []), ...(perfDir ? ON_CPU_NODE_ARGS : [])];
  const service = await startServiceProcess(b, { SEARCH_INDEX_PREFIX: prefix }, nodeArgs);
  const index = `${prefix}datasetindex_v2`;
  let onCpu: ReturnType<typeof startOnCpuProfile> | null = null;
  let probe: LagProbe | null = null;
  let profiles: { stop(): void } | null = null;
  try {
    if (serviceWarmup > 0) await warmWrites(b, service.url, prefix, `${prefix}w`, serviceWarmup);
    if (perfDir) onCpu = startOnCpuProfile(service.child.pid!, join(perfDir, s.key));
    probe = new LagProbe(b.searchUrl, index);
    const loadBefore = load();
    const pids = { service: service.child.pid!, ...b.pids };
    profiles = jvmProfiles(b, s.key);
    const cpuBefore = cpuSnapshot(pids);
    const jitBefore = jvmSnapshot(pids, ['neo4j', 'opensearch']);
    const result = await s.run(service.url, prefix, probe);
    const lastAck = performance.now();
    const loadDuring = load();
    const all = await waitAllSearchable(b.searchUrl, index, datasets, FIELD[PHASES[4]], lastAck, undefined, datasetUrnPrefix(prefix));
    // Until everything is searchable: indexing is part of each write's cost.
    const cpu = cpuPerOperation(cpuBefore, cpuSnapshot(pids), datasets * 5);
    const jit = jitShare(jitBefore, jvmSnapshot(pids, ['neo4j', 'opensearch']));
    profiles.stop();
    if (onCpu) console.error(`on-CPU profile of the service in ${s.key} (${join(perfDir, s.key, 'report.txt')}):\n${await onCpu.stop()}`);
    const lag = await probe.finish();
    return {
      ...result,
      ...cpu,
      ...jit,
      aspectsPerSecond: result.perSecond,
      lagP50ms: lag.p50,
      lagP99ms: lag.p99,
      allSearchableAfterLastAckMs: all,
      peakRssMb: service.child.pid ? peakRssMb(service.child.pid) : null,
      serviceWarmupAspects: serviceWarmup,
      load: `${loadBefore} -> ${loadDuring}`,
    };
  } finally {
    await onCpu?.stop();
    profiles?.stop();
    await service.stop();
    await fetch(`${b.searchUrl}/${prefix}*`, { method: 'DELETE' }).catch(() => undefined);
  }
}

function titleOf(key: string): string {
  if (key === 'e') return E_TITLE;
  return (FLOOR_TITLES as Record<string, string>)[key] ?? SCENARIOS.find((x) => x.key === key)?.title ?? key;
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : Math.round(((sorted[mid - 1] + sorted[mid]) / 2) * 100) / 100;
};

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const rows: Record<string, Record<string, unknown>> = {};
  /** Per round, each scenario's aspects/s. */
  const byRound: Record<string, number>[] = [];
  const stamp = Date.now().toString(36);
  try {
    if (warmupAspects > 0) await warmUp(b, warmupAspects, stamp);
    for (let round = 0; round < rounds; round++) {
      // The listed order, reversed every other round: no scenario always meets the machine first or last.
      const order = round % 2 === 0 ? scenarios : [...scenarios].reverse();
      const perSecond: Record<string, number> = {};
      for (const key of order) {
        const row = await runScenario(b, key, rounds > 1 ? `${stamp}n${round}` : stamp);
        if (!row) continue;
        const title = rounds > 1 ? `${titleOf(key)} (round ${round + 1})` : titleOf(key);
        rows[title] = row;
        perSecond[key] = row.aspectsPerSecond as number;
        console.error(JSON.stringify({ [title]: row }));
      }
      const raw = perSecond.e;
      if (raw) for (const key of order) rows[rounds > 1 ? `${titleOf(key)} (round ${round + 1})` : titleOf(key)].overRaw = Math.round((perSecond[key] / raw) * 100) / 100;
      byRound.push(perSecond);
    }
  } finally {
    await b.stop();
  }
  const ratios: Record<string, { perRound: number[]; median: number }> = {};
  for (const [x, y] of RATIOS) {
    const perRound = byRound.filter((r) => r[x] && r[y]).map((r) => Math.round((r[x] / r[y]) * 100) / 100);
    if (perRound.length > 0) ratios[`${x}/${y}`] = { perRound, median: median(perRound) };
  }
  report('ingest', rows, { datasets, aspectsPerDataset: 5, rounds, warmupAspects, warmupJitPercent, cores: require('node:os').cpus().length, ratios });
  if (Object.keys(ratios).length > 0) console.table(Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, { perRound: v.perRound.join(' '), median: v.median }])));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
