import { randomUUID } from 'node:crypto';
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

/** Starts the service in-process on a free port against the test stack. */
export async function startTestService(env: Record<string, string> = {}, engine: EngineName = 'opensearch'): Promise<TestService> {
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    NEO4J_URI: process.env.TEST_NEO4J_URI,
    SEARCH_URL: engineUrl(engine),
    SEARCH_ENGINE: engine,
    ...env,
  });
  const service = await startService(config, { neo4jUri: config.NEO4J_URI!, searchUrl: config.SEARCH_URL!, searchEngine: engine }, createLogger(config.LOG_LEVEL));
  return Object.assign(service, {
    async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const response = await fetch(`${service.url}${path}`, {
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
