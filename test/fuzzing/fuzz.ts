import neo4j from 'neo4j-driver';
import { readFileSync } from 'node:fs';
import { generateRequest } from './generate';
import { checkResponse } from './invariants';
import { fuzzContext, reproducer, runFuzz, send } from './runner';
import { backends, flag, report, startServiceProcess } from '../../bench/lib';

/**
 * Bad-input fuzzing of every endpoint the service's OpenAPI document lists (plus GraphQL, health, config, docs), with
 * the service in its own process. Every response is checked (no 5xx, no hang, JSON error bodies, no internals), then
 * the stored data: a sample dataset byte for byte, every other entity by fingerprint.
 *   npx tsx test/fuzzing/fuzz.ts [--requests 100000] [--concurrency 8] [--seed N] [--timeout-ms 10000] [--body-limit-kb 1024]
 *   npx tsx test/fuzzing/fuzz.ts --seed N --replay I      rebuilds request I of seed N, sends it and shows the answer
 * BENCH_NEO4J_URI / BENCH_SEARCH_URL: use an existing stack (else a fresh one of its own under .stack/bench).
 */
const requests = flag('requests', 100_000);
const concurrency = flag('concurrency', 8);
const seed = flag('seed', Math.floor(Math.random() * 1_000_000));
const timeoutMs = flag('timeout-ms', 10_000);
const bodyLimitBytes = flag('body-limit-kb', 1024) * 1024;
const replay = flag('replay', -1);
const TOKEN_SECRET = 'fuzz-token-secret-0123456789abcdef0123456789';

/** VmRSS and VmHWM of a process, in MB. */
function memoryOf(pid: number): { rssMb: number; peakMb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return null;
  }
}

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const service = await startServiceProcess(b, { TOKEN_SECRET, BODY_LIMIT: `${bodyLimitBytes}b`, LOG_LEVEL: process.env.FUZZ_LOG_LEVEL ?? 'error' });
  const driver = neo4j.driver(b.neo4jUri, undefined, { disableLosslessIntegers: true });
  try {
    if (replay >= 0) {
      const ctx = await fuzzContext(service.url, seed, bodyLimitBytes, TOKEN_SECRET);
      const req = generateRequest(ctx, replay);
      console.log(JSON.stringify({ kind: req.kind, endpoint: req.endpoint, ...reproducer(seed, req) }, null, 2));
      const out = await send(service.url, req, timeoutMs, false);
      console.log(`→ ${out.status ?? out.failure} in ${Math.round(out.ms)} ms`, out.headers['content-type'] ?? '');
      console.log(out.body.toString('utf8').slice(0, 4000));
      console.log('violations:', checkResponse(req, out));
      return;
    }
    console.log(`fuzzing ${service.url} (pid ${service.child.pid}): seed ${seed}, ${requests} requests, concurrency ${concurrency}, body limit ${bodyLimitBytes} bytes`);
    const fuzz = await runFuzz({
      url: service.url,
      seed,
      requests,
      concurrency,
      timeoutMs,
      bodyLimitBytes,
      tokenSecret: TOKEN_SECRET,
      driver,
      processDown: () => (service.child.exitCode !== null || service.child.signalCode !== null ? `exited (${service.child.exitCode ?? service.child.signalCode})` : null),
      log: (line) => console.log(`[fuzz] ${line}`),
    });
    const memory = service.child.pid ? memoryOf(service.child.pid) : null;
    const rows = Object.fromEntries(
      Object.entries(fuzz.perEndpoint)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([endpoint, s]) => [endpoint, { requests: s.requests, statuses: Object.entries(s.statuses).map(([k, v]) => `${k}:${v}`).join(' ') }]),
    );
    report('fuzz', rows, { seed, requests, concurrency, timeoutMs, bodyLimitBytes, serviceMemory: memory, summary: fuzz });
    console.log('statuses', fuzz.statuses);
    console.table(Object.fromEntries(Object.entries(fuzz.perCategory).map(([k, s]) => [k, { requests: s.requests, statuses: Object.entries(s.statuses).map(([c, n]) => `${c}:${n}`).join(' ') }])));
    console.log('data', JSON.stringify(fuzz.data, null, 1));
    console.log(`service memory at the end: ${JSON.stringify(memory)}; alive: ${fuzz.serviceAlive}`);
    console.log(`${fuzz.requests} requests in ${fuzz.seconds} s (${fuzz.perSecond}/s, p50 ${fuzz.latencyMs.p50} ms, p99 ${fuzz.latencyMs.p99} ms, max ${fuzz.latencyMs.max} ms)`);
    console.log(`${fuzz.violationCount} violations`, fuzz.violationReasons);
    for (const v of fuzz.violations.slice(0, 40)) {
      const r = v.reproducer;
      console.log(`#${v.index} ${v.kind} ${v.endpoint} → ${v.status}: ${v.reason}\n    ${r.method} ${r.path.slice(0, 200)} body ${(r.body ?? '').slice(0, 200)}\n    answer ${v.body.slice(0, 200)}\n    ${r.command}`);
    }
    process.exitCode = fuzz.violationCount === 0 ? 0 : 1;
  } finally {
    await driver.close();
    await service.stop();
    await b.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
