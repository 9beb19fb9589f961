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
 * entries whose entity has no aspects", read in parallel with the engine query, names every deleted entity the engine
 * may still return, provided it answered within the grace of the request's start: if an entry was gone by then, the
 * engine delete was visible grace ms earlier, i.e. before the engine query was sent. A slow or truncated snapshot falls
 * back to checking the hits themselves after the engine answered.
 */
export class DeletedHitGuard {
  private readonly graceMs: number;
  private readonly scanLimit: number;
  /** The snapshot read under way, and the one that starts when it is answered (shared by the requests waiting for it). */
  private current: Promise<Snapshot> | null = null;
  private queued: Promise<Snapshot> | null = null;

  constructor(
    private readonly store: DeletedHitsStore,
    options: DeletedHitGuardOptions = {},
  ) {
    this.graceMs = Math.min(options.graceMs ?? DELETE_GRACE_MS, DELETE_GRACE_MS);
    this.scanLimit = options.scanLimit ?? 1000;
  }

  /** Call before sending the engine request; the returned filter drops the hits of deleted entities. */
  begin(): (hits: SearchHit[]) => Promise<SearchHit[]> {
    const started = performance.now();
    const snapshot = this.snapshot().then((s) => ({ ...s, elapsedMs: performance.now() - started }));
    // The engine may fail first; the snapshot's own failure then has nobody to report to.
    snapshot.catch(() => undefined);
    return async (hits) => {
      if (hits.length === 0) return hits;
      const { deleted, complete, elapsedMs } = await snapshot;
      if (complete && elapsedMs <= this.graceMs) return deleted.size === 0 ? hits : hits.filter((h) => !deleted.has(h.id));
      const existing = await this.store.existing(hits.map((h) => h.id));
      return hits.filter((h) => existing.has(h.id));
    };
  }

  /**
   * A snapshot read that starts now or later. One already under way may have been read before this request started
   * (and miss a delete committed since), so the request waits for the next; concurrent requests share that one, which
   * keeps Neo4j reads at one in flight per process however many searches run.
   */
  private snapshot(): Promise<Snapshot> {
    if (!this.current) return this.read();
    this.queued ??= this.current
      .then(noop, noop)
      .then(() => {
        this.queued = null;
        return this.read();
      });
    return this.queued;
  }

  private read(): Promise<Snapshot> {
    const read = this.store.deletions(this.scanLimit);
    this.current = read;
    const settled = () => {
      if (this.current === read) this.current = null;
    };
    read.then(settled, settled);
    return read;
  }
}

type Snapshot = { deleted: Set<string>; complete: boolean };

const noop = () => undefined;
