import { LRUCache } from 'lru-cache';
import type { AspectFragment } from './document';

/** What a committed write did to one entity's latest aspects, with the revisions its lock saw and left. */
export interface EntityChange {
  urn: string;
  /** The entity's revision before the write (null: it had none, or did not exist). */
  previousRev: number | null;
  rev: number;
  /** The entity node was created by this write: it had no aspects before. */
  created: boolean;
  /** Every aspect was deleted before the ones in `set` were written. */
  wipedAll: boolean;
  removed: string[];
  /**
   * New latest values, built only when the entity's copy follows from this write (a cold cache costs the writer nothing);
   * null: the writer could not build it, and the entity's copy is dropped.
   */
  set: [name: string, fragment: () => AspectFragment | null][];
}

interface Entry {
  rev: number;
  /** Per aspect its fragment as JSON: a third of the memory of the objects (the cache holds thousands of entities). */
  fragments: Map<string, string>;
  bytes: number;
}

const pack = (f: AspectFragment): string => JSON.stringify(f.paths ? [f.values, f.paths] : [f.values]);
const unpack = (json: string): AspectFragment => {
  const [values, paths] = JSON.parse(json) as [unknown[][], string[] | undefined];
  return paths ? { values, paths } : { values };
};

/**
 * The search fragments of recently written (or indexed) entities, each exact for one revision. A write that this
 * process commits carries an entity's copy from the revision its lock found to the one it left, so the indexer builds
 * the document of an outbox entry with that revision without reading the entity back from Neo4j. Every write, through
 * any process, bumps the revision under the entity's lock, so a copy of another revision is never used.
 */
export class FragmentCache {
  private readonly entries: LRUCache<string, Entry>;

  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, Entry>({ maxSize: Math.max(1, maxBytes), sizeCalculation: (e) => e.bytes });
  }

  /** The entity's fragments at exactly this revision. */
  get(urn: string, rev: number): ReadonlyMap<string, AspectFragment> | undefined {
    const entry = this.entries.get(urn);
    if (!entry || entry.rev !== rev) return undefined;
    return new Map([...entry.fragments].map(([name, json]) => [name, unpack(json)]));
  }

  /** Fragments of every latest aspect of the entity at `rev` (read from Neo4j); an older copy is replaced, a newer one kept. */
  put(urn: string, rev: number, fragments: Map<string, AspectFragment>): void {
    const entry = this.entries.peek(urn);
    if (entry && entry.rev >= rev) return;
    this.store(urn, rev, new Map([...fragments].map(([name, f]) => [name, pack(f)])));
  }

  /** Applies committed writes: a copy at the revision a write found moves to the one it left; any other copy goes. */
  apply(changes: readonly EntityChange[]): void {
    for (const c of changes) {
      const entry = this.entries.peek(c.urn);
      if (entry && entry.rev >= c.rev) continue;
      const base = c.created || c.wipedAll ? new Map<string, string>() : entry && entry.rev === c.previousRev ? new Map(entry.fragments) : null;
      const written = base ? c.set.map(([name, build]) => [name, build()] as const) : [];
      if (!base || written.some(([, f]) => f === null)) {
        if (entry) this.entries.delete(c.urn);
        continue;
      }
      for (const name of c.removed) base.delete(name);
      for (const [name, fragment] of written) base.set(name, pack(fragment!));
      this.store(c.urn, c.rev, base);
    }
  }

  private store(urn: string, rev: number, fragments: Map<string, string>): void {
    // Entry, map, key and the LRU's bookkeeping, then per aspect a map slot, its name and its JSON.
    let bytes = 500 + urn.length;
    for (const [name, json] of fragments) bytes += 80 + name.length + json.length;
    this.entries.set(urn, { rev, fragments, bytes });
  }

  get size(): number {
    return this.entries.size;
  }
}
