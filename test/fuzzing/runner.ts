import { SignJWT } from 'jose';
import type { Driver } from 'neo4j-driver';
import http from 'node:http';
import { TOKEN_ISSUER, TokenSigner } from '../../src/auth/tokens';
import type { OpenApiDocument } from '../../src/http/openapi';
import { percentile, runLoad } from '../../bench/lib';
import { endpointsOf } from './catalog';
import { diffFingerprints, fingerprintAll, purgeRunEntities, removeRunEntities, sampleUrns, seedSample, snapshotSample, waitForOutbox } from './dataset';
import { generateRequest, type FuzzContext, type FuzzRequest, type Tokens } from './generate';
import { checkResponse, type Outcome, type Violation } from './invariants';
import { urnsIn } from './values';

export interface FuzzOptions {
  /** Base URL of the running service. */
  url: string;
  seed: number;
  requests: number;
  concurrency: number;
  /** Per-request limit; no answer by then is a violation. */
  timeoutMs: number;
  /** The service's BODY_LIMIT in bytes (requests go just under and over it). */
  bodyLimitBytes: number;
  /** The service's TOKEN_SECRET, to mint valid tokens of every scope. */
  tokenSecret: string;
  /** Straight to Neo4j, for the data checks. */
  driver: Driver;
  database?: string;
  /** Entities written less than this before the run belong to other clients' work in progress (default 2 min). */
  settleMs?: number;
  /** Why the service process is gone, or null while it runs. */
  processDown?: () => string | null;
  log?: (line: string) => void;
  /** How long the indexer may take after the run to index what it wrote (default 10 min). */
  outboxTimeoutMs?: number;
  /** Violations kept in full (the rest are counted). */
  keepViolations?: number;
}

export interface FuzzReport {
  seed: number;
  requests: number;
  concurrency: number;
  seconds: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  statuses: Record<string, number>;
  /** Every operation of the OpenAPI document (the labels of perEndpoint). */
  endpoints: string[];
  perEndpoint: Record<string, { requests: number; statuses: Record<string, number> }>;
  perCategory: Record<string, { requests: number; statuses: Record<string, number> }>;
  violationCount: number;
  /** Violations grouped by reason (counts). */
  violationReasons: Record<string, number>;
  violations: (Violation & { reproducer: Reproducer })[];
  data: {
    /** How long after the last request the indexer took to index everything the run wrote. */
    outboxDrainSeconds: number;
    sampleIdentical: boolean;
    sampleDiff?: string;
    entitiesBefore: number;
    entitiesAfter: number;
    /** Pre-existing entities checked, and what changed (samples of the lists; counts in full). */
    diff: { checked: number; unexplained: string[]; attributedCount: number; attributed: string[]; externalCount: number; external: string[] };
    runEntities: { removed: number; left: number; leftUrns: string[] };
  };
  serviceAlive: boolean;
}

export interface Reproducer {
  command: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  bodyBytes?: number;
}

export const markerOf = (seed: number) => `fuzz_s${seed}_`;
export const sampleMarkerOf = (seed: number) => `fzkeep_s${seed}_`;

/** Valid tokens of each scope, and every kind of bad one (the first is expired). */
export async function mintTokens(secret: string, marker: string): Promise<Tokens> {
  const signer = new TokenSigner(secret);
  const actor = `urn:li:corpuser:${marker}bot`;
  const issue = async (scopes: ('read' | 'write' | 'admin')[], ttlSeconds = 24 * 3600, now?: number) => (await signer.issue({ actor, scopes, ttlSeconds, now })).token;
  const key = new TextEncoder().encode(secret);
  const now = Math.floor(Date.now() / 1000);
  const jwt = (claims: Record<string, unknown>, alg = 'HS256') => new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(key);
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return {
    read: await issue(['read']),
    write: await issue(['write']),
    admin: await issue(['admin']),
    bad: [
      await issue(['admin'], 60, Date.now() - 2 * 3600_000),
      (await new TokenSigner('another-secret-0123456789abcdef0123456789').issue({ actor, scopes: ['admin'], ttlSeconds: 3600 })).token,
      await jwt({ iss: 'someone-else', sub: actor, jti: 'x1', scope: 'admin', exp: now + 3600 }),
      await jwt({ iss: TOKEN_ISSUER, sub: actor, jti: 'x2', scope: 'admin', exp: now + 3600 }, 'HS512'),
      await jwt({ iss: TOKEN_ISSUER, sub: actor, jti: 'x3', scope: 'admin' }),
      await jwt({ iss: TOKEN_ISSUER, sub: "'; MATCH (n) DETACH DELETE n //", jti: 'x4', scope: 'admin', exp: now + 3600 }),
      await jwt({ iss: TOKEN_ISSUER, sub: actor, jti: 'x5', scope: 'superuser', exp: now + 3600 }),
      await jwt({ iss: TOKEN_ISSUER, sub: actor, jti: 'x6', scope: 'admin', exp: now + 3600, nbf: now + 3600 }),
      await jwt({ iss: TOKEN_ISSUER, sub: actor, scope: 'admin', exp: now + 3600 }),
      await jwt({ iss: TOKEN_ISSUER, sub: actor, jti: 'x7', scope: ['admin'], exp: now + 3600 }),
      await jwt({ iss: TOKEN_ISSUER, sub: actor, jti: 'x8', scope: 'admin', exp: 'tomorrow' }),
      `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: TOKEN_ISSUER, sub: actor, jti: 'x9', scope: 'admin', exp: now + 3600 })}.`,
    ],
  };
}

const agentFor = (concurrency: number) => new http.Agent({ keepAlive: true, maxSockets: concurrency });

/** Sends one request exactly as generated; never throws. */
export function send(baseUrl: string, req: FuzzRequest, timeoutMs: number, agent: http.Agent | false): Promise<Outcome> {
  const u = new URL(baseUrl);
  const started = performance.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (o: Omit<Outcome, 'ms'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...o, ms: performance.now() - started });
    };
    const timer = setTimeout(() => {
      finish({ status: null, headers: {}, body: Buffer.alloc(0), failure: 'timeout' });
      request?.destroy();
    }, timeoutMs);
    let request: http.ClientRequest | undefined;
    try {
      request = http.request(
        {
          host: u.hostname,
          port: u.port,
          method: req.method,
          path: req.path,
          headers: { ...req.headers, ...(req.body ? { 'content-length': String(req.body.length) } : {}) },
          agent,
          insecureHTTPParser: true,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => finish({ status: res.statusCode ?? null, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', (err) => finish({ status: null, headers: {}, body: Buffer.alloc(0), failure: 'network', error: String((err as NodeJS.ErrnoException).code ?? err.message) }));
        },
      );
      request.on('error', (err) => finish({ status: null, headers: {}, body: Buffer.alloc(0), failure: 'network', error: String((err as NodeJS.ErrnoException).code ?? err.message) }));
      request.end(req.body);
    } catch (err) {
      finish({ status: null, headers: {}, body: Buffer.alloc(0), failure: 'network', error: `unsendable: ${(err as Error).message}` });
    }
  });
}

function printable(body: Buffer | undefined, limit = 2000): string | undefined {
  if (!body) return undefined;
  const text = body.toString('utf8');
  const shown = Buffer.from(text, 'utf8').equals(body) ? text : `base64:${body.toString('base64')}`;
  return shown.length > limit ? `${shown.slice(0, limit)}… (${body.length} bytes)` : shown;
}

export function reproducer(seed: number, req: FuzzRequest): Reproducer {
  const entries = Object.entries(req.headers);
  const headers = Object.fromEntries(entries.slice(0, 20).map(([k, v]) => [k, v.length > 300 ? `${v.slice(0, 300)}… (${v.length} chars)` : v]));
  if (entries.length > 20) headers['…'] = `${entries.length - 20} more headers`;
  return {
    command: `npx tsx test/fuzzing/fuzz.ts --seed ${seed} --replay ${req.index}`,
    method: req.method,
    path: req.path.length > 1000 ? `${req.path.slice(0, 1000)}… (${req.path.length} chars)` : req.path,
    headers,
    body: printable(req.body),
    bodyBytes: req.body?.length,
  };
}

/** The context a run generates its requests from (also what `--replay` rebuilds). */
export async function fuzzContext(url: string, seed: number, bodyLimitBytes: number, tokenSecret: string): Promise<FuzzContext> {
  const res = await fetch(`${url}/rpc/openapi.json`);
  if (!res.ok) throw new Error(`GET /rpc/openapi.json answered ${res.status}`);
  const doc = (await res.json()) as OpenApiDocument;
  const marker = markerOf(seed);
  return { seed, marker, sample: sampleUrns(sampleMarkerOf(seed)), endpoints: endpointsOf(doc), tokens: await mintTokens(tokenSecret, marker), bodyLimitBytes };
}

const bump = (h: Record<string, number>, key: string) => (h[key] = (h[key] ?? 0) + 1);

/**
 * A fuzzing run: seeds the sample dataset, sends `requests` generated requests `concurrency` at a time, checks every
 * response, then checks the stored data and removes what the run created.
 */
export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const log = o.log ?? (() => undefined);
  const database = o.database ?? 'neo4j';
  const ctx = await fuzzContext(o.url, o.seed, o.bodyLimitBytes, o.tokenSecret);
  log(`${ctx.endpoints.length} endpoints in the OpenAPI document; marker ${ctx.marker}`);
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${o.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${ctx.tokens.admin}` }, body: JSON.stringify(body) });
    return { status: r.status, text: await r.text() };
  };

  await seedSample(post, ctx.sample);
  await waitForOutbox(o.driver, database, { urns: Object.values(ctx.sample) });
  const sampleBefore = await snapshotSample(o.driver, database, ctx.sample);
  const before = await fingerprintAll(o.driver, database, ctx.marker);
  const runStart = Date.now();

  const statuses: Record<string, number> = {};
  const perEndpoint: FuzzReport['perEndpoint'] = {};
  const perCategory: FuzzReport['perCategory'] = {};
  const violations: FuzzReport['violations'] = [];
  const violationReasons: Record<string, number> = {};
  const attributable = new Set<string>();
  const latencies: number[] = [];
  let violationCount = 0;
  const keep = o.keepViolations ?? 200;
  const violate = (req: FuzzRequest | null, reason: string, out: Outcome | null) => {
    violationCount++;
    bump(violationReasons, reason.replace(/"[^"]*"/g, '"…"').slice(0, 160));
    if (violations.length < keep) {
      violations.push({
        index: req?.index ?? -1,
        endpoint: req?.endpoint ?? '(service)',
        kind: req?.kind ?? 'liveness',
        reason,
        status: out?.status ?? null,
        body: out ? out.body.toString('utf8').slice(0, 500) : '',
        reproducer: req ? reproducer(o.seed, req) : { command: '', method: '', path: '', headers: {} },
      });
    }
  };

  // Liveness: the process, and /health, every 2 s while the run goes on.
  let serviceAlive = true;
  const checkLiveness = async () => {
    const down = o.processDown?.();
    if (down) {
      if (serviceAlive) violate(null, `service process is gone: ${down}`, null);
      serviceAlive = false;
      return;
    }
    try {
      const r = await fetch(`${o.url}/health`, { signal: AbortSignal.timeout(o.timeoutMs) });
      if (r.status !== 200) violate(null, `/health answered ${r.status}: ${(await r.text()).slice(0, 300)}`, null);
    } catch (err) {
      violate(null, `/health did not answer: ${(err as Error).message}`, null);
    }
  };
  const liveness = setInterval(() => void checkLiveness(), 2000);

  const agent = agentFor(o.concurrency);
  let completed = 0;
  const load = await runLoad(o.concurrency, o.requests, async (index) => {
    const req = generateRequest(ctx, index);
    let out = await send(o.url, req, o.timeoutMs, agent);
    // A kept-alive socket the server closed between two requests is the client's problem, not the service's.
    if (out.failure === 'network' && !out.error?.startsWith('unsendable')) out = await send(o.url, req, o.timeoutMs, false);
    latencies.push(out.ms);
    const status = out.status === null ? (out.failure ?? 'none') : String(out.status);
    bump(statuses, status);
    const endpointStats = (perEndpoint[req.endpoint] ??= { requests: 0, statuses: {} });
    endpointStats.requests++;
    bump(endpointStats.statuses, status);
    const categoryStats = (perCategory[req.kind.split(':')[0]] ??= { requests: 0, statuses: {} });
    categoryStats.requests++;
    bump(categoryStats.statuses, status);
    if (out.error?.startsWith('unsendable')) return true;
    if (req.writes && out.status !== null && out.status < 300 && req.body) {
      try {
        for (const u of urnsIn(JSON.parse(req.body.toString('utf8')))) attributable.add(u);
      } catch {
        /* a body the service took although it is not JSON: nothing to attribute */
      }
    }
    for (const problem of checkResponse(req, out)) violate(req, problem, out);
    if (++completed % 5000 === 0) log(`${completed} requests, ${violationCount} violations`);
    return true;
  });
  clearInterval(liveness);
  agent.destroy();
  await checkLiveness();

  // Everything the run wrote must reach the search index (the outbox drains), however long the backlog takes.
  log('waiting for the indexer, then checking stored data');
  const drainStarted = Date.now();
  await waitForOutbox(o.driver, database, { marker: ctx.marker }, o.outboxTimeoutMs ?? 600_000).catch((err) => violate(null, (err as Error).message, null));
  const outboxDrainSeconds = Math.round((Date.now() - drainStarted) / 100) / 10;
  const sampleAfter = await snapshotSample(o.driver, database, ctx.sample);
  const after = await fingerprintAll(o.driver, database, ctx.marker);
  const diff = diffFingerprints(before, after, runStart, o.settleMs ?? 120_000, attributable);
  const sampleIdentical = sampleAfter === sampleBefore;
  if (!sampleIdentical) violate(null, 'the sample dataset changed', null);
  for (const what of diff.unexplained) violate(null, `pre-existing data changed: ${what}`, null);

  log('removing what the run created');
  const runEntities = await removeRunEntities(post, o.driver, database, ctx.marker, attributable);
  // An entity the run made but the API cannot delete (nor, usually, read) is a bug of its own.
  for (const urn of runEntities.leftUrns) violate(null, `the API cannot delete an entity the run created: ${urn}`, null);
  if (runEntities.left > 0) await purgeRunEntities(o.driver, database, ctx.marker);
  await removeRunEntities(post, o.driver, database, sampleMarkerOf(o.seed), Object.values(ctx.sample));

  latencies.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    seed: o.seed,
    requests: o.requests,
    concurrency: o.concurrency,
    seconds: load.seconds,
    perSecond: load.perSecond,
    latencyMs: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), max: round(latencies.at(-1) ?? 0) },
    statuses,
    endpoints: ctx.endpoints.map((e) => e.label),
    perEndpoint,
    perCategory,
    violationCount,
    violationReasons,
    violations,
    data: {
      outboxDrainSeconds,
      sampleIdentical,
      ...(sampleIdentical ? {} : { sampleDiff: firstDifference(sampleBefore, sampleAfter) }),
      entitiesBefore: before.size,
      entitiesAfter: after.size,
      diff: {
        checked: diff.checked,
        unexplained: diff.unexplained,
        attributedCount: diff.attributed.length,
        attributed: diff.attributed.slice(0, 50),
        externalCount: diff.external.length,
        external: diff.external.slice(0, 50),
      },
      runEntities,
    },
    serviceAlive,
  };
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at character ${i}: before ${JSON.stringify(a.slice(Math.max(0, i - 200), i + 300))} after ${JSON.stringify(b.slice(Math.max(0, i - 200), i + 300))}`;
}
