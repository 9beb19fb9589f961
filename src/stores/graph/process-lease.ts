import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Neo4jStore } from './neo4j';

export interface ProcessLeaseOptions {
  /** How often the registration is renewed. */
  renewMs: number;
  /** How long after a renewal began that saw no other live process this one may serve cached reads unchecked. */
  soleMs: number;
  /** A write transaction starts only if its process renewed within this long (Neo4j's clock). */
  freshMs: number;
  /** Longest a write transaction can run after its fence: its time limit, plus Neo4j's 2-s check of those limits. */
  maxWriteMs: number;
}

export function processLeaseOptions(backendTimeoutMs: number): ProcessLeaseOptions {
  return { renewMs: 1000, soleMs: 3000, freshMs: 5000, maxWriteMs: backendTimeoutMs + 3000 };
}

/** Clock rates of hosts differ a little: every wait derived from another process's lease gets this much on top. */
const MARGIN_MS = 500;

/** A write transaction's fence found its process not (or no longer) allowed to write; it was rolled back. */
export class FencedWriteError extends Error {
  constructor() {
    super('this service process is not registered as a live writer');
  }
}

/**
 * Whether this process is the only service process using the database, so that its cache of latest aspects can be
 * served without asking Neo4j: it is then the only writer, and it invalidates its cache on its own commits.
 *
 * Every process registers in Neo4j and renews every renewMs (cypher/processes.cypher); renewals are serialized by a
 * lock. A renewal that saw no other live process grants a sole lease of soleMs from the moment it began. A process
 * that starts (or comes back after going silent) while others are live may write only soleMs later: leases they took
 * before they could see it have run out by then. Every write transaction first checks, inside the transaction, that
 * its process renewed within freshMs and may write (`fence`), so what it commits, it commits while others still count
 * it as live (aliveMs = freshMs + maxWriteMs): a paused process that wakes up cannot commit behind a sole lease.
 */
export class ProcessLease {
  readonly id = randomUUID();
  private soleUntil = 0;
  private epochValue = 0;
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<number> | null = null;
  private stopped = false;
  /** Renewals have been failing since the last warning (one warning per outage, not one per second). */
  private failing = false;

  constructor(
    private readonly neo4j: Neo4jStore,
    private readonly options: ProcessLeaseOptions,
    private readonly logger?: Logger,
  ) {}

  get aliveMs(): number {
    return this.options.freshMs + this.options.maxWriteMs + MARGIN_MS;
  }

  /** Registers, waits until this process may write, and keeps renewing. */
  async start(): Promise<void> {
    await this.untilWritable();
    this.schedule();
  }

  /** True while this process holds a sole lease: no other process can commit a write. */
  sole(): boolean {
    return performance.now() < this.soleUntil;
  }

  /** Changes whenever a sole lease begins after a time without one: what was read before may have changed since. */
  get epoch(): number {
    return this.epochValue;
  }

  /** Parameters of the fence statement. */
  fence(): { id: string; freshMs: number } {
    return { id: this.id, freshMs: this.options.freshMs };
  }

  /** Renews now and waits until this process may write (at start, and after a failed fence). */
  async untilWritable(): Promise<void> {
    const waitMs = await this.renew();
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.soleUntil = 0;
    await this.renewing?.catch(() => undefined);
    await this.neo4j.query('lease.deregister', 'processes/deregister', { id: this.id }, { mode: 'WRITE' }).catch(() => undefined);
  }

  /** One renewal at a time; returns how long this process must still wait before writing. */
  private renew(): Promise<number> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = null));
    return this.renewing;
  }

  private async renewOnce(): Promise<number> {
    const began = performance.now();
    const waitMs = this.options.soleMs + MARGIN_MS;
    const [record] = await this.neo4j.query('lease.renew', 'processes/renew', { id: this.id, aliveMs: this.aliveMs, waitMs }, { mode: 'WRITE' });
    const others = Number(record.get('others'));
    if (others === 0 && !this.stopped) {
      // A lease that lapsed before this renewal began: another process may have written in the gap.
      if (began >= this.soleUntil) this.epochValue++;
      this.soleUntil = began + this.options.soleMs;
    } else {
      this.soleUntil = 0;
    }
    return Math.max(0, Number(record.get('waitMs') ?? 0));
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.renew()
        .then(() => (this.failing = false))
        .catch((err) => {
          this.soleUntil = 0;
          if (!this.failing) this.logger?.warn({ err: (err as Error).message }, 'service process registration not renewed; cached reads are checked with Neo4j');
          this.failing = true;
        })
        .finally(() => this.schedule());
    }, this.options.renewMs);
    this.timer.unref();
  }
}
