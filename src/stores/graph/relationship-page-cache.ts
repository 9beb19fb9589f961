import { LRUCache } from 'lru-cache';

/** One page of an entity's edges as the relationship statements return it: rows are `type|urn`. */
export interface CachedRelationshipPage {
  total: number;
  rows: readonly string[];
}

interface Entry extends CachedRelationshipPage {
  bytes: number;
  /** The lease epoch the page was read in (ProcessLease): only a page of the current epoch is served. */
  epoch: number;
}

/**
 * Relationship pages read while this process's lease allowed unchecked reads, served without asking Neo4j. A page
 * depends on edges that writes to other entities change (a dataset's ownership changes its owner's incoming page), so
 * every write, through this process or a peer, drops them all, and a read that any write's invalidation overtook
 * leaves nothing behind. That suits a catalog read far more often than written; under steady writes pages are
 * simply read from Neo4j again.
 */
export class RelationshipPageCache {
  private readonly entries: LRUCache<string, Entry>;
  /** Bumped by every invalidation; a read remembers the value current when it began. */
  private generation = 0;

  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, Entry>({ maxSize: Math.max(1, maxBytes), sizeCalculation: (entry) => entry.bytes });
  }

  static key(direction: string, urn: string, types: readonly string[], start: number, count: number): string {
    return `${direction}\n${start}\n${count}\n${[...types].sort().join(',')}\n${urn}`;
  }

  /** The page read in `epoch`, if any. */
  get(key: string, epoch: number): CachedRelationshipPage | undefined {
    const entry = this.entries.get(key);
    return entry && entry.epoch === epoch ? entry : undefined;
  }

  /** Marks the start of a read from Neo4j; pass the ticket to `set`. */
  beginRead(): number {
    return this.generation;
  }

  /** Keeps a page read in `epoch`, unless a write's invalidation came after the read with this ticket began. */
  set(key: string, page: CachedRelationshipPage, epoch: number, ticket: number): void {
    if (ticket !== this.generation) return;
    let bytes = 96;
    for (const row of page.rows) bytes += row.length * 2 + 32;
    this.entries.set(key, { total: page.total, rows: page.rows, bytes, epoch });
  }

  /** Drops every page: called when a write has finished (or failed), here or in a peer. */
  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
