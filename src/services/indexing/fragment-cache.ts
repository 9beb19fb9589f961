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
  /** Aspect names, and where each one's fragment (JSON) ends in `packed`. */
  names: string[];
  ends: number[];
  /**
   * The fragments' JSON, UTF-8, in one buffer outside the V8 heap: V8 lets its old generation grow to twice what survived
   * the last collection (HEAP_GROWING_PERCENT), so a cache of thousands of entities on the heap costs twice its size in
   * resident memory at the peak, and outside it once.
   */
  packed: Buffer;
}

const pack = (f: AspectFragment): Buffer => Buffer.from(JSON.stringify(f.object ? [f.values, f.paths ?? null, f.object] : f.paths ? [f.values, f.paths] : [f.values]));
const unpack = (json: string): AspectFragment => {
  const [values, paths, object] = JSON.parse(json) as [unknown[][], string[] | null | undefined, AspectFragment['object']];
  const fragment: AspectFragment = { values };
  if (paths) fragment.paths = paths;
  if (object) fragment.object = object;
  return fragment;
};

/** An entry's fragments as views of its buffer (no copy). */
function fragmentsOf(entry: Entry): Map<string, Buffer> {
  const fragments = new Map<string, Buffer>();
  let start = 0;
  entry.names.forEach((name, i) => {
    fragments.set(name, entry.packed.subarray(start, entry.ends[i]));
    start = entry.ends[i];
  });
  return fragments;
}

/**
 * The search fragments of recently written (or indexed) entities, each exact for one revision. A write that this
 * process commits carries an entity's copy from the revision its lock found to the one it left, so the indexer builds
 * the document of an outbox entry with that revision without reading the entity back from Neo4j. Every write, through
 * any process, bumps the revision under the entity's lock, so a copy of another revision is never used.
 */
export class FragmentCache {
  private readonly entries: LRUCache<string, Entry>;

  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, Entry>({ maxSize: Math.max(1, maxBytes) });
  }

  /** The entity's fragments at exactly this revision. */
  get(urn: string, rev: number): ReadonlyMap<string, AspectFragment> | undefined {
    const entry = this.entries.get(urn);
    if (!entry || entry.rev !== rev) return undefined;
    return new Map([...fragmentsOf(entry)].map(([name, json]) => [name, unpack(json.toString())]));
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
      const base = c.created || c.wipedAll ? new Map<string, Buffer>() : entry && entry.rev === c.previousRev ? fragmentsOf(entry) : null;
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

  private store(urn: string, rev: number, fragments: Map<string, Buffer>): void {
    const names = [...fragments.keys()];
    const ends: number[] = [];
    let end = 0;
    for (const json of fragments.values()) ends.push((end += json.length));
    // Unpooled: a slice of Node's shared pool would keep its whole 8 KB slab alive as long as the entry lives.
    const packed = Buffer.allocUnsafeSlow(end);
    let at = 0;
    for (const json of fragments.values()) at += json.copy(packed, at);
    // Entry, key, names, ends, the buffer's object and the LRU's bookkeeping, then the fragments themselves.
    this.entries.set(urn, { rev, names, ends, packed }, { size: 400 + urn.length + 16 * names.length + end });
  }

  get size(): number {
    return this.entries.size;
  }
}
