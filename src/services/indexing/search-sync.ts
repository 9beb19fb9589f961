import { AsyncLocalStorage } from 'node:async_hooks';
import { UnavailableError } from '../../model/errors';
import type { SearchEngine } from '../../stores/search/engine';
import type { IndexNames } from '../../stores/search/mappings';

/*
 * Writes that answer only once they are searchable, as DataHub's synchronous index update: a proposal whose headers
 * carry `X-DataHub-Sync-Index-Update: true` (the official emitter's EmitMode.SYNC_WAIT over OpenAPI) or whose system
 * metadata says `appSource: ui`, and every GraphQL mutation (DataHub marks those `ui`). Other writes answer at commit
 * and reach search through the outbox about a second later; the engine is not asked to refresh for them.
 */

const SYNC_HEADER = 'x-datahub-sync-index-update';

/** Whether a proposal asks to be searchable when its write answers. Header names are matched in any case. */
export function asksSearchableOnReturn(proposal: unknown): boolean {
  if (typeof proposal !== 'object' || proposal === null) return false;
  const { headers, systemMetadata } = proposal as { headers?: unknown; systemMetadata?: unknown };
  if (typeof headers === 'object' && headers !== null) {
    for (const [name, value] of Object.entries(headers)) {
      if (name.toLowerCase() === SYNC_HEADER && typeof value === 'string' && value.toLowerCase() === 'true') return true;
    }
  }
  const properties = (systemMetadata as { properties?: unknown } | null | undefined)?.properties;
  return typeof properties === 'object' && properties !== null && (properties as Record<string, unknown>).appSource === 'ui';
}

const searchableScope = new AsyncLocalStorage<true>();

/** Runs `work` so that each write it makes answers only once searchable (a GraphQL mutation's resolvers). */
export function writesSearchableIn<T>(work: () => T): T {
  return searchableScope.run(true, work);
}

/** Whether the current call runs inside `writesSearchableIn`. */
export function searchableRequested(): boolean {
  return searchableScope.getStore() === true;
}

/** What waiting needs of the indexer: whether these URNs' outbox entries were all indexed by the deadline. */
export interface IndexProgress {
  indexedBy(urns: string[], deadline: number): Promise<boolean>;
}

/**
 * Waits until written entities are searchable: their outbox entries indexed, then their entity indices refreshed.
 * Refreshes of one index are shared: callers arriving while one runs share the single refresh that starts after it
 * (which sees their documents), so a burst of synchronous writes costs the engine two refreshes, not one each.
 */
export class SearchSync {
  private readonly refreshing = new Map<string, { running: Promise<void>; queued: Promise<void> | null }>();

  constructor(
    private readonly progress: IndexProgress,
    private readonly engine: SearchEngine,
    private readonly names: IndexNames,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Resolves once every entity written is searchable. The writes are committed already: past the time limit this is a
   * 503 that says so, and a retry of the same values writes no new version and waits again.
   */
  async untilSearchable(written: readonly { urn: string; entityType: string }[]): Promise<void> {
    if (written.length === 0) return;
    const urns = [...new Set(written.map((w) => w.urn))];
    if (!(await this.progress.indexedBy(urns, Date.now() + this.timeoutMs))) {
      throw new UnavailableError(
        `The write is committed, but the search index did not take it within ${this.timeoutMs} ms; it becomes searchable once the index catches up`,
        'search',
        true,
      );
    }
    await Promise.all([...new Set(written.map((w) => this.names.entity(w.entityType)))].map((index) => this.refresh(index)));
  }

  private refresh(index: string): Promise<void> {
    const current = this.refreshing.get(index);
    if (!current) return this.startRefresh(index);
    current.queued ??= current.running.then(
      () => this.startRefresh(index),
      () => this.startRefresh(index),
    );
    return current.queued;
  }

  private startRefresh(index: string): Promise<void> {
    const entry: { running: Promise<void>; queued: Promise<void> | null } = { running: Promise.resolve(), queued: null };
    entry.running = this.engine.refresh(index).finally(() => {
      if (this.refreshing.get(index) === entry) this.refreshing.delete(index);
    });
    this.refreshing.set(index, entry);
    return entry.running;
  }
}
