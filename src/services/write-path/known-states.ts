import { LRUCache } from 'lru-cache';
import { nextRev, type KnownEntityLock } from '../../stores/graph/aspect-store';
import { COLUMN_LINEAGE_ASPECTS } from '../lineage/column-edges';
import type { EntityOutcome, LockedEntity, LockRequest, StoredAspectState, WriteItem } from './plan';

/** An aspect as `lock` would read it, without its name and value: [hash, top, history, edges, column edges]. */
type KeptAspect = [hash: string, top: number, history: number, edges: string[], columnEdges: string[]];

/** What `lock` would read of an entity, as this process's last write left it: every stored aspect (none missing). */
interface KnownEntity {
  node: string;
  rev: number;
  placeholder: boolean;
  aspects: Map<string, KeptAspect>;
}

/**
 * A known entity as JSON in a buffer outside the V8 heap (~1 KB for a dataset with its defaults): V8 lets its old
 * generation grow to twice what survived the last collection (HEAP_GROWING_PERCENT), so states kept on the heap cost
 * twice their size in resident memory at the peak (as src/services/indexing/fragment-cache.ts says).
 */
const pack = (e: KnownEntity): Buffer => Buffer.from(JSON.stringify([e.node, e.rev, e.placeholder, [...e.aspects]]));
function unpack(packed: Buffer): KnownEntity {
  const [node, rev, placeholder, aspects] = JSON.parse(packed.toString()) as [string, number, boolean, [string, KeptAspect][]];
  return { node, rev, placeholder, aspects: new Map(aspects) };
}

const kept = (a: StoredAspectState): KeptAspect => [a.hash, a.top, a.history, a.edges, a.columnEdges];

/** The whole state of every column-lineage aspect: what a complete read asks `lock` for. */
const ALL_COLUMN_ASPECTS = [...COLUMN_LINEAGE_ASPECTS];

/**
 * The stored state of entities this process wrote last, so that their next write can be planned before its
 * transaction and sent as one statement (cypher/writes.cypher `apply` with `known`): one round trip instead of four,
 * and no read in Neo4j. `apply` checks under the entity's lock that its rev is still the one kept here (every write
 * bumps it, in any process); if not, the group goes the locking way and reads the entity again.
 *
 * Only whole states are kept (every aspect, so an absent default is known to be absent): of entities a write created,
 * of placeholders (no aspects), and of entities read whole. An upsert-only group reads each entity it does not know
 * whole (`all`), so ingestion runs over an existing catalog get known states from their first write of each entity.
 * Deletes, reverts and age retention forget the entity (the planner cannot tell what they leave). Least recently
 * written entities go first beyond `maxBytes`.
 */
export class KnownStates {
  private readonly entities: LRUCache<string, Buffer> | null;

  /** `maxBytes`: the packed states' total size; 0 keeps none. */
  constructor(maxBytes: number) {
    this.entities = maxBytes > 0 ? new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (packed, urn) => packed.length + urn.length }) : null;
  }

  get size(): number {
    return this.entities?.size ?? 0;
  }

  /**
   * The lock requests adjusted for what is known: an upsert-only entity that is not known is read whole, so that what
   * its write leaves can be kept.
   */
  wholeReads(requests: LockRequest[], units: WriteItem[][]): LockRequest[] {
    const entities = this.entities;
    if (!entities) return requests;
    const upsertOnly = upsertOnlyUrns(units);
    return requests.map((r) => (!r.all && upsertOnly.has(r.urn) && !entities.has(r.urn) ? { ...r, all: true, columns: ALL_COLUMN_ASPECTS } : r));
  }

  /**
   * The group's entities as `lock` would return them, and what `apply` checks, when every one is known and every write
   * is an upsert whose value is known beforehand (a patch needs the stored value, which is not kept); else null.
   */
  planFor(requests: LockRequest[], units: WriteItem[][], now: number): { locked: Map<string, LockedEntity>; known: KnownEntityLock[]; states: Map<string, KnownEntity> } | null {
    if (!this.entities || !units.every((u) => u.every((i) => i.kind === 'upsert' && !i.patch))) return null;
    const locked = new Map<string, LockedEntity>();
    const known: KnownEntityLock[] = [];
    const states = new Map<string, KnownEntity>();
    for (const r of requests) {
      const packed = r.values.length === 0 ? this.entities.get(r.urn) : undefined;
      if (!packed) return null;
      const k = unpack(packed);
      states.set(r.urn, k);
      const aspects: StoredAspectState[] = [];
      for (const name of [...r.names, ...r.present]) {
        const a = k.aspects.get(name);
        if (a) aspects.push({ name, hash: a[0], top: a[1], history: a[2], value: null, edges: a[3], columnEdges: a[4] });
      }
      const next = nextRev(k.rev, now);
      locked.set(r.urn, { urn: r.urn, node: k.node, rev: next, previousRev: k.rev, created: false, placeholder: k.placeholder, aspects });
      known.push({ urn: r.urn, node: k.node, rev: k.rev, next });
    }
    return { locked, known, states };
  }

  /**
   * After a commit: keeps what the group left of each entity whose whole state was known before it (`locked`: what the
   * plan started from, a known state (`planned`) or what `lock` read), forgets the others.
   */
  committed(requests: LockRequest[], locked: Map<string, LockedEntity> | null, states: (wanted: (l: LockedEntity) => boolean) => EntityOutcome[], planned?: Map<string, KnownEntity>): void {
    const entities = this.entities;
    if (!entities || !locked) return;
    const whole = new Set(requests.filter((r) => r.all).map((r) => r.urn));
    const before = new Map<string, KnownEntity['aspects']>();
    for (const l of locked.values()) {
      // The states a group was planned from (planFor) are not unpacked again.
      const packed = planned?.has(l.urn) ? null : entities.get(l.urn);
      entities.delete(l.urn);
      const k = planned?.get(l.urn) ?? (packed ? unpack(packed) : undefined);
      if (k && l.previousRev === k.rev) before.set(l.urn, k.aspects);
      else if (l.created || l.placeholder || whole.has(l.urn)) before.set(l.urn, new Map(l.aspects.map((a) => [a.name, kept(a)])));
    }
    for (const o of states((l) => before.has(l.urn))) {
      if (!o.exact) continue;
      const aspects = before.get(o.urn)!;
      for (const [name, a] of o.aspects) {
        if (a) aspects.set(name, kept(a));
        else aspects.delete(name);
      }
      entities.set(o.urn, pack({ node: o.node, rev: o.rev, placeholder: o.placeholder, aspects }));
    }
  }

  /** After a failed transaction (which may have committed) or a stale known state. */
  forget(urns: readonly string[]): void {
    for (const urn of urns) this.entities?.delete(urn);
  }
}

function upsertOnlyUrns(units: WriteItem[][]): Set<string> {
  const upserts = new Set<string>();
  const others = new Set<string>();
  for (const u of units) for (const i of u) (i.kind === 'upsert' ? upserts : others).add(i.urn);
  for (const urn of others) upserts.delete(urn);
  return upserts;
}
