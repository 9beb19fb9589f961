import { LRUCache } from 'lru-cache';

/** A latest aspect as Neo4j returns it: value and system metadata still JSON text. */
export interface StoredAspectRow {
  name: string;
  value: string | null;
  createdTime: number;
  createdActor: string;
  systemMetadata: string | null;
}

/** A copy of an entity's latest aspects, current while the entity's rev is `rev`. */
export interface CachedLatest {
  rev: number;
  /**
   * The aspects as read (packAspectRows), in one buffer outside the V8 heap: parsed copies took ~1.5 times their JSON
   * on the heap, and V8 lets its old generation grow to twice what survives (HEAP_GROWING_PERCENT), so a cache bounded
   * at 32 MB of JSON held 120 MiB of resident memory (bench/read-memory.ts).
   */
  packed: Buffer;
  /**
   * The lease epoch (ProcessLease) in which the copy was read while the lease allowed unchecked reads, and no write's
   * invalidation of the entity overtook the read; -1 otherwise. Only such a copy may be served unchecked.
   */
  epoch: number;
}

/**
 * Rows in one buffer: a JSON header line of [name, createdTime, createdActor, value length, system metadata length
 * (-1: none)] per row, then each row's value and system metadata text, back to back. Stored JSON is the service's own
 * canonical text (no lone surrogates), so it survives UTF-8 whole and its lengths hold once decoded.
 */
export function packAspectRows(rows: readonly StoredAspectRow[]): Buffer {
  const header = JSON.stringify(rows.map((r) => [r.name, r.createdTime, r.createdActor, r.value?.length ?? -1, r.systemMetadata?.length ?? -1]));
  let text = header + '\n';
  for (const r of rows) text += (r.value ?? '') + (r.systemMetadata ?? '');
  // A buffer of its own: Buffer.from puts small ones in a shared 8 KB slab, which one cached entry would keep alive.
  const packed = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  packed.write(text);
  return packed;
}

export function unpackAspectRows(packed: Buffer): StoredAspectRow[] {
  const text = packed.toString();
  const end = text.indexOf('\n');
  let at = end + 1;
  const take = (length: number): string | null => {
    if (length < 0) return null;
    at += length;
    return text.slice(at - length, at);
  };
  return (JSON.parse(text.slice(0, end)) as [string, number, string, number, number][]).map(([name, createdTime, createdActor, valueLength, metadataLength]) => ({
    name,
    createdTime,
    createdActor,
    value: take(valueLength),
    systemMetadata: take(metadataLength),
  }));
}

/** Past this many remembered invalidations, every read in flight counts as overtaken by one. */
const MAX_REMEMBERED_INVALIDATIONS = 100_000;

/**
 * Latest aspects of recently read entities, bounded by the size of their packed copies (their stored JSON). A copy is served after Neo4j
 * confirmed, in the same round trip that would otherwise carry the aspects, that the entity's rev is unchanged (every
 * write bumps the rev in its own transaction, so writes through any process invalidate on commit), or, while the
 * process's lease allows, without asking: every write, through this process or another, drops the entity's copies
 * before it is acknowledged, and a read that such an invalidation overtook does not leave a trusted copy behind.
 */
export class LatestAspectCache {
  private readonly entries: LRUCache<string, CachedLatest>;
  private readonly keysByUrn = new Map<string, Set<string>>();
  /** Invalidations, numbered; a read remembers the number current when it began. */
  private invalidations = 0;
  private readonly invalidatedAt = new Map<string, number>();
  /** Reads that began at or before this number count as overtaken (the memory of invalidations was cleared). */
  private forgottenUpTo = 0;
  private readsInFlight = 0;

  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, CachedLatest>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (entry, key) => entry.packed.length + key.length + 64,
      dispose: (_entry, key, reason) => {
        if (reason !== 'set') this.forgetKey(key);
      },
    });
  }

  static key(urn: string, names: readonly string[] | null, scope?: string): string {
    return LatestAspectCache.keyOf(urn, names ? LatestAspectCache.namesKey(names) : null, scope);
  }

  /** The part of a key that names the aspects: sorted, so the same names in any order are one key. */
  static namesKey(names: readonly string[]): string {
    return [...names].sort().join(',');
  }

  static keyOf(urn: string, namesKey: string | null, scope?: string): string {
    return scope ? `${urn}\n${scope}:${namesKey ?? ''}` : namesKey !== null ? `${urn}\n${namesKey}` : urn;
  }

  private static urnOf(key: string): string {
    const end = key.indexOf('\n');
    return end < 0 ? key : key.slice(0, end);
  }

  get(key: string): CachedLatest | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: CachedLatest): void {
    this.entries.set(key, entry);
    if (!this.entries.has(key)) return; // larger than the whole cache
    const urn = LatestAspectCache.urnOf(key);
    let keys = this.keysByUrn.get(urn);
    if (!keys) this.keysByUrn.set(urn, (keys = new Set()));
    keys.add(key);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Marks the start of a read from Neo4j; pass the ticket to `overtaken` and then to `endRead`. */
  beginRead(): number {
    this.readsInFlight++;
    return this.invalidations;
  }

  endRead(): void {
    if (--this.readsInFlight === 0) this.invalidatedAt.clear();
  }

  /** Whether a write to the entity was reported finished after the read with this ticket began. */
  overtaken(urn: string, ticket: number): boolean {
    return ticket < this.forgottenUpTo || (this.invalidatedAt.get(urn) ?? -1) > ticket;
  }

  /** Drops every copy of these entities; called when a write to them has finished (or failed), here or in a peer. */
  invalidate(urns: Iterable<string>): void {
    const n = ++this.invalidations;
    for (const urn of urns) {
      for (const key of [...(this.keysByUrn.get(urn) ?? [])]) this.entries.delete(key);
      if (this.readsInFlight > 0) this.invalidatedAt.set(urn, n);
    }
    if (this.invalidatedAt.size > MAX_REMEMBERED_INVALIDATIONS) {
      this.invalidatedAt.clear();
      this.forgottenUpTo = n;
    }
  }

  private forgetKey(key: string): void {
    const urn = LatestAspectCache.urnOf(key);
    const keys = this.keysByUrn.get(urn);
    if (!keys) return;
    keys.delete(key);
    if (keys.size === 0) this.keysByUrn.delete(urn);
  }

  get size(): number {
    return this.entries.size;
  }
}
