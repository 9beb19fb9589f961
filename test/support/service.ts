import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Scope } from '../../src/auth';
import { TokenSigner } from '../../src/auth/tokens';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startService, type RunningService } from '../../src/service';
import type { EngineName } from '../../src/stores/search/engine';

export interface TestService extends RunningService {
  /** fetch against the service, JSON in and out. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
}

export function engineUrl(engine: EngineName): string {
  const url = engine === 'elasticsearch' ? process.env.TEST_ELASTICSEARCH_URL : process.env.TEST_OPENSEARCH_URL;
  if (!url) throw new Error(`No ${engine} address for tests (TEST_${engine.toUpperCase()}_URL)`);
  return url;
}

/**
 * Starts the service in-process on a free port against the test stack. `url` (and `call`) reach a service listening on
 * a wildcard address (HOST=0.0.0.0 or ::) through loopback. `logger` replaces the one built from LOG_LEVEL.
 */
export async function startTestService(env: Record<string, string> = {}, engine: EngineName = 'opensearch', logger?: Logger): Promise<TestService> {
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    NEO4J_URI: process.env.TEST_NEO4J_URI,
    SEARCH_URL: engineUrl(engine),
    SEARCH_ENGINE: engine,
    TOKEN_SECRET: TEST_TOKEN_SECRET,
    // Tests share one database: the platforms would land in the index of whichever suite started first.
    BOOTSTRAP_DATA_PLATFORMS: 'false',
    BOOTSTRAP_RETENTION_POLICIES: 'false',
    BOOTSTRAP_ROOT_USER: 'false',
    ...env,
  });
  const service = await startService(config, { neo4jUri: config.NEO4J_URI!, searchUrl: config.SEARCH_URL!, searchEngine: engine }, logger ?? createLogger(config.LOG_LEVEL));
  const url = service.url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
  return Object.assign(service, {
    url,
    async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        /* non-JSON body kept as text */
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
  });
}

/** A suffix that keeps each test's URNs apart from every other test's. */
export function uniqueId(prefix = 't'): string {
  return `${prefix}${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

export const enc = encodeURIComponent;

/**
 * Deletes a suite's entities when it ends, a few at a time: one by one, the lineage suite's 1,300 deletes took 90 s of
 * every CI run. Each delete must succeed, as the sequential loops before it did not check.
 */
export async function deleteEntities(call: TestService['call'], urns: Iterable<string>, concurrency = 8): Promise<void> {
  const pending = [...urns];
  const worker = async () => {
    for (let urn = pending.shift(); urn !== undefined; urn = pending.shift()) {
      const res = await call('POST', '/entities?action=delete', { urn });
      if (res.status !== 200) throw new Error(`deleting ${urn} answered ${res.status}: ${JSON.stringify(res.body)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** The token secret of every test service, so tests can mint tokens with mintToken(). */
export const TEST_TOKEN_SECRET = 'test-secret-0123456789abcdef0123456789abcdef';

/** An access token for the test services: actor, scopes (default read,write) and time to live (default 1h). */
export async function mintToken(options: { actor?: string; scopes?: Scope[]; ttlSeconds?: number; now?: number; secret?: string } = {}) {
  const signer = new TokenSigner(options.secret ?? TEST_TOKEN_SECRET);
  return signer.issue({
    actor: options.actor ?? 'urn:li:corpuser:test-bot',
    scopes: options.scopes ?? ['read', 'write'],
    ttlSeconds: options.ttlSeconds ?? 3600,
    now: options.now,
  });
}

/** The Authorization header of a token. */
export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

const ROOT = join(__dirname, '..', '..');

/**
 * The service as a separate process on the test stack, compiled as in production (global setup builds dist/): its own
 * memory, caches and driver.
 */
export async function serviceProcess(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: { ...process.env, BOOTSTRAP_DATA_PLATFORMS: 'false', BOOTSTRAP_RETENTION_POLICIES: 'false', BOOTSTRAP_ROOT_USER: 'false', ...env, PORT: String(port), TOKEN_SECRET: TEST_TOKEN_SECRET },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`service process on ${port} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
