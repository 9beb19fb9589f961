import { randomUUID } from 'node:crypto';
import { UnavailableError } from '../../model/errors';
import type { Body, MultiSearchRequest, SearchEngine, SearchResult } from './engine';
import type { IndexNames } from './mappings';

/** Marker index: one document per delete that may remove an entity, written before its Neo4j commit. */
export const PENDING_DELETES_DEFINITION: { settings: Body; mappings: Body } = {
  settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '1s' },
  mappings: { dynamic: 'strict', properties: { urn: { type: 'keyword' }, createdAt: { type: 'date', format: 'epoch_millis' } } },
};

type MarkerDoc = { id: string; urn: string; createdAt: number };

const refused = (cause: string) => new UnavailableError(`The search engine did not take the delete's markers (${cause}); nothing was deleted`, 'search');

export interface PendingDeletes {
  /** Marked URNs; `complete` is false when there were more markers than one read returns. */
  urns: Set<string>;
  complete: boolean;
}

/**
 * Pending-delete markers in the engine (an index per index set). A marker names an entity a delete may have removed
 * from Neo4j while the index can still show it; searches read the markers in the same engine request as their hits and
 * check only marked hits against Neo4j. Markers are a hint, never a verdict: a stale one costs a check, not a result.
 */
export class PendingDeleteMarkers {
  private ready = false;

  constructor(
    private readonly engine: SearchEngine,
    private readonly names: IndexNames,
    private readonly readLimit = 1000,
  ) {}

  get index(): string {
    return this.names.pendingDeletes();
  }

  async ensureIndex(): Promise<void> {
    if (this.ready) return;
    if (!(await this.engine.indexExists(this.index))) await this.engine.createIndex(this.index, PENDING_DELETES_DEFINITION);
    this.ready = true;
  }

  /**
   * Writes one marker per URN, visible to every search when this resolves (refreshed); returns their ids. A delete
   * calls this before it commits, so an engine that cannot take the markers refuses the delete before anything changed.
   */
  async mark(urns: string[], now = Date.now()): Promise<string[]> {
    if (urns.length === 0) return [];
    const docs = urns.map((urn) => ({ id: randomUUID(), urn, createdAt: now }));
    await new Promise<void>((resolve, reject) => {
      this.waiting.push({ docs, resolve, reject });
      void this.drain();
    });
    return docs.map((d) => d.id);
  }

  private waiting: { docs: MarkerDoc[]; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private writing = false;

  /**
   * Marks of concurrent deletes share one bulk request: each costs the engine a translog fsync and a refresh (about
   * 30 ms of a delete's latency here), and those arriving while one is written go together in the next.
   */
  private async drain(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0);
        try {
          const failures = await this.write(batch.flatMap((b) => b.docs));
          for (const b of batch) {
            const failure = b.docs.map((d) => failures.get(d.id)).find((f) => f !== undefined);
            if (failure === undefined) b.resolve();
            else b.reject(refused(failure));
          }
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  /** The failed markers' ids with their error types. */
  private async write(docs: MarkerDoc[]): Promise<Map<string, string>> {
    for (let attempt = 1; ; attempt++) {
      let results;
      try {
        await this.ensureIndex();
        results = await this.engine.bulk(
          docs.map(({ id, urn, createdAt }) => ({ op: 'index', index: this.index, id, doc: { urn, createdAt } })),
          true,
        );
      } catch (err) {
        throw refused(err instanceof UnavailableError ? 'unavailable' : 'refused');
      }
      const failed = results.filter((r) => !r.ok);
      if (attempt === 1 && failed.some((r) => r.error === 'index_not_found_exception')) {
        this.ready = false;
        continue;
      }
      return new Map(failed.map((r) => [r.id, r.error ?? String(r.status)]));
    }
  }

  /** Removes markers whose deletes are visible in the index (or never happened). */
  async remove(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.engine.bulk(
      ids.map((id) => ({ op: 'delete', index: this.index, id })),
      true,
    );
  }

  /**
   * The search that reads every marked URN, sent beside a query's own searches. Size 0: the engine's request cache
   * answers it until the marker index refreshes, which a marker write or removal does.
   */
  request(): MultiSearchRequest {
    return {
      index: this.index,
      // A missing marker index must not read as "no markers".
      ignoreUnavailable: false,
      body: { size: 0, track_total_hits: true, aggs: { urns: { terms: { field: 'urn', size: this.readLimit } } } },
    };
  }

  /** The marked URNs of a marker search's answer (null when it failed: nothing is known). */
  read(result: SearchResult | Error): PendingDeletes | null {
    if (result instanceof Error) return null;
    const terms = result.aggregations?.urns as { buckets?: { key: string }[]; sum_other_doc_count?: number } | undefined;
    if (!terms) return null;
    return { urns: new Set((terms.buckets ?? []).map((b) => String(b.key))), complete: (terms.sum_other_doc_count ?? 0) === 0 };
  }

  /** Markers written before `before` (ms), at most `limit`, with their URNs. */
  async olderThan(before: number, limit = 1000): Promise<{ id: string; urn: string }[]> {
    await this.ensureIndex();
    const result = await this.engine.search(this.index, { size: limit, query: { range: { createdAt: { lt: before } } }, _source: ['urn'], sort: [{ createdAt: 'asc' }] });
    return result.hits.map((h) => ({ id: h.id, urn: String(h.source.urn) }));
  }
}
