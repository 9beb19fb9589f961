import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import neo4j, { isRetryableError, Transaction, type Driver, type ManagedTransaction, type Record as Neo4jRecord } from 'neo4j-driver';
import type { Logger } from 'pino';
import { UnavailableError } from '../../model/errors';
import { CypherLibrary } from './cypher';
import type { StatementName } from './statements.generated';

export interface Neo4jOptions {
  uri: string;
  user: string;
  password: string;
  database: string;
  timeoutMs: number;
  cypherDir: string;
}

// Neo4j answered, but the transaction ran out of time (its limit, or terminated while waiting for a lock).
const TIMEOUT_CODES = new Set([
  'Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration',
  'Neo.ClientError.Transaction.LockClientStopped',
  'Neo.ClientError.Transaction.Terminated',
]);
const UNAVAILABLE_CODES = new Set(['ServiceUnavailable', 'SessionExpired', 'Neo.ClientError.Cluster.NotALeader']);

/** Translates driver failures that mean "Neo4j is not reachable" into a domain error; anything else is a bug. */
export function translateNeo4jError(err: unknown): unknown {
  const e = err as { code?: string; message?: string; name?: string };
  if (TIMEOUT_CODES.has(e.code ?? '') || (e.code?.startsWith('Neo.TransientError.Transaction.') ?? false)) {
    // Lock waits and deadlocks that outlasted the retries: contention, not an outage.
    return new UnavailableError('Neo4j did not finish the transaction in time', 'neo4j', true);
  }
  if (
    (e.code && UNAVAILABLE_CODES.has(e.code)) ||
    (e.code && e.code.startsWith('Neo.TransientError.')) ||
    /acquisition timed out|Connection acquisition|connect ECONNREFUSED|Failed to connect|Pool is closed/i.test(e.message ?? '')
  ) {
    return new UnavailableError('Neo4j is unavailable', 'neo4j');
  }
  return err;
}

/**
 * neo4j-driver writes messages in 1,400-byte chunks, one socket write each: a large message (a write group's parameters)
 * would cost one syscall and packet per chunk. Its sockets (the ones that call setKeepAlive(true) right after
 * connecting) get writes made in one tick coalesced into one writev. They also get TCP_NODELAY: driver 5 left Nagle's
 * algorithm on, and the second chunk of any larger message then waited ~40 ms for the server's delayed ACK (driver 6
 * sets it itself).
 */
export function disableNagleForDriverSockets(): void {
  const proto = Socket.prototype as Socket & { __driverSocketPatched?: boolean };
  if (proto.__driverSocketPatched) return;
  const setKeepAlive = proto.setKeepAlive;
  proto.setKeepAlive = function (this: Socket, ...args: Parameters<Socket['setKeepAlive']>) {
    if (args[0] === true && !(this as { __coalesced?: boolean }).__coalesced) {
      (this as { __coalesced?: boolean }).__coalesced = true;
      this.setNoDelay(true);
      const write = this.write;
      let corked = false;
      this.write = function (this: Socket, ...w: unknown[]) {
        if (!corked) {
          corked = true;
          this.cork();
          process.nextTick(() => {
            corked = false;
            this.uncork();
          });
        }
        return (write as (...a: unknown[]) => boolean).apply(this, w);
      } as Socket['write'];
    }
    return setKeepAlive.apply(this, args);
  };
  proto.__driverSocketPatched = true;
}

/**
 * A commit builds a driver Result, whose constructor captures the caller's stack for its errors as tx.run does (below):
 * in a `--cpu-prof` of single-proposal ingestion that capture and its formatting were 260 ms of the service's 14.8 s,
 * once per write transaction. A failed commit still carries Neo4j's code and message.
 */
export function commitWithoutStackCapture(): void {
  const proto = Transaction.prototype as Transaction & { __commitPatched?: boolean };
  if (proto.__commitPatched) return;
  const commit = proto.commit;
  proto.commit = function (this: Transaction) {
    return withStackTracesOff(() => commit.call(this));
  };
  proto.__commitPatched = true;
}

interface MapUnpacker {
  unpack(buffer: unknown, hydrateStructure: unknown): unknown;
  _unpackMapWithSize(size: number, buffer: unknown, hydrateStructure: unknown): Record<string, unknown>;
  __mapsPatched?: boolean;
}

/**
 * The driver decodes every map it receives (a row's aspects, a lock's per-aspect state) with one `Object.defineProperty`
 * per key, to keep a key named `__proto__` from replacing the object's prototype: ~230 ns more per key than a plain
 * store (300,000 maps of 7 keys: 585 ms against 183), and restoring 20,000 datasets decodes ~840,000 keys. Keys are
 * stored plainly here and `__proto__` alone is still defined. The driver's own packstream module (resolved from where
 * `neo4j-driver` is, so it is the copy the driver loads); a driver whose internals differ is left as it is.
 */
export function decodeMapsByAssignment(): void {
  let unpacker: MapUnpacker | undefined;
  try {
    const driverRequire = createRequire(require.resolve('neo4j-driver'));
    unpacker = (driverRequire('neo4j-driver-bolt-connection/lib/packstream/packstream-v1.js') as { Unpacker?: { prototype: MapUnpacker } }).Unpacker?.prototype;
  } catch {
    return;
  }
  if (!unpacker || unpacker.__mapsPatched || typeof unpacker._unpackMapWithSize !== 'function' || typeof unpacker.unpack !== 'function') return;
  unpacker._unpackMapWithSize = function (this: MapUnpacker, size, buffer, hydrateStructure) {
    const value: Record<string, unknown> = {};
    for (let i = 0; i < size; i++) {
      const key = this.unpack(buffer, hydrateStructure) as string;
      const unpacked = this.unpack(buffer, hydrateStructure);
      if (key === '__proto__') Object.defineProperty(value, key, { value: unpacked, writable: true, enumerable: true, configurable: true });
      else value[key] = unpacked;
    }
    return value;
  };
  unpacker.__mapsPatched = true;
}

/**
 * tx.run captures the caller's stack eagerly for its errors, and formatting it through source maps (tsx) cost several
 * per cent of the service's CPU on the write path. A failed statement still carries Neo4j's code and message.
 */
function withoutStackCapture(tx: ManagedTransaction): ManagedTransaction {
  return { run: (...args: Parameters<ManagedTransaction['run']>) => withStackTracesOff(() => tx.run(...args)) } as ManagedTransaction;
}

/** Runs `attempt` again after a transient error, twice at most, as the driver retries a transaction function. */
async function retriedOnTransientError<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= 3 || !isRetryableError(err)) throw err;
    }
  }
}

/** Runs a driver call that builds a Result with no stack captured, then turns stack traces back on. */
function withStackTracesOff<T>(call: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return call();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** A statement found a node gone that it had matched, because another transaction deleted it meanwhile. */
function isConcurrentDelete(err: unknown): boolean {
  return (err as { code?: string }).code === 'Neo.ClientError.Statement.EntityNotFound';
}

/**
 * Runs the sessions, transactions and statements of every graph store: the only code that talks to the driver. Always
 * names the database, runs transaction functions (retried by the driver on transient errors, so callbacks must be
 * idempotent) and tags each transaction with the caller's name.
 */
export class Neo4jExecutor {
  readonly driver: Driver;
  readonly cypher: CypherLibrary;

  constructor(
    private readonly options: Neo4jOptions,
    private readonly logger: Logger,
  ) {
    const auth = options.user ? neo4j.auth.basic(options.user, options.password) : undefined;
    disableNagleForDriverSockets();
    commitWithoutStackCapture();
    decodeMapsByAssignment();
    this.driver = neo4j.driver(options.uri, auth, {
      connectionTimeout: options.timeoutMs,
      connectionAcquisitionTimeout: options.timeoutMs,
      maxTransactionRetryTime: options.timeoutMs,
      maxConnectionPoolSize: 100,
      disableLosslessIntegers: true,
      logging: { level: 'warn', logger: (level, message) => this.logger[level === 'error' ? 'error' : 'warn']({ neo4j: true }, message) },
    });
    this.cypher = new CypherLibrary(options.cypherDir);
  }

  get database(): string {
    return this.options.database;
  }

  /**
   * A read transaction whose BEGIN goes out with its first statement and whose answer does not wait for its COMMIT: a
   * read commits nothing, and executeRead made each of them a round trip of its own besides the statements (a lineage
   * walk of three hops: five exchanges with the server for three statements). Retried as a whole on a transient error,
   * as a transaction function is. `timeoutMs` overrides the transaction time limit (a caller's deadline); its expiry is
   * then `onTimeout`'s error.
   */
  async read<T>(caller: string, work: (tx: ManagedTransaction) => Promise<T>, deadline?: { timeoutMs: number; onTimeout: () => Error }): Promise<T> {
    return this.session('READ', caller, work, deadline);
  }

  /**
   * Runs `work`'s reads each as an auto-commit statement: one exchange with the server per statement, where a read
   * transaction adds BEGIN and COMMIT (each a socket write and, for COMMIT, a round trip more: a read transaction of one
   * statement cost Neo4j ~450 µs of CPU and the service ~650, one auto-commit statement ~290 and ~320, bench/tx-cost.ts).
   * Only for work whose statements need nothing a transaction keeps (element ids hold within one); Neo4j's read
   * committed transactions would not give them one snapshot either. Retried as a whole on a transient error, as a
   * transaction function is.
   */
  async readEachStatement<T>(caller: string, work: (tx: ManagedTransaction) => Promise<T>, deadline?: { timeoutMs: number; onTimeout: () => Error }): Promise<T> {
    return this.session('AUTO_COMMIT_READS', caller, work, deadline);
  }

  /**
   * A write transaction. One that raced with a concurrent hard delete of a node it had already matched (Neo4j's
   * EntityNotFound) runs again: it then serializes after the delete.
   */
  async write<T>(caller: string, work: (tx: ManagedTransaction) => Promise<T>, timeoutMs?: number): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.session('WRITE', caller, work, timeoutMs === undefined ? undefined : { timeoutMs });
      } catch (err) {
        if (attempt >= 5 || !isConcurrentDelete(err)) throw err;
      }
    }
  }

  /** Runs `work` in a write transaction that is always rolled back (warming Neo4j's plan cache without writing). */
  async rehearse(caller: string, work: (tx: ManagedTransaction) => Promise<unknown>): Promise<void> {
    const session = this.driver.session({ database: this.options.database, defaultAccessMode: neo4j.session.WRITE });
    const tx = session.beginTransaction({ metadata: { app: 'graph-metadata-service', caller } });
    try {
      await work(withoutStackCapture(tx as unknown as ManagedTransaction));
    } catch (err) {
      throw translateNeo4jError(err);
    } finally {
      await tx.rollback().catch(() => undefined);
      await session.close().catch(() => undefined);
    }
  }

  /**
   * Runs one named statement as an auto-commit transaction and returns the records: one round trip, where a
   * transaction function adds BEGIN and COMMIT, each its own socket write (the service's largest cost per read in its
   * profile). READ mode goes to a follower in a cluster, as executeRead would; WRITE to the leader, which has every
   * commit. The driver retries only transaction functions, so transient errors are retried here.
   */
  async query(
    caller: string,
    statement: StatementName,
    params: Record<string, unknown> = {},
    options: { mode?: 'READ' | 'WRITE'; timeoutMs?: number } = {},
  ): Promise<Neo4jRecord[]> {
    return this.queryText(caller, this.cypher.get(statement), params, options);
  }

  /** `query` for a statement built from a template of the library (relationship types filled in). */
  async queryText(
    caller: string,
    text: string,
    params: Record<string, unknown> = {},
    options: { mode?: 'READ' | 'WRITE'; timeoutMs?: number } = {},
  ): Promise<Neo4jRecord[]> {
    const config = { timeout: options.timeoutMs ?? this.options.timeoutMs * 6, metadata: { app: 'graph-metadata-service', caller } };
    const accessMode = options.mode === 'WRITE' ? neo4j.session.WRITE : neo4j.session.READ;
    try {
      return await retriedOnTransientError(async () => {
        const session = this.driver.session({ database: this.options.database, defaultAccessMode: accessMode });
        try {
          // session.run captures the caller's stack eagerly for its errors; with source maps on (tsx) formatting it was
          // ~10% of the service's CPU under read load. A failed read still carries Neo4j's code and message.
          return (await withStackTracesOff(() => session.run(text, params, config))).records;
        } finally {
          await session.close().catch(() => undefined);
        }
      });
    } catch (err) {
      throw translateNeo4jError(err);
    }
  }

  private async session<T>(
    mode: 'READ' | 'WRITE' | 'AUTO_COMMIT_READS',
    caller: string,
    work: (tx: ManagedTransaction) => Promise<T>,
    deadline?: { timeoutMs: number; onTimeout?: () => Error },
  ): Promise<T> {
    const session = this.driver.session({ database: this.options.database, defaultAccessMode: mode === 'WRITE' ? neo4j.session.WRITE : neo4j.session.READ });
    const config = { timeout: deadline?.timeoutMs ?? this.options.timeoutMs * 6, metadata: { app: 'graph-metadata-service', caller } };
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    /** A read's COMMIT, sent once its work has its answer; the session closes when it is answered. */
    let committing: Promise<void> | null = null;
    try {
      const quiet = (tx: ManagedTransaction) => work(withoutStackCapture(tx));
      const autoCommit = () => ({ run: (text: string, params?: Record<string, unknown>) => session.run(text, params, config) }) as ManagedTransaction;
      const pipelinedRead = async () => {
        // Used before it is awaited, the transaction writes BEGIN and the first statement without waiting in between.
        const tx = session.beginTransaction(config);
        try {
          const answer = await quiet(tx as unknown as ManagedTransaction);
          committing = tx.commit();
          return answer;
        } catch (err) {
          await tx.rollback().catch(() => undefined);
          throw err;
        }
      };
      const run = mode === 'READ' ? retriedOnTransientError(pipelinedRead) : mode === 'WRITE' ? session.executeWrite(quiet, config) : retriedOnTransientError(() => quiet(autoCommit()));
      // A write has no client-side timer: giving up on a transaction that may still commit would misreport it.
      if (!deadline?.onTimeout) return await run;
      const onTimeout = deadline.onTimeout;
      // Neo4j checks transaction time limits only every few seconds; the client-side timer keeps the deadline exact.
      const expired = new Promise<never>((_, reject) => (timer = setTimeout(() => ((timedOut = true), reject(onTimeout())), deadline.timeoutMs)));
      run.catch(() => undefined);
      return await Promise.race([run, expired]);
    } catch (err) {
      if (deadline?.onTimeout && (err as { code?: string }).code === 'Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration') throw deadline.onTimeout();
      throw translateNeo4jError(err);
    } finally {
      clearTimeout(timer);
      // After a deadline the answer must not wait for the abandoned query; closing the session ends it server-side.
      if (timedOut) void session.close().catch(() => undefined);
      else if (committing) void (committing as Promise<void>).catch(() => undefined).finally(() => session.close().catch(() => undefined));
      else await session.close().catch(() => undefined);
    }
  }

  /**
   * Creates constraints and indexes; idempotent (IF NOT EXISTS), and safe when several processes start at once on a new
   * database: `IF NOT EXISTS` does not cover a rule another process creates meanwhile (Neo4j then refuses it as already
   * existing), and concurrent schema changes can fail transiently; either way the statement runs again.
   */
  async ensureSchema(): Promise<void> {
    const session = this.driver.session({ database: this.options.database });
    try {
      for (const statement of this.cypher.file('schema')) {
        for (let attempt = 1; ; attempt++) {
          try {
            await session.run(statement);
            break;
          } catch (err) {
            const code = (err as { code?: string }).code ?? '';
            const raced = code === 'Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists' || isRetryableError(err) || code.startsWith('Neo.TransientError.');
            if (!raced || attempt >= 5) throw err;
            await new Promise((r) => setTimeout(r, 100 * attempt));
          }
        }
      }
      await session.run('CALL db.awaitIndexes(60)');
    } catch (err) {
      throw translateNeo4jError(err);
    } finally {
      await session.close().catch(() => undefined);
    }
  }

  async ping(timeoutMs: number): Promise<void> {
    const session = this.driver.session({ database: this.options.database, defaultAccessMode: neo4j.session.READ });
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    try {
      await Promise.race([
        session.run(this.cypher.get('health/ping')),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new UnavailableError('Neo4j did not answer in time', 'neo4j')), timeoutMs))),
      ]);
    } catch (err) {
      throw translateNeo4jError(err);
    } finally {
      clearTimeout(timer);
      session.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.driver.close();
  }
}
