import { LRUCache } from 'lru-cache';
import type { StoredAspect } from './aspect-store';

/** A copy of an entity's latest aspects, current while the entity's rev is `rev`. */
export interface CachedLatest {
  rev: number;
  aspects: readonly StoredAspect[];
  /** Length of the stored JSON the aspects were parsed from: what the cache's bound counts. */
  bytes: number;
}

/**
 * Latest aspects of recently read entities, bounded by the size of their stored JSON. An entry is only ever served after
 * Neo4j confirmed, in the same round trip that would otherwise carry the aspects, that the entity's rev is unchanged:
 * every write bumps the rev in its own transaction, so writes through any service process invalidate on commit.
 */
export class LatestAspectCache {
  private readonly entries: LRUCache<string, CachedLatest>;

  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, CachedLatest>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (entry) => entry.bytes + 64,
    });
  }

  static key(urn: string, names: readonly string[] | null): string {
    return names ? `${urn}\n${[...names].sort().join(',')}` : urn;
  }

  get(key: string): CachedLatest | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: CachedLatest): void {
    this.entries.set(key, entry);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
