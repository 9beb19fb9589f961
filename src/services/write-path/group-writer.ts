import type { Logger } from 'pino';
import type { RevocationCheck } from '../../auth/revocation-check';
import { DomainError, OverloadedError, UnavailableError } from '../../model/errors';
import type { ItemOutcome, WriteItem } from './plan';
import type { Backpressure } from './publish';

/**
 * The stages after grouping (pipeline.ts commitGroup): one transaction for the units, then publishing. Per unit its
 * outcomes or the error of a unit left out; `released` is called once the transaction has committed. `tokens`: per
 * unit, the id of a token the transaction must find unrevoked before writing the unit (null: none).
 */
export type CommitGroup = (units: WriteItem[][], now: number, timeoutMs: number, released: () => void, tokens: (string | null)[]) => Promise<(ItemOutcome[] | unknown)[]>;

export interface GroupWriterOptions {
  /** How long the first write of an idle writer waits for others to join its group. */
  windowMs: number;
  /** Most writes in one transaction (a unit larger than this gets a transaction of its own). */
  maxGroupWrites: number;
  /** Group transactions in flight at once. */
  concurrency: number;
  /**
   * While a group transaction runs, the next one starts only once this many writes wait or the oldest has waited
   * `overlapWindowMs`; until then they wait to form a larger group (each transaction has a fixed cost in Neo4j and the
   * driver). Default 1 and 0: a waiting write starts a transaction at once.
   */
  overlapMinWrites?: number;
  overlapWindowMs?: number;
  /** Most writes waiting; beyond that requests are refused with 429. */
  maxQueuedWrites: number;
  /** No request waits longer than this (BACKEND_TIMEOUT_MS) for its commit. */
  timeoutMs: number;
}

interface Unit {
  items: WriteItem[];
  /** The request's token check, when its transaction is to make it (not yet settled). */
  revocation: RevocationCheck | null;
  urns: Set<string>;
  enqueuedAt: number;
  resolve(outcomes: ItemOutcome[]): void;
  reject(err: unknown): void;
}

/**
 * Group commit: concurrent requests ("units", each a list of writes that commit together) are queued and written in
 * shared transactions. A unit is answered once the transaction holding it has committed. Units touching an entity
 * that a running group also touches wait for it, so writes to one entity commit in arrival order.
 */
export class GroupWriter {
  private queue: Unit[] = [];
  private queuedWrites = 0;
  private running = 0;
  private busy = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  /** Recent throughput (writes/s), for Retry-After. */
  private rate = 1000;
  private closed = false;
  /** Waiting for the backpressure to release (one wait for the whole queue). */
  private held = false;
  /** While held: when the oldest queued unit's time in the queue is up. */
  private expiry: NodeJS.Timeout | null = null;

  constructor(
    private readonly commitGroup: CommitGroup,
    private readonly options: GroupWriterOptions,
    private readonly logger?: Logger,
    /** Asked before each group: the search index being too far behind holds new groups (never while closing). */
    private readonly backpressure?: Backpressure,
  ) {}

  /**
   * Queues one unit; resolves with one outcome per item after its commit. With `revocation` (a request's token check
   * not yet made), the transaction checks the token before writing the unit, and settles the check by committing; a
   * revoked token rejects the unit with the 401 and writes nothing of it.
   */
  submit(items: WriteItem[], revocation?: RevocationCheck): Promise<ItemOutcome[]> {
    if (items.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new OverloadedError('The service is shutting down; retry against another instance', 503, 1));
    if (this.queuedWrites > 0 && this.queuedWrites + items.length > this.options.maxQueuedWrites) {
      return Promise.reject(new OverloadedError(`The service is overloaded: ${this.queuedWrites} writes are queued; retry later`, 429, this.retryAfter()));
    }
    return new Promise<ItemOutcome[]>((resolve, reject) => {
      const check = revocation && !revocation.settled ? revocation : null;
      this.queue.push({ items, revocation: check, urns: new Set(items.map((i) => i.urn)), enqueuedAt: Date.now(), resolve, reject });
      this.queuedWrites += items.length;
      this.pump();
    });
  }

  /** Refuses new writes and waits for queued ones. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.queue.length > 0 || this.running > 0) {
      this.pump(true);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private retryAfter(): number {
    return Math.max(1, Math.ceil(this.queuedWrites / Math.max(this.rate, 1)));
  }

  private pump(now = false): void {
    while (this.running < this.options.concurrency && this.queue.length > 0) {
      if (!now && this.backpressure?.holds()) {
        if (!this.held) {
          this.held = true;
          void this.backpressure.released().then(() => {
            this.held = false;
            if (this.expiry) clearTimeout(this.expiry);
            this.expiry = null;
            this.pump();
          });
        }
        this.expireWhileHeld();
        return;
      }
      const waited = Date.now() - this.queue[0].enqueuedAt;
      // Idle: the first write gets a short window to gather company. Busy: a transaction overlaps the running one only
      // for enough writes, or after a longer wait; when the running one commits, the queue starts as one group.
      const [enough, window] = this.running === 0 ? [this.options.maxGroupWrites, this.options.windowMs] : [this.options.overlapMinWrites ?? 1, this.options.overlapWindowMs ?? 0];
      if (!now && this.queuedWrites < enough && waited < window) {
        if (!this.timer) {
          this.timer = setTimeout(() => {
            this.timer = null;
            this.pump(true);
          }, window - waited);
        }
        return;
      }
      const group = this.take();
      if (group.length === 0) return;
      this.running++;
      for (const u of group) for (const urn of u.urns) this.busy.set(urn, (this.busy.get(urn) ?? 0) + 1);
      // Freed once the group has committed, before its answers wait on peers being told (a peer that is down holds
      // those answers for its lease, not the next groups).
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.running--;
        for (const u of group) {
          for (const urn of u.urns) {
            const n = this.busy.get(urn)! - 1;
            if (n === 0) this.busy.delete(urn);
            else this.busy.set(urn, n);
          }
        }
        this.pump();
      };
      void this.run(group, release).finally(release);
    }
  }

  /**
   * Answers the units that waited half their time in the queue: they could not commit in time any more. Nothing of
   * them was written.
   */
  private rejectExpired(): void {
    const deadline = Date.now() - this.options.timeoutMs / 2;
    // The queue is in arrival order: the first unit is the oldest.
    if (this.queue.length === 0 || this.queue[0].enqueuedAt >= deadline) return;
    const expired = this.queue.filter((u) => u.enqueuedAt < deadline);
    this.queue = this.queue.filter((u) => u.enqueuedAt >= deadline);
    for (const u of expired) {
      this.queuedWrites -= u.items.length;
      u.reject(new OverloadedError('The service is overloaded: the write waited too long for its turn and was not applied; retry later', 503, this.retryAfter()));
    }
  }

  /** While held, units are answered at their deadline, not when the hold ends (an indexer may take a while). */
  private expireWhileHeld(): void {
    if (this.expiry || this.queue.length === 0) return;
    const due = this.queue[0].enqueuedAt + this.options.timeoutMs / 2 - Date.now();
    this.expiry = setTimeout(() => {
      this.expiry = null;
      this.rejectExpired();
      if (this.held) this.expireWhileHeld();
    }, Math.max(0, due) + 1);
    this.expiry.unref();
  }

  /** Takes units in arrival order up to the size cap, skipping (and keeping behind them) those whose entities are busy. */
  private take(): Unit[] {
    this.rejectExpired();
    const group: Unit[] = [];
    const rest: Unit[] = [];
    const blocked = new Set<string>();
    let writes = 0;
    for (const u of this.queue) {
      const full = group.length > 0 && writes + u.items.length > this.options.maxGroupWrites;
      if (full || [...u.urns].some((urn) => this.busy.has(urn) || blocked.has(urn))) {
        for (const urn of u.urns) blocked.add(urn);
        rest.push(u);
        continue;
      }
      group.push(u);
      writes += u.items.length;
    }
    this.queue = rest;
    this.queuedWrites -= writes;
    return group;
  }

  /** `committed` runs once the group's transaction has committed (not for a failed one, whose units retry in its slot). */
  private async run(group: Unit[], committed: () => void): Promise<void> {
    const started = Date.now();
    const writes = group.reduce((n, u) => n + u.items.length, 0);
    try {
      const outcomes = await this.commit(group, committed);
      outcomes.forEach((o, i) => {
        if (o instanceof Error || !Array.isArray(o)) return group[i].reject(o);
        group[i].revocation?.committed();
        group[i].resolve(o);
      });
      const seconds = Math.max((Date.now() - started) / 1000, 0.001);
      this.rate = 0.8 * this.rate + 0.2 * (writes / seconds) * this.options.concurrency;
    } catch (err) {
      if (group.length > 1 && !(err instanceof DomainError)) {
        // Something in the group fails in Neo4j: each unit again on its own, so only the failing one fails.
        this.logger?.warn({ err: (err as Error).message, units: group.length }, 'write group failed; retrying its units one by one');
        for (const u of group) await this.run([u], () => undefined);
        return;
      }
      const answer = this.overloadOr(err);
      for (const u of group) u.reject(answer);
    }
  }

  /** One transaction for the group; per unit its outcomes, or the error of a unit left out. */
  private commit(group: Unit[], committed: () => void): Promise<(ItemOutcome[] | unknown)[]> {
    const now = Date.now();
    // The oldest unit's remaining time bounds the transaction.
    const remaining = Math.max(1000, group[0].enqueuedAt + this.options.timeoutMs - now);
    return this.commitGroup(
      group.map((u) => u.items),
      now,
      remaining,
      committed,
      group.map((u) => u.revocation?.tokenId ?? null),
    );
  }

  /** A transaction that ran out of time while Neo4j answered is overload, not an outage. */
  private overloadOr(err: unknown): unknown {
    if (err instanceof UnavailableError && err.backend === 'neo4j' && err.timedOut) {
      return new OverloadedError('The service is overloaded: the write did not commit in time and was not applied; retry later', 503, this.retryAfter());
    }
    return err;
  }
}
