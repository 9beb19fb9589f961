import { setFlagsFromString } from 'node:v8';
import { z } from 'zod';

/** Typed configuration, read from the environment once at start. Every variable is listed in the README. */
const booleanString = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const byteSize = z
  .string()
  .regex(/^\d+(kb|mb|b)?$/i, 'expected a size such as 16mb, 512kb or 1048576')
  .transform((v) => {
    const m = /^(\d+)(kb|mb|b)?$/i.exec(v)!;
    const unit = (m[2] ?? 'b').toLowerCase();
    return Number(m[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
  });

const url = (protocols: string[]) =>
  z.string().refine((v) => {
    try {
      return protocols.includes(new URL(v).protocol.replace(':', ''));
    } catch {
      return false;
    }
  }, `expected a URL with scheme ${protocols.join(' or ')}`);

const port = z.coerce.number().int().min(0).max(65535);

/** A duration such as 90d, 12h, 30m, 45s or 2w, in milliseconds. */
const duration = z
  .string()
  .regex(/^\d+(s|m|h|d|w)$/, 'expected a duration such as 45s, 30m, 12h, 90d or 2w')
  .transform((v) => {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[v.slice(-1) as 's' | 'm' | 'h' | 'd' | 'w'];
    return Number(v.slice(0, -1)) * unit;
  })
  .refine((ms) => ms > 0 && Number.isSafeInteger(ms), 'must be positive');
const positiveInt = z.coerce.number().int().positive();

export const configSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(8080),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  URN_NAMESPACE: z.string().regex(/^[a-z][a-zA-Z0-9]*$/).default('li'),
  BODY_LIMIT: byteSize.default('16mb'),
  READ_CACHE_SIZE: byteSize.default('32mb'),
  READ_CACHE_UNCHECKED: booleanString.default('false'),
  LINEAGE_ANSWER_CACHE_SIZE: byteSize.default('8mb'),
  INDEX_CACHE_SIZE: byteSize.default('32mb'),
  CACHE_PEER_PORT: port.default(0),
  CACHE_PEER_HOST: z.string().optional(),
  CACHE_PEER_TIMEOUT_MS: positiveInt.default(1000),
  NEO4J_URI: url(['bolt', 'neo4j', 'bolt+s', 'neo4j+s', 'bolt+ssc', 'neo4j+ssc']).optional(),
  NEO4J_USER: z.string().default(''),
  NEO4J_PASSWORD: z.string().default(''),
  NEO4J_DATABASE: z.string().min(1).default('neo4j'),
  SEARCH_ENGINE: z.enum(['opensearch', 'elasticsearch']).default('opensearch'),
  SEARCH_URL: url(['http', 'https']).optional(),
  SEARCH_USERNAME: z.string().default(''),
  SEARCH_PASSWORD: z.string().default(''),
  SEARCH_INDEX_PREFIX: z.string().regex(/^[a-z0-9_-]*$/, 'lower-case letters, digits, _ and - only').default(''),
  BACKEND_TIMEOUT_MS: positiveInt.default(5000),
  HEALTH_CHECK_INTERVAL_MS: positiveInt.default(2000),
  /** History versions each aspect keeps where no stored retention policy (dataHubRetentionConfig) applies. */
  RETENTION_MAX_VERSIONS: positiveInt.default(20),
  /** Unset: no age bound. Otherwise history older than this is trimmed when its aspect is next written (src/services/write-path). */
  RETENTION_MAX_AGE: duration.optional(),
  /** How soon retention policies written through other service processes apply to this one's writes. */
  RETENTION_POLICY_REFRESH_MS: positiveInt.default(10_000),
  OUTBOX_BATCH_SIZE: positiveInt.default(500),
  OUTBOX_POLL_MS: positiveInt.default(200),
  OUTBOX_IDLE_POLL_MS: positiveInt.default(2000),
  OUTBOX_WORKERS: positiveInt.max(8).default(2),
  OUTBOX_LINGER_MS: z.coerce.number().int().min(0).max(5000).default(200),
  /** Backpressure: new write groups wait while this many of the process's writes wait to be indexed (0: never). */
  INDEX_BACKLOG_MAX_WRITES: z.coerce.number().int().min(0).default(500),
  HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(300).default(100),
  WRITE_GROUP_WINDOW_MS: z.coerce.number().int().min(0).max(1000).default(2),
  WRITE_GROUP_MAX_WRITES: positiveInt.default(1000),
  WRITE_CONCURRENCY: positiveInt.max(64).default(2),
  WRITE_OVERLAP_MIN_WRITES: positiveInt.default(8),
  WRITE_OVERLAP_WINDOW_MS: z.coerce.number().int().min(0).max(1000).default(10),
  WRITE_QUEUE_MAX_WRITES: positiveInt.default(20000),
  /**
   * The stored states of entities the write path keeps after writing them, to plan their next write before its
   * transaction and send it as one statement (src/services/write-path/known-states.ts; ~1 KB per dataset); 0: none.
   */
  WRITE_CACHE_SIZE: byteSize.default('16mb'),
  LINEAGE_MAX_HOPS: positiveInt.max(100).default(20),
  LINEAGE_FAN_OUT: positiveInt.default(1000),
  LINEAGE_RESULT_CAP: positiveInt.default(10000),
  LINEAGE_DEADLINE_MS: positiveInt.default(10000),
  /** Longest a write asked to answer once searchable (sync index update, GraphQL mutations) waits for the index. */
  SYNC_INDEX_TIMEOUT_MS: positiveInt.default(10000),
  /** Create DataHub's well-known data platforms at start where they have no info yet (src/services/bootstrap). */
  BOOTSTRAP_DATA_PLATFORMS: booleanString.default('true'),
  BOOTSTRAP_RETENTION_POLICIES: booleanString.default('true'),
  /** Create DataHub's root user (urn:li:corpuser:datahub) at start where it has no info yet. */
  BOOTSTRAP_ROOT_USER: booleanString.default('true'),
  /** Unset: required whenever HOST is not a loopback address (src/auth/exposure.ts); `false` there is an explicit opt-out. */
  AUTH_REQUIRED_EVERYWHERE: booleanString.optional(),
  TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  STACK_DIR: z.string().min(1).default('.stack'),
  STACK_NEO4J_PORT: port.optional(),
  STACK_SEARCH_PORT: port.optional(),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment; the error message names every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.keys(configSchema.shape)
      .filter((k) => env[k] !== undefined && env[k] !== '')
      .map((k) => [k, env[k]]),
  );
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}=${JSON.stringify(present[String(i.path[0])])}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const config = parsed.data;
  if (Boolean(config.NEO4J_URI) !== Boolean(config.SEARCH_URL)) {
    throw new ConfigError(
      'Invalid configuration:\n  NEO4J_URI and SEARCH_URL must be set together (or both left unset to use the local stack)',
    );
  }
  return config;
}

/**
 * How far V8 lets the old generation grow past what survived the last full GC before collecting again (0 = V8's own
 * choice, up to 4x). Under batch ingestion 70-85 MB survives each full GC (at 10,000 datasets: the recent-answer memos
 * ~18 MB, code ~11 MB; the search fragment cache, ~24 MB, lives outside the heap) while request bodies and bulk requests
 * die in old space. V8's own factor let the process reach 324 MB at 5,000 datasets (bench/ingest.ts c); 100 % keeps it
 * at 221 MB there, 302-309 MB at 10,000. 70 % kept c at 10,000 datasets at 292-301 MB but cost single proposals (a) 10 % of their
 * throughput (3 pairs), so it is an operator's choice, not the default. Read by V8 at every GC, so it applies when set
 * after start. The launchers also halve V8's young generation (NODE_OPTIONS, README), which V8 sizes only at start.
 */
export function applyHeapGrowth(config: Config): void {
  if (config.HEAP_GROWING_PERCENT > 0) setFlagsFromString(`--heap-growing-percent=${config.HEAP_GROWING_PERCENT}`);
}
