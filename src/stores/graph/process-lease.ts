import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Neo4jExecutor } from './neo4j-executor';

export interface ProcessLeaseOptions {
  /** How often the registration is renewed. */
  renewMs: number;
  /** How long after a renewal began this process may serve cached reads unchecked. */
  leaseMs: number;
  /** Longest a write transaction can run: its time limit, plus Neo4j's 2-s check of those limits. */
  maxWriteMs: number;
  /** How long a revoked process stays unadvertised the first time (doubling on each revocation, up to 10 min). */
  revokedBackoffMs: number;
}

export function processLeaseOptions(backendTimeoutMs: number): ProcessLeaseOptions {
  return { renewMs: 1000, leaseMs: 3000, maxWriteMs: backendTimeoutMs + 3000, revokedBackoffMs: 30_000 };
}

/** Clock rates of hosts differ a little: every wait derived from another process's lease gets this much on top. */
export const MARGIN_MS = 500;
const MAX_BACKOFF_MS = 600_000;

/** Where other processes tell this one about their writes (src/stores/peers). */
export interface PeerEndpoint {
  url: string;
  token: string;
}

/** A process a write transaction found serving, or possibly serving, cached copies unchecked. */
export interface Peer extends PeerEndpoint {
  id: string;
  /** Set for a revoked peer: how long (Neo4j's clock) until the leases it held when revoked have run out. */
  waitMs: number | null;
}

/**
 * Whether this process may serve its cache of latest aspects without asking Neo4j.
 *
 * Every process registers in Neo4j and renews every renewMs (cypher/processes.cypher). One that advertises a peer
 * endpoint holds a lease of leaseMs from the start of each renewal. Every write transaction reads, in its lock statement
 * (cypher/writes.cypher `lock`), the processes whose lease may be running; after committing, and before answering, the
 * writer tells each of them which entities changed (or revokes it, and waits its lease out). A write whose transaction
 * began before a lease started does not know that process: so whenever a lease starts after a lapse, the process bumps
 * its epoch (copies read before are checked again) and trusts nothing it reads until every transaction begun before can
 * have ended.
 */
export class ProcessLease {
  readonly id = randomUUID();
  private leaseUntil = 0;
  private trustFrom = Infinity;
  private epochValue = 0;
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | null = null;
  private stopped = false;
  private endpoint: PeerEndpoint | null = null;
  /** Not advertised until then: a revoked process could not be reached, and would be revoked again. */
  private quietUntil = 0;
  private revocations = 0;
  private lastRevokedAt = -Infinity;
  /** Renewals have been failing since the last warning (one warning per outage, not one per second). */
  private failing = false;

  constructor(
    private readonly neo4j: Neo4jExecutor,
    private readonly options: ProcessLeaseOptions,
    private readonly logger?: Logger,
  ) {}

  /** Where this process hears of others' writes; without one it never reads unchecked, and nobody needs to tell it. */
  advertise(endpoint: PeerEndpoint): void {
    this.endpoint = endpoint;
  }

  /** Registers and keeps renewing. */
  async start(): Promise<void> {
    await this.renew();
    this.schedule();
  }

  /** True while this process may serve cached copies read in the current epoch without asking Neo4j. */
  unchecked(): boolean {
    const now = performance.now();
    return now < this.leaseUntil && now >= this.trustFrom;
  }

  /** Changes whenever a lease begins after a lapse: what was read before may have changed unseen. */
  get epoch(): number {
    return this.epochValue;
  }

  /**
   * A peer that could not be told of a write: ends its lease (at its next renewal) and waits until every lease it took
   * before has run out. Throws when Neo4j cannot record the revocation: the write must not be acknowledged then.
   */
  async revoke(peer: Peer): Promise<void> {
    const [record] = await this.neo4j.query('lease.revoke', 'processes/revoke', { peer: peer.id }, { mode: 'WRITE' });
    if (!record?.get('registered')) return;
    this.logger?.warn({ peer: peer.id, url: peer.url }, 'service process not reachable; its unchecked cached reads are revoked');
    await this.waitOut(Number(record.get('waitMs') ?? 0));
  }

  /** Waits a duration measured on Neo4j's clock, with the margin for clock rates. */
  async waitOut(neo4jMs: number): Promise<void> {
    if (neo4jMs > -MARGIN_MS) await new Promise((resolve) => setTimeout(resolve, neo4jMs + MARGIN_MS));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.leaseUntil = 0;
    await this.renewing?.catch(() => undefined);
    await this.neo4j.query('lease.deregister', 'processes/deregister', { id: this.id }, { mode: 'WRITE' }).catch(() => undefined);
  }

  private renew(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = null));
    return this.renewing;
  }

  private async renewOnce(): Promise<void> {
    const began = performance.now();
    const endpoint = began >= this.quietUntil ? this.endpoint : null;
    const [record] = await this.neo4j.query(
      'lease.renew',
      'processes/renew',
      { id: this.id, leaseMs: this.options.leaseMs + MARGIN_MS, peerUrl: endpoint?.url ?? null, peerToken: endpoint?.token ?? null },
      { mode: 'WRITE' },
    );
    const now = performance.now();
    if (record.get('revoked')) {
      this.leaseUntil = 0;
      if (now - this.lastRevokedAt > MAX_BACKOFF_MS) this.revocations = 0;
      this.revocations++;
      this.lastRevokedAt = now;
      const backoffMs = Math.min(MAX_BACKOFF_MS, this.options.revokedBackoffMs * 2 ** (this.revocations - 1));
      this.quietUntil = now + backoffMs;
      this.logger?.warn({ backoffMs }, 'another service process could not reach this one; cached reads are checked with Neo4j meanwhile');
      return;
    }
    if (!endpoint || this.stopped) {
      this.leaseUntil = 0;
      return;
    }
    // Lapsed at any moment before this answer: a write may have begun without seeing this process.
    if (now >= this.leaseUntil) {
      this.epochValue++;
      this.trustFrom = now + this.options.maxWriteMs + MARGIN_MS;
    }
    this.leaseUntil = began + this.options.leaseMs;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.renew()
        .then(() => (this.failing = false))
        .catch((err) => {
          this.leaseUntil = 0;
          if (!this.failing) this.logger?.warn({ err: (err as Error).message }, 'service process registration not renewed; cached reads are checked with Neo4j');
          this.failing = true;
        })
        .finally(() => this.schedule());
    }, this.options.renewMs);
    this.timer.unref();
  }
}
