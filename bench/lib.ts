import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startServers, stopServers, type ServerName } from '../stack';

/** Shared plumbing of the benchmarks: a stack of their own, the service in a child process, load loops, percentiles. */

export const ROOT = join(__dirname, '..');

let venvPath: string | undefined;
/** The official client's virtualenv, the tests' own (test/python/setup-venv.sh installs it once, then names it); DATAHUB_VENV overrides. */
export function datahubVenv(): string {
  return (venvPath ??= process.env.DATAHUB_VENV ?? execFileSync('bash', [join(ROOT, 'test', 'python', 'setup-venv.sh')], { encoding: 'utf8' }).trim().split('\n').pop()!);
}

export interface Backends {
  neo4jUri: string;
  searchUrl: string;
  /** Process ids of the servers this benchmark started (none for BENCH_NEO4J_URI / BENCH_SEARCH_URL). */
  pids: Record<string, number>;
  stop(): Promise<void>;
}

/**
 * BENCH_NEO4J_URI / BENCH_SEARCH_URL (with BENCH_PIDS=neo4j:123,opensearch:456 to have their CPU reported apart), else a
 * fresh stack of the benchmark's own under .stack/bench.
 */
export async function backends(servers: ServerName[] = ['neo4j', 'opensearch']): Promise<Backends> {
  if (process.env.BENCH_NEO4J_URI && process.env.BENCH_SEARCH_URL) {
    const pids = Object.fromEntries((process.env.BENCH_PIDS ?? '').split(',').filter(Boolean).map((p) => p.split(':')).map(([name, pid]) => [name, Number(pid)]));
    return { neo4jUri: process.env.BENCH_NEO4J_URI, searchUrl: process.env.BENCH_SEARCH_URL, pids, stop: async () => undefined };
  }
  const root = join(ROOT, '.stack', 'bench');
  const started = await startServers({ root, servers, persistent: false, log: (l) => console.error(`[stack] ${l}`) });
  return {
    neo4jUri: started.neo4j.url,
    searchUrl: started.opensearch?.url ?? started.elasticsearch?.url,
    pids: Object.fromEntries(Object.entries(started).map(([name, info]) => [name, info.pid])),
    stop: () => stopServers(servers, root),
  };
}

const keepAlive = new Agent({ connections: 256, keepAliveTimeout: 60_000 });

/**
 * An HTTP call with undici's request API; the body is read whole. In a loopback test on this machine fetch() spent about
 * 110 µs more CPU per request (client and server together 157-193 µs against 49-66), CPU the service and its backends
 * would lose on two shared cores while the raw references use their native clients.
 */
export async function http(url: string, init: { method?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; ok: boolean; text: string }> {
  const body = init.json !== undefined ? JSON.stringify(init.json) : init.body;
  const headers = { ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers };
  const res = await request(url, { method: (init.method ?? (body === undefined ? 'GET' : 'POST')) as 'GET', body, headers, dispatcher: keepAlive });
  const text = await res.body.text();
  return { status: res.statusCode, ok: res.statusCode >= 200 && res.statusCode < 300, text };
}

/**
 * CPU time used so far (ms): by this process, by each named process, by the whole machine (busy, steal included), and
 * the time the hypervisor gave this machine's CPUs to others (steal) out of all CPU time (`all`, idle included).
 */
export function cpuSnapshot(pids: Record<string, number> = {}): { self: number; processes: Record<string, number>; machine: number; steal: number; all: number } {
  const fs = require('node:fs') as typeof import('node:fs');
  const tick = 10; // USER_HZ = 100 on Linux
  const usage = process.cpuUsage();
  const processes: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      processes[name] = (Number(fields[11]) + Number(fields[12])) * tick;
    } catch {
      processes[name] = 0; // exited
    }
  }
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const busy = cpu.reduce((a, b) => a + b, 0) - cpu[3] - cpu[4];
  return { self: (usage.user + usage.system) / 1000, processes, machine: busy * tick, steal: (cpu[7] ?? 0) * tick, all: cpu.reduce((a, b) => a + b, 0) * tick };
}

let built = false;

/** Runs the service as a separate process, compiled as the Docker image and `npm run serve` run it; waits for /health. */
export async function startServiceProcess(
  b: Backends,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = 18000 + Math.floor(Math.random() * 2000);
  // BENCH_SERVICE_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, profiles the service (NODE_OPTIONS refuses --cpu-prof).
  nodeArgs = [...nodeArgs, ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  // BENCH_SERVICE_MAIN runs a build made beforehand, for an A/B of two builds: another commit's dist/main.js in a
  // worktree of its own (the service reads schema/ and cypher/ beside its dist/). Without it the working tree is built
  // once per bench process, so a build copied into dist/ is overwritten, not compared.
  const main = process.env.BENCH_SERVICE_MAIN ?? join(ROOT, 'dist', 'main.js');
  if (!built && !process.env.BENCH_SERVICE_MAIN) {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    built = true;
  }
  const child = spawn(process.execPath, [...nodeArgs, main], {
    cwd: ROOT,
    // NODE_ENV, MALLOC_ARENA_MAX and NODE_OPTIONS as the Docker image and the npm scripts run the service (a set value is
    // kept, to compare).
    env: { NODE_ENV: 'production', MALLOC_ARENA_MAX: '2', NODE_OPTIONS: '--max-semi-space-size=8', ...process.env, PORT: String(port), NEO4J_URI: b.neo4jUri, SEARCH_URL: b.searchUrl, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface RunResult {
  operations: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** `concurrency` workers pull jobs 0..total-1; each job's latency is recorded in ms. */
export async function runLoad(concurrency: number, total: number, job: (i: number) => Promise<boolean | void>): Promise<RunResult> {
  const run = await timedLoad(concurrency, total, job);
  return summarize(run.latencies, run.errors, run.seconds);
}

async function timedLoad(concurrency: number, total: number, job: (i: number) => Promise<boolean | void>): Promise<{ latencies: number[]; errors: number; seconds: number }> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        if (!(await succeeds(job, i))) errors++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, errors, seconds: (performance.now() - started) / 1000 };
}

/**
 * One client alternating between two jobs, the first of each pair swapping every time (a(0), b(0), b(1), a(1), a(2), …):
 * each request's data is warm for whichever side runs it second, so a fixed order favoured the second side (a 1-client
 * search p50 moved by 8 ms with the order).
 */
export async function runAlternating(total: number, a: (i: number) => Promise<boolean | void>, b: (i: number) => Promise<boolean | void>): Promise<[RunResult, RunResult]> {
  const sides = [a, b].map((job) => ({ job, latencies: [] as number[], errors: 0 }));
  for (let i = 0; i < total; i++) {
    for (const side of i % 2 === 0 ? sides : [sides[1], sides[0]]) {
      const t = performance.now();
      if (!(await succeeds(side.job, i))) side.errors++;
      side.latencies.push(performance.now() - t);
    }
  }
  const [x, y] = sides.map((side) => summarize(side.latencies, side.errors, side.latencies.reduce((sum, l) => sum + l, 0) / 1000));
  return [x, y];
}

/**
 * Throughput of two jobs at `concurrency` clients, in two rounds of `total` requests each, a b then b a, so that each side
 * runs once on the same requests the other has just warmed and once before it. Latencies, time and CPU of both rounds are
 * pooled per side.
 */
async function runPairedLoad(
  concurrency: number,
  total: number,
  pids: Record<string, number>,
  a: (i: number) => Promise<boolean | void>,
  b: (i: number) => Promise<boolean | void>,
): Promise<[RunResult, RunResult]> {
  const sides = [a, b].map((job) => ({ job, latencies: [] as number[], errors: 0, seconds: 0, cpu: [] as Record<string, number>[] }));
  for (const order of [sides, [sides[1], sides[0]]]) {
    for (const side of order) {
      const before = cpuSnapshot(pids);
      const run = await timedLoad(concurrency, total, side.job);
      side.cpu.push(cpuPerOperation(before, cpuSnapshot(pids), total));
      side.latencies.push(...run.latencies);
      side.errors += run.errors;
      side.seconds += run.seconds;
    }
  }
  const [x, y] = sides.map((side) => {
    const cpu = Object.fromEntries(Object.keys(side.cpu[0]).map((key) => [key, Math.round((side.cpu[0][key] + side.cpu[1][key]) / 2)]));
    return Object.assign(summarize(side.latencies, side.errors, side.seconds), cpu);
  });
  return [x, y];
}

async function succeeds(job: (i: number) => Promise<boolean | void>, i: number): Promise<boolean> {
  try {
    return (await job(i)) !== false;
  } catch {
    return false;
  }
}

function summarize(latencies: number[], errors: number, seconds: number): RunResult {
  latencies.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    operations: latencies.length,
    errors,
    seconds: round(seconds),
    perSecond: Math.round(latencies.length / seconds),
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies[latencies.length - 1] ?? 0),
  };
}

/** CPU µs per operation between two snapshots: the client (this process), each named process, the rest of the machine. */
export function cpuPerOperation(before: ReturnType<typeof cpuSnapshot>, after: ReturnType<typeof cpuSnapshot>, operations: number): Record<string, number> {
  const per = (ms: number) => Math.round((ms * 1000) / operations);
  const cpu: Record<string, number> = { 'cpu µs/op client': per(after.self - before.self) };
  let named = after.self - before.self;
  for (const name of Object.keys(after.processes)) {
    const used = after.processes[name] - before.processes[name];
    named += used;
    cpu[`cpu µs/op ${name}`] = per(used);
  }
  cpu['cpu µs/op other'] = per(after.machine - before.machine - named);
  // CPU a noisy neighbour took: the same build's CPU per operation moves with it.
  const all = after.all - before.all;
  if (all > 0) cpu['steal %'] = Math.round((1000 * (after.steal - before.steal)) / all) / 10;
  return cpu;
}

/** CPU time (ms) used so far by each thread of a JVM that is a JIT compiler ("C1 CompilerThre", "C2 CompilerThre"), by thread id. */
export function jitThreads(pid: number): Map<string, number> {
  const fs = require('node:fs') as typeof import('node:fs');
  const threads = new Map<string, number>();
  let tids: string[] = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads; // exited
  }
  for (const tid of tids) {
    try {
      if (!/^C[12] CompilerThre/.test(fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8'))) continue;
      const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      threads.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      /* the thread ended: HotSpot starts and stops compiler threads as its queue grows and shrinks */
    }
  }
  return threads;
}

/**
 * The share (%) of each JVM's CPU that its JIT compilers took between two snapshots. Compiler threads that ended in
 * between are missed, so it is a lower bound. A JVM still compiling is not in the steady state a long-running
 * deployment is in: during the first minutes of a fresh stack, C2 took a third of Neo4j's and over half of the engine's CPU.
 */
export function jitShare(
  before: { cpu: ReturnType<typeof cpuSnapshot>; jit: Record<string, Map<string, number>> },
  after: { cpu: ReturnType<typeof cpuSnapshot>; jit: Record<string, Map<string, number>> },
): Record<string, number> {
  const share: Record<string, number> = {};
  for (const [name, threads] of Object.entries(after.jit)) {
    let jit = 0;
    for (const [tid, ms] of threads) jit += ms - (before.jit[name]?.get(tid) ?? 0);
    const total = after.cpu.processes[name] - before.cpu.processes[name];
    share[`jit % ${name}`] = total > 0 ? Math.round((100 * jit) / total) : 0;
  }
  return share;
}

/**
 * Whether every JVM that did a real part of the work between the snapshots (at least 10 % of the machine's CPU) spent at
 * most `percent` % of its CPU compiling. A JVM that barely worked (Neo4j during a search benchmark) is left out: a few
 * compilations are then most of its CPU, and would hold the warm-up forever.
 */
export function jitSettled(
  before: { cpu: ReturnType<typeof cpuSnapshot>; jit: Record<string, Map<string, number>> },
  after: { cpu: ReturnType<typeof cpuSnapshot>; jit: Record<string, Map<string, number>> },
  percent: number,
): boolean {
  const share = jitShare(before, after);
  const machine = after.cpu.machine - before.cpu.machine;
  return Object.keys(after.jit).every((name) => after.cpu.processes[name] - before.cpu.processes[name] < 0.1 * machine || share[`jit % ${name}`] <= percent);
}

/** CPU of the named processes, with the JIT compiler threads of the JVMs among them (for jitShare). */
export function jvmSnapshot(pids: Record<string, number>, jvms: string[]): { cpu: ReturnType<typeof cpuSnapshot>; jit: Record<string, Map<string, number>> } {
  return { cpu: cpuSnapshot(pids), jit: Object.fromEntries(jvms.filter((n) => pids[n]).map((n) => [n, jitThreads(pids[n])])) };
}

/** One operation through the service and the same work sent straight to the raw backend. */
export interface ComparedOperation {
  service: (n: number) => Promise<boolean>;
  raw: (n: number) => Promise<void>;
}

/**
 * Per operation: warms both sides, then p50 at 1 client (alternating service and raw requests) and throughput at
 * `concurrency` clients (two rounds, in both orders), service beside raw.
 * Adds a row per run to `rows` (raw rows named with `rawLabel`) and returns the summary with the ratios.
 */
export async function compareWithRaw(
  operations: Record<string, ComparedOperation>,
  rows: Record<string, RunResult | Record<string, unknown>>,
  options: { concurrency: number; requests: number; warmup: number; rawLabel: string; pids?: Record<string, number> },
): Promise<Record<string, Record<string, number>>> {
  const { concurrency, requests, warmup, rawLabel } = options;
  const summary: Record<string, Record<string, number>> = {};
  const ratio = (x: number, y: number) => Math.round((x / y) * 100) / 100;
  const pids = options.pids ?? {};
  const jvms = ['neo4j', 'opensearch', 'elasticsearch'];
  for (const [name, op] of Object.entries(operations)) {
    // Plans, JIT and connection pools warm on both sides before anything is measured: rounds of `warmup` requests per
    // side until the JVMs' JIT compilers take at most 15 % of their CPU (jitSettled; at most 30 rounds).
    for (let round = 1; ; round++) {
      const before = jvmSnapshot(pids, jvms);
      await runLoad(concurrency, warmup, op.service);
      await runLoad(concurrency, warmup, op.raw);
      const after = jvmSnapshot(pids, jvms);
      const share = jitShare(before, after);
      if (jitSettled(before, after, 15) || round >= 30) {
        console.error(`${name}: warm after ${round} round(s) of ${warmup} requests per side; JIT compilers' share of CPU in the last: ${JSON.stringify(share)}`);
        break;
      }
    }
    const measuring = jvmSnapshot(pids, jvms);
    const [oneService, oneRaw] = await runAlternating(Math.ceil(requests / 4), op.service, op.raw);
    const one = { service: oneService, raw: oneRaw };
    const [manyService, manyRaw] = await runPairedLoad(concurrency, requests, pids, op.service, op.raw);
    const jit = jitShare(measuring, jvmSnapshot(pids, jvms));
    const many = { service: manyService, raw: manyRaw };
    const errors = one.service.errors + many.service.errors + one.raw.errors + many.raw.errors;
    if (errors > 0) throw new Error(`${name}: ${errors} requests failed`);
    for (const [label, r] of [['1 client', one], [`${concurrency} clients`, many]] as const) {
      rows[`service ${name}, ${label}`] = { ...r.service };
      rows[`${rawLabel} ${name} (raw), ${label}`] = { ...r.raw };
    }
    summary[name] = {
      'p50 ms @1 service': one.service.p50,
      'p50 ms @1 raw': one.raw.p50,
      'p50 service/raw': ratio(one.service.p50, one.raw.p50),
      [`req/s @${concurrency} service`]: many.service.perSecond,
      [`req/s @${concurrency} raw`]: many.raw.perSecond,
      'req/s service/raw': ratio(many.service.perSecond, many.raw.perSecond),
      ...Object.fromEntries(Object.entries(jit).map(([key, pct]) => [`${key} while measured`, pct])),
    };
  }
  console.table(summary);
  return summary;
}

export function report(name: string, rows: Record<string, RunResult | Record<string, unknown>>, extra: Record<string, unknown> = {}): void {
  console.table(rows);
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().slice(0, 10)}-${name}.json`);
  writeFileSync(file, JSON.stringify({ name, date: new Date().toISOString(), machine: { cores: require('node:os').cpus().length }, ...extra, results: rows }, null, 2) + '\n');
  console.log(`results written to ${file}`);
}

/** The resident set (VmRSS) and its peak (VmHWM) of a process, in MB (MiB); null once it is gone. */
export function memoryOf(pid: number): { rssMb: number; hwmMb: number } | null {
  try {
    const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8') as string;
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rssMb: Math.round(kb('VmRSS') / 1024), hwmMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return null;
  }
}

/** The peak resident set (VmHWM) of a process, in MB. */
export function peakRssMb(pid: number): number | null {
  try {
    const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8') as string;
    return Math.round(Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return null;
  }
}

export function stringFlag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

export function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/**
 * Seconds the threads of a process spent on a CPU and waiting for one (runnable but not running), summed over its
 * threads, from /proc/<pid>/task/<tid>/schedstat every 100 ms until stop(): what a process that should keep a core
 * busy lost to the others on the machine. A thread that ends between two samples counts up to the last one.
 */
export function runQueueSampler(pid: number): { stop(): { onCpuSeconds: number; waitingSeconds: number } } {
  const fs = require('node:fs') as typeof import('node:fs');
  const threads = new Map<string, [number, number]>();
  const sample = () => {
    try {
      for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
        const [run, wait] = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
        threads.set(tid, [run, wait]);
      }
    } catch {
      /* the process or a thread ended */
    }
  };
  const timer = setInterval(sample, 100);
  sample();
  return {
    stop() {
      clearInterval(timer);
      let run = 0;
      let wait = 0;
      for (const [r, w] of threads.values()) {
        run += r;
        wait += w;
      }
      return { onCpuSeconds: Math.round(run / 1e7) / 100, waitingSeconds: Math.round(wait / 1e7) / 100 };
    },
  };
}

/** The lineage query of the SDK's LineageClient, as the tests send it too. */
export { SDK_LINEAGE_QUERY } from '../test/support/sdk-queries';
