import type { Logger } from 'pino';
import type { Peer } from '../../stores/graph/process-lease';
import type { ReadCoherence } from '../../stores/graph/read-coherence';
import type { CommittedWrite } from './plan';

/** What the search indexer hears of this process's writes. */
export interface IndexerFeed {
  /**
   * Before a group's transaction: the lease its outbox entries are written with when they are to be handed over to this
   * process's indexer at commit (it then indexes them without claiming them), or 0 to leave them to claims.
   */
  handoffLease(now: number): number;
  /**
   * At commit, before the answer: the changes, for the fragments it keeps of recently written entities, and the
   * entries they left when `handedOver` (written with the lease `handoffLease` gave).
   */
  committed(writes: readonly CommittedWrite[], handedOver: boolean): void;
  /** Wakes it: the committed writes left outbox entries. */
  notify(): void;
  /** Backpressure: whether new write groups wait for it to catch up, and when they may go. */
  holdsWrites?(): boolean;
  whenWritesMayGo?(): Promise<void>;
}

/** In-memory state kept from committed writes (the retention policies): current before a write is answered. */
export interface CommitFollower {
  committed(writes: readonly CommittedWrite[]): Promise<void>;
}

/** What the group stage asks before it starts a group: whether to wait, and until when. */
export interface Backpressure {
  holds(): boolean;
  released(): Promise<void>;
}

/**
 * The publish stage: everything that follows a group's transaction, none of it holding a lock or a transaction.
 * After a commit: the search indexer gets the changes and is woken, read coherence drops this process's cached
 * copies and tells the peer processes the transaction found, and state kept from writes (the retention policies) is
 * brought up to date (the write is not acknowledged before). After a failed
 * commit (which may still have committed): read coherence only, its failures left to the write's own error.
 */
export class Publisher implements Backpressure {
  constructor(
    private readonly targets: { indexer?: IndexerFeed; coherence?: ReadCoherence | null; followers?: readonly CommitFollower[] },
    private readonly logger?: Logger,
  ) {}

  /** Before a group starts: whether the indexer asks new groups to wait until it has caught up (IndexerFeed.holdsWrites). */
  holds(): boolean {
    return this.targets.indexer?.holdsWrites?.() ?? false;
  }

  released(): Promise<void> {
    return this.targets.indexer?.whenWritesMayGo?.() ?? Promise.resolve();
  }

  /** Before a group's transaction: the lease of its outbox entries (IndexerFeed.handoffLease), 0 without an indexer. */
  outboxLease(now: number): number {
    return this.targets.indexer?.handoffLease(now) ?? 0;
  }

  /** `handedOver`: the group's outbox entries were written with the lease `outboxLease` gave. */
  async committed(urns: readonly string[], writes: () => CommittedWrite[], peers: readonly Peer[], handedOver = false): Promise<void> {
    const { indexer, followers = [] } = this.targets;
    let committed: CommittedWrite[] = [];
    try {
      if (indexer || followers.length > 0) committed = writes();
      if (indexer) indexer.committed(committed, handedOver);
    } catch (err) {
      // Committed already: a failure here must not fail (and re-run) the group.
      this.logger?.warn({ err: (err as Error).message }, 'a committed group could not be passed on to the indexer');
    }
    indexer?.notify();
    await Promise.all([this.targets.coherence?.afterCommit(urns, peers, true), ...followers.map((f) => f.committed(committed))]);
  }

  async failed(urns: readonly string[], peers: readonly Peer[]): Promise<void> {
    await this.targets.coherence?.afterCommit(urns, peers, false);
  }
}
