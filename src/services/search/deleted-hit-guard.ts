import type { DeletedHitsStore } from '../../stores/graph/deleted-hits-store';
import type { SearchHit } from '../../stores/search/engine';
import { DELETE_GRACE_MS } from '../indexing/indexer';

export interface DeletedHitGuardOptions {
  /** Must not exceed the indexers' grace (DELETE_GRACE_MS): a slower snapshot is not trusted. */
  graceMs?: number;
  /** Outbox entries one snapshot looks at; with more waiting, hits are checked one by one instead. */
  scanLimit?: number;
}

/**
 * Keeps hard-deleted entities out of search results without a Neo4j round trip after the engine answers.
 *
 * A hard delete leaves its entity without aspects and writes an outbox entry in the same transaction. The indexer
 * removes the entry only DELETE_GRACE_MS after the engine delete was applied and refreshed. So a snapshot of "outbox
 * entries whose entity has no aspects", read after the request started, names every deleted entity the engine may still
 * return, provided it answered within the grace of the request's start: if an entry was gone by then, the engine delete
 * was visible grace ms earlier, i.e. before the engine query was sent. A slow or truncated snapshot falls back to
 * checking the hits themselves after the engine answered.
 *
 * Each snapshot is a Neo4j transaction: under search load bench/search.ts measured about a millisecond of Neo4j CPU per
 * snapshot, as much as the service's own work for one search. A request alone reads its snapshot at once, beside the
 * engine query.
 * Requests that start while others are under way join one shared snapshot instead, read when the first of them has its
 * engine answer: it starts after every one of them started, so it serves them all.
 */
export class DeletedHitGuard {
  private readonly graceMs: number;
  private readonly scanLimit: number;
  /** Requests between the start of their engine query and their filtered hits. */
  private inFlight = 0;
  /** The shared snapshot requests are joining, not read yet. */
  private joining: PendingSnapshot | null = null;

  constructor(
    private readonly store: DeletedHitsStore,
    options: DeletedHitGuardOptions = {},
  ) {
    this.graceMs = Math.min(options.graceMs ?? DELETE_GRACE_MS, DELETE_GRACE_MS);
    this.scanLimit = options.scanLimit ?? 1000;
  }

  /** Runs the engine query and returns its result with the hits of deleted entities dropped. */
  async run<R>(query: () => Promise<R>, hitsOf: (result: R) => SearchHit[]): Promise<{ result: R; hits: SearchHit[] }> {
    const started = performance.now();
    const snapshot = this.inFlight === 0 ? this.readNow() : this.join();
    this.inFlight++;
    try {
      const result = await query();
      const hits = hitsOf(result);
      if (hits.length === 0) return { result, hits };
      snapshot.read();
      const { deleted, complete, answeredAt } = await snapshot.answer;
      if (complete && answeredAt - started <= this.graceMs) return { result, hits: deleted.size === 0 ? hits : hits.filter((h) => !deleted.has(h.id)) };
      const existing = await this.store.existing(hits.map((h) => h.id));
      return { result, hits: hits.filter((h) => existing.has(h.id)) };
    } finally {
      this.inFlight--;
    }
  }

  private readNow(): PendingSnapshot {
    const answer = this.deletions();
    return { answer, read: noop };
  }

  /** The shared snapshot; it is read when a member first needs it, and later requests then start the next one. */
  private join(): PendingSnapshot {
    if (this.joining) return this.joining;
    let start!: () => void;
    const begun = new Promise<void>((resolve) => (start = resolve));
    const snapshot: PendingSnapshot = {
      answer: begun.then(() => this.deletions()),
      read: () => {
        if (this.joining === snapshot) this.joining = null;
        start();
      },
    };
    // Members whose engine query fails never wait for it.
    snapshot.answer.catch(noop);
    this.joining = snapshot;
    return snapshot;
  }

  private deletions(): Promise<Snapshot> {
    const answer = this.store.deletions(this.scanLimit).then((s) => ({ ...s, answeredAt: performance.now() }));
    answer.catch(noop);
    return answer;
  }
}

type Snapshot = { deleted: Set<string>; complete: boolean; answeredAt: number };
type PendingSnapshot = { answer: Promise<Snapshot>; read: () => void };

const noop = () => undefined;
