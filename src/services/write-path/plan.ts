import { status } from '../../model/aspects';
import { makeUrn } from '../../model/urn';
import type { ApplyParams, LockedEntity as StoredLockedEntity, PlanLocked } from '../../stores/graph/aspect-store';
import { COLUMN_LINEAGE_ASPECTS } from '../lineage/column-edges';
import { conditionHolds, withVersion, type WriteCondition } from './conditions';
import { columnEdgeKey, edgeKey, indexedRunOf, VIA_MARK } from './prepare';

/*
 * The contract with cypher/writes.cypher: what `lock` is asked for (LockRequest) and returns (LockedEntity,
 * StoredAspectState), and what `apply` takes (GroupPlan). A new kind of projected thing changes these, the planning
 * below, and the statements; the store passes them through.
 */

/** An entity a write group locks, and which of its stored aspects it needs to see. */
export interface LockRequest {
  urn: string;
  entityType: string;
  /** Create the entity when absent (upserts); deletes only lock what exists. */
  create: boolean;
  /** Return every stored aspect (entity deletes), else only `names` and `present`. */
  all: boolean;
  names: string[];
  /**
   * Those of `names` whose history versions are counted too (upserts, deletes and reverts number, drop or restore
   * versions); a reprojection needs only the latest value's hash and edges (one index seek fewer per aspect).
   */
  history: string[];
  /**
   * Aspects whose existence alone matters: the defaults an upsert adds when absent, which the group does not otherwise
   * touch. Returned without history, value or edges (lock seeks no history for them).
   */
  present: string[];
  /** Aspects whose stored value is returned too (patches). */
  values: string[];
  /** Aspects whose owned column-level lineage edges are returned too. */
  columns: string[];
}

export interface StoredAspectState {
  name: string;
  hash: string;
  /** Highest history version (0: none) and how many there are; 0 and 0 when not read (`present`, not in `history`). */
  top: number;
  history: number;
  value: string | null;
  /** Edges the latest value projects, as "<type>|<target urn>". */
  edges: string[];
  /** Column-level lineage edges the aspect owns, as "<source field urn>|<target field urn>". */
  columnEdges: string[];
}

export type LockedEntity = StoredLockedEntity<StoredAspectState>;

export interface AspectValue {
  value: string;
  hash: string;
  createdTime: number;
  createdActor: string;
}

/** What a group writes: one list per stage of cypher/writes.cypher `apply`. */
export type GroupPlan = {
  /** `node`: the locked entity's element id (LockedEntity.node), by which `apply` finds it. */
  wipes: { urn: string; node: string | null; names: string[] | null }[];
  rows: {
    urn: string;
    node: string | null;
    name: string;
    copy: number | null;
    copySystemMetadata: string | null;
    history: (AspectValue & { version: number; systemMetadata: string })[];
    cut: number;
    /** Age retention: history versions no longer current at this time (epoch ms) go; null: no age bound. */
    horizon: number | null;
    /** History versions deleted (a revert's). */
    drop: number[];
    stored: boolean;
    latest: AspectValue | null;
    systemMetadata: string;
    /** Indexed on the latest node, from `systemMetadata`: which run last wrote or observed it, and when. */
    runId: string | null;
    lastObserved: number | null;
  }[];
  removeEdges: { urn: string; node: string | null; aspect: string; type: string; target: string }[];
  targets: { urn: string; type: string }[];
  /** `t` (and `s` of a column edge): the position of the edge's target (source) in `targets`. */
  createEdges: { urn: string; node: string | null; aspect: string; type: string; target: string; t: number; isLineage: boolean; via?: string }[];
  removeColumnEdges: { owner: string; aspect: string; source: string; target: string }[];
  createColumnEdges: { owner: string; aspect: string; source: string; target: string; s: number; t: number; via?: string }[];
  /**
   * `markers`: pending-delete markers the outbox entry keeps until the indexer has applied it. `removed`: the entity is
   * soft-deleted by its status aspect as this group leaves it (kept on the entity node for lineage walks), null when
   * the group did not change its status. `placeholder`: flagged a placeholder when locked (cleared once it has aspects).
   */
  entities: { urn: string; node: string | null; changed: boolean; hasAspects: boolean; wiped: boolean; markers: string[]; removed: boolean | null; placeholder: boolean }[];
};

export interface Edge {
  type: string;
  target: string;
  targetType: string;
  isLineage: boolean;
  /** The node the edge passes through (a lineage edge's query), kept as the edge property `via`. */
  via?: string;
}

/** A value ready to store: serialized, hashed, with the edges it projects. */
export interface Projected {
  value: string;
  hash: string;
  /** The value `value` serializes, kept so the search document can be built without parsing it again. */
  parsed?: Record<string, unknown>;
  edges: Edge[];
  /** Column-level lineage (schemaField → schemaField DownstreamOf edges) owned by this entity and aspect. */
  columnEdges?: ColumnEdge[];
}

/** What a reprojection needs of a value's projection: its edges, not the value or its hash. */
export type ProjectedEdges = Pick<Projected, 'edges' | 'columnEdges'>;

export interface ColumnEdge {
  source: string;
  target: string;
  /** The query the column lineage names, kept as the edge property `via`. */
  via?: string;
}

/** One logical write. Items of a unit are applied in order; a group applies its units in arrival order. */
export type WriteItem =
  | {
      kind: 'upsert';
      urn: string;
      entityType: string;
      name: string;
      actor: string;
      now: number;
      systemMetadata: string;
      /** History versions kept at most (Infinity: no count bound): the aspect's retention policy (../retention-policies.ts). */
      retention: number;
      /** History versions no longer current this long ago are trimmed too; null: no age bound. */
      retentionMaxAgeMs?: number | null;
      /**
       * Aspects created only when the entity lacks them (key aspect, default browse paths). Their values are computed
       * only then: most writes go to entities that have them.
       */
      defaults: { name: string; value: () => Projected }[];
      /** The value to write, unless `patch` computes it. */
      projected?: Projected;
      /**
       * Computes the new value from the latest one (null: none stored) inside the transaction, after the entity is
       * locked; returning null leaves the aspect as it is. The result goes through `project` (validation, edges, hash).
       * Must be pure: a retried transaction runs it again.
       */
      patch?: (current: Record<string, unknown> | null) => Record<string, unknown> | null;
      project?: (value: Record<string, unknown>) => Projected;
      /**
       * The value as the request wrote it, when the aspect's mutation hook makes the stored one from it in the
       * transaction: what checks made before the transaction read (structured-property-checks.ts).
       */
      proposed?: Record<string, unknown>;
      /** Written only if this holds of the aspect and entity as the group leaves them (CREATE, If-Version-Match). */
      condition?: WriteCondition;
    }
  /**
   * A rollback: the latest value (if its hash is still `expectedHash`) is replaced by the history version `survivor`,
   * and history versions `drop` (the survivor's and every newer one) go; with no survivor the aspect goes whole.
   * Anything else written to the aspect since it was read makes the revert a no-op.
   */
  | { kind: 'revert'; urn: string; entityType: string; name: string; expectedHash: string; survivor: RevertTarget | null; drop: number[]; marker?: string }
  /**
   * A restore: the edges and column edges of the stored latest value (if its hash is still `expectedHash`) are made
   * exactly those `projected` holds; no version is written.
   */
  | { kind: 'reproject'; urn: string; entityType: string; name: string; expectedHash: string; projected: ProjectedEdges }
  /** `marker`: the pending-delete marker written for this delete (PendingDeleteMarkers), kept on the outbox entry. */
  | { kind: 'deleteAspect'; urn: string; entityType: string; name: string; marker?: string }
  | { kind: 'deleteEntity'; urn: string; entityType: string; marker?: string };

/** The history version a revert makes the latest again, with what its value projects. */
export interface RevertTarget {
  version: number;
  projected: Projected;
  createdTime: number;
  createdActor: string;
  systemMetadata: string;
}

/** What a planned group does to one entity's latest aspects (for the search indexer's fragment cache). */
export interface EntityWrite {
  urn: string;
  entityType: string;
  wipedAll: boolean;
  removed: string[];
  /** New latest values; null where the writer has no parsed value (the indexer then reads the entity back). */
  set: [name: string, value: Record<string, unknown> | null][];
}

/**
 * A committed change to one entity, with the revisions its lock found and left; `queued`: the change left an outbox
 * entry at `rev` (unchanged entities leave none).
 */
export type CommittedWrite = EntityWrite & { previousRev: number | null; rev: number; created: boolean; queued: boolean };

export interface ItemOutcome {
  /** An upsert that found the same value stored (only its system metadata was written). */
  unchanged: boolean;
  /** Versions removed by a delete. */
  rows: number;
}

/** The entities a list of units locks, sorted by urn (concurrent groups then take locks in one order). */
export function lockRequests(units: WriteItem[][]): LockRequest[] {
  const byUrn = new Map<string, LockRequest>();
  for (const unit of units) {
    for (const item of unit) {
      let r = byUrn.get(item.urn);
      if (!r) byUrn.set(item.urn, (r = { urn: item.urn, entityType: item.entityType, create: false, all: false, names: [], history: [], present: [], values: [], columns: [] }));
      if (item.kind === 'upsert') {
        r.create = true;
        r.names.push(item.name);
        r.history.push(item.name);
        r.present.push(...item.defaults.map((d) => d.name));
        if (item.condition?.create === 'entity') r.present.push(item.condition.keyAspect);
        if (item.patch) r.values.push(item.name);
      } else if (item.kind === 'deleteAspect' || item.kind === 'revert') {
        r.names.push(item.name);
        r.history.push(item.name);
      } else if (item.kind === 'reproject') r.names.push(item.name);
      else r.all = true;
    }
  }
  return [...byUrn.values()].sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0)).map((r) => {
      const names = [...new Set(r.names)];
      const present = [...new Set(r.present)].filter((n) => !names.includes(n));
      return { ...r, names, history: [...new Set(r.history)], present, values: [...new Set(r.values)], columns: names.filter((n) => COLUMN_LINEAGE_ASPECTS.has(n)) };
    });
}

interface AspectState {
  name: string;
  /** A latest node exists in Neo4j (after this group's wipes). */
  stored: boolean;
  storedValue: string | null;
  /** Edges stored for this aspect (after this group's wipes). */
  storedEdges: ReadonlySet<string>;
  /** Column edges this aspect owns in the store, and as this group leaves them, as "<source>|<target>". */
  storedColumnEdges: ReadonlySet<string>;
  columnEdges: ReadonlySet<string>;
  /** The latest value as this group leaves it; `fromStore` while it is still the stored one. */
  current: (AspectValue & { fromStore: boolean; parsed?: Record<string, unknown> }) | null;
  currentSystemMetadata: string | null;
  edges: ReadonlyMap<string, Edge>;
  top: number;
  versions: number;
  copy: number | null;
  copySystemMetadata: string | null;
  history: (AspectValue & { version: number; systemMetadata: string })[];
  cut: number;
  /** History no longer current at this time is trimmed (age retention); null: none. */
  horizon: number | null;
  /** History versions to delete (a revert's survivor and the versions after it). */
  drop: number[];
  /** The stored value's edges are to be rewritten (a restore), though the value stays. */
  reprojected: boolean;
  changed: boolean;
  touched: boolean;
}

interface EntityState {
  urn: string;
  /** Element id of the locked node (null: not locked, absent). */
  node: string | null;
  entityType: string;
  exists: boolean;
  created: boolean;
  /** Flagged a placeholder when locked. */
  placeholder: boolean;
  aspects: Map<string, AspectState>;
  wipeAll: boolean;
  wipeNames: Set<string>;
  changed: boolean;
  /** Pending-delete markers of this group's deletes of the entity. */
  markers: string[];
}

/**
 * The edge sets of an aspect without edges, shared: they are only ever replaced, never changed, and a restore's page
 * plans thousands of aspects, most of them (and every one in a restore of lost edges) with none stored.
 */
const NO_KEYS: ReadonlySet<string> = new Set();
const NO_EDGES: ReadonlyMap<string, Edge> = new Map();

function emptyAspect(name: string): AspectState {
  return {
    name,
    stored: false,
    storedValue: null,
    storedEdges: NO_KEYS,
    storedColumnEdges: NO_KEYS,
    columnEdges: NO_KEYS,
    current: null,
    currentSystemMetadata: null,
    edges: NO_EDGES,
    top: 0,
    versions: 0,
    copy: null,
    copySystemMetadata: null,
    history: [],
    cut: 0,
    horizon: null,
    drop: [],
    reprojected: false,
    changed: false,
    touched: false,
  };
}

/**
 * The plan as `writes/apply` reads it: each stage gets a list of only the rows it has work for (rows skipped inside a
 * stage cost Neo4j ~85 µs per changed aspect: cypher/writes.cypher says why), and each row only the fields its stage
 * reads. A new edge is created from its
 * source's node to its target's position in `targets`: the urns the plan sorts it by (80-150 bytes each) are not sent.
 * The driver packs every string with an allocation and a copy, and a restore page creates thousands of edges.
 */
export function applyParameters(plan: GroupPlan): ApplyParams {
  const { rows, entities } = plan;
  return {
    wipes: plan.wipes,
    drops: rows.filter((r) => r.drop.length > 0).map(({ urn, name, drop }) => ({ urn, name, drop })),
    copies: rows.filter((r) => r.copy !== null).map(({ urn, node, name, copy, copySystemMetadata }) => ({ urn, node, name, copy, copySystemMetadata })),
    histories: rows.filter((r) => r.history.length > 0).map(({ urn, name, history }) => ({ urn, name, history })),
    cuts: rows.filter((r) => r.cut > 0).map(({ urn, node, name, cut }) => ({ urn, node, name, cut })),
    horizons: rows.filter((r) => r.horizon !== null).map(({ urn, node, name, horizon }) => ({ urn, node, name, horizon })),
    updateLatest: rows.filter((r) => r.stored).map(({ node, name, latest, systemMetadata, runId, lastObserved }) => ({ node, name, latest, systemMetadata, runId, lastObserved })),
    createLatest: rows
      .filter((r) => !r.stored && r.latest !== null)
      .map(({ urn, node, name, latest, systemMetadata, runId, lastObserved }) => ({ urn, node, name, latest, systemMetadata, runId, lastObserved })),
    removeEdges: plan.removeEdges,
    removeColumnEdges: plan.removeColumnEdges,
    targets: plan.targets,
    createEdges: plan.createEdges.map(({ node, aspect, type, t, isLineage, via }) => (via ? { node, aspect, type, t, isLineage, via } : { node, aspect, type, t, isLineage })),
    createColumnEdges: plan.createColumnEdges.map(({ owner, aspect, s, t, via }) => (via ? { owner, aspect, s, t, via } : { owner, aspect, s, t })),
    outbox: entities.filter((e) => e.changed).map(({ urn, node, markers }) => ({ urn, node, markers })),
    unplaceholders: entities.filter((e) => e.hasAspects && e.placeholder).map(({ node }) => ({ node })),
    softDeletes: entities.filter((e) => e.removed !== null).map(({ node, removed }) => ({ node, removed })),
    orphans: entities.filter((e) => !e.hasAspects && e.wiped).map(({ node }) => ({ node })),
  };
}

/**
 * The plan stage of a group's transaction (AspectStore.writeGroup runs it after the lock, and again on a retry): per
 * unit its outcomes or the error that left it out, and every locked entity's change for the publish stage (changed
 * or not: the lock bumped each one's rev).
 */
export function planLocked(units: WriteItem[][]): PlanLocked<StoredAspectState, { outcomes: (ItemOutcome[] | unknown)[]; writes: () => CommittedWrite[]; states: (wanted: (locked: LockedEntity) => boolean) => EntityOutcome[] }> {
  return (locked) => {
    const { plan, outcomes, failed, writes, entities } = planGroup(units, locked);
    // Built only when asked for (the indexer's fragment cache): after the commit, not in each attempt.
    const committed = () => {
      const byUrn = new Map(writes.map((w) => [w.urn, w]));
      return [...locked.values()].map((l) => ({
        ...(byUrn.get(l.urn) ?? { urn: l.urn, entityType: '', wipedAll: false, removed: [], set: [] }),
        previousRev: l.previousRev,
        rev: l.rev,
        created: l.created,
        queued: byUrn.has(l.urn),
      }));
    };
    return { plan: applyParameters(plan), result: { outcomes: outcomes.map((o, i) => (failed.has(i) ? failed.get(i) : o)), writes: committed, states: (wanted) => entityOutcomes(entities, locked, wanted) } };
  };
}

/**
 * Plans a group: applies its units in order to the locked entities in memory and returns what to write. A unit that
 * throws (a patch, or the validation of its result) is left out whole and reported in `failed`; the caller runs the
 * plan again without it, so no other unit sees its effects.
 */
export function planGroup(
  units: WriteItem[][],
  locked: Map<string, LockedEntity>,
): { plan: GroupPlan; outcomes: (ItemOutcome[] | null)[]; failed: Map<number, unknown>; writes: EntityWrite[]; entities: Map<string, EntityState> } {
  const failed = new Map<number, unknown>();
  for (;;) {
    const attempt = tryPlan(units, locked, failed);
    if (attempt.failedAt === null) return { plan: attempt.plan, outcomes: attempt.outcomes, failed, writes: attempt.writes, entities: attempt.entities };
    failed.set(attempt.failedAt, attempt.error);
  }
}

function tryPlan(
  units: WriteItem[][],
  locked: Map<string, LockedEntity>,
  skip: Map<number, unknown>,
): { plan: GroupPlan; outcomes: (ItemOutcome[] | null)[]; failedAt: number | null; error?: unknown; writes: EntityWrite[]; entities: Map<string, EntityState> } {
  const entities = new Map<string, EntityState>();
  const entity = (urn: string, entityType: string): EntityState => {
    let e = entities.get(urn);
    if (!e) {
      const l = locked.get(urn);
      e = { urn, node: l?.node ?? null, entityType, exists: Boolean(l), created: l?.created ?? false, placeholder: l?.placeholder ?? false, aspects: new Map(), wipeAll: false, wipeNames: new Set(), changed: false, markers: [] };
      for (const a of l?.aspects ?? []) {
        const s = emptyAspect(a.name);
        s.stored = true;
        s.storedValue = a.value;
        if (a.edges.length > 0) {
          s.storedEdges = new Set(a.edges);
          s.edges = new Map(a.edges.map((k) => [k, storedEdge(k)]));
        }
        if (a.columnEdges.length > 0) s.storedColumnEdges = s.columnEdges = new Set(a.columnEdges);
        s.current = { value: '', hash: a.hash, createdTime: 0, createdActor: '', fromStore: true };
        s.top = a.top;
        s.versions = 1 + a.history;
        e.aspects.set(a.name, s);
      }
      entities.set(urn, e);
    }
    return e;
  };
  const aspect = (e: EntityState, name: string): AspectState => {
    let a = e.aspects.get(name);
    if (!a) e.aspects.set(name, (a = emptyAspect(name)));
    return a;
  };

  const outcomes: (ItemOutcome[] | null)[] = [];
  for (let u = 0; u < units.length; u++) {
    if (skip.has(u)) {
      outcomes.push(null);
      continue;
    }
    const results: ItemOutcome[] = [];
    try {
      for (const item of units[u]) results.push(applyItem(item, entity(item.urn, item.entityType), aspect));
    } catch (error) {
      return { plan: emptyPlan(), outcomes, failedAt: u, error, writes: [], entities };
    }
    outcomes.push(results);
  }
  return { plan: toPlan(entities), outcomes, failedAt: null, writes: entityWrites(entities), entities };
}

/**
 * What a committed group left of each locked entity `wanted`, as `lock` would read it back (for the states the write path
 * keeps: ./known-states.ts). `aspects`: the aspects the group wrote, their state after it (null: gone); the others are
 * as they were. `exact` is false where the planner cannot know the result: deletes (an entity without aspects may be
 * deleted), reverts, and age retention (which versions it trims depends on their times in Neo4j).
 */
export interface EntityOutcome {
  urn: string;
  node: string;
  rev: number;
  placeholder: boolean;
  exact: boolean;
  aspects: Map<string, StoredAspectState | null>;
}

function entityOutcomes(entities: Map<string, EntityState>, locked: Map<string, LockedEntity>, wanted: (locked: LockedEntity) => boolean): EntityOutcome[] {
  const outcomes: EntityOutcome[] = [];
  for (const l of locked.values()) {
    if (!wanted(l)) continue;
    const e = entities.get(l.urn);
    const aspects = new Map<string, StoredAspectState | null>();
    let exact = true;
    let hasAspects = l.aspects.length > 0;
    if (e) {
      exact = !e.wipeAll && e.wipeNames.size === 0;
      hasAspects = false;
      for (const a of e.aspects.values()) {
        if (a.current) hasAspects = true;
        if (!a.touched && !a.reprojected) continue;
        if (a.drop.length > 0 || (a.changed && a.horizon !== null)) exact = false;
        // History is a run of versions ending at `top`: count retention cuts from below.
        const history = a.cut > 0 ? Math.min(a.versions - 1, a.top - a.cut) : a.versions - 1;
        aspects.set(a.name, a.current ? { name: a.name, hash: a.current.hash, top: a.top, history: Math.max(history, 0), value: null, edges: [...a.edges.keys()], columnEdges: [...a.columnEdges] } : null);
      }
    }
    outcomes.push({ urn: l.urn, node: l.node, rev: l.rev, placeholder: l.placeholder && !hasAspects, exact, aspects });
  }
  return outcomes;
}

function entityWrites(entities: Map<string, EntityState>): EntityWrite[] {
  const writes: EntityWrite[] = [];
  for (const e of entities.values()) {
    if (!e.changed) continue;
    const set: EntityWrite['set'] = [];
    for (const a of e.aspects.values()) if (a.changed && a.current && !a.current.fromStore) set.push([a.name, a.current.parsed ?? null]);
    const removed = [...e.wipeNames].filter((name) => !e.aspects.get(name)?.current);
    writes.push({ urn: e.urn, entityType: e.entityType, wipedAll: e.wipeAll, removed, set });
  }
  return writes;
}

function applyItem(item: WriteItem, e: EntityState, aspect: (e: EntityState, name: string) => AspectState): ItemOutcome {
  if ((item.kind === 'deleteEntity' || item.kind === 'deleteAspect' || item.kind === 'revert') && item.marker) e.markers.push(item.marker);
  if (item.kind === 'reproject') return applyReproject(item, e);
  if (item.kind === 'deleteEntity') {
    if (!e.exists) return { unchanged: false, rows: 0 };
    let rows = 0;
    for (const a of e.aspects.values()) rows += a.current ? a.versions : 0;
    e.aspects.clear();
    e.wipeAll = true;
    e.changed = true;
    return { unchanged: false, rows };
  }
  if (item.kind === 'revert') return applyRevert(item, e);
  if (item.kind === 'deleteAspect') {
    if (!e.exists) return { unchanged: false, rows: 0 };
    const rows = e.aspects.get(item.name)?.current ? e.aspects.get(item.name)!.versions : 0;
    e.aspects.delete(item.name);
    e.wipeNames.add(item.name);
    e.changed = true;
    return { unchanged: false, rows };
  }

  let projected = item.projected;
  const a = aspect(e, item.name);
  if (item.condition) {
    const where = { urn: item.urn, aspect: item.name, version: a.current ? a.top + 1 : null, entityExists: Boolean(e.aspects.get(item.condition.keyAspect)?.current) };
    if (!conditionHolds(item.condition, where)) return { unchanged: true, rows: 0 };
  }
  if (item.patch) {
    const current = a.current ? JSON.parse(a.current.fromStore ? (a.storedValue ?? 'null') : a.current.value) : null;
    const next = item.patch(current);
    if (next === null) {
      addDefaults(item, e, aspect);
      return { unchanged: true, rows: 0 };
    }
    if (!item.project) throw new Error('a patch needs project()');
    projected = item.project(next);
  }
  if (!projected) throw new Error('an upsert needs a value or a patch');
  e.exists = true;
  let unchanged = false;
  if (a.current && a.current.hash === projected.hash) {
    unchanged = true;
    a.currentSystemMetadata = withVersion(item.systemMetadata, a.top + 1);
    a.touched = true;
  } else {
    if (a.current) {
      const next = a.top + 1;
      if (a.current.fromStore) {
        a.copy = next;
        a.copySystemMetadata = a.currentSystemMetadata;
      } else {
        a.history.push({ version: next, value: a.current.value, hash: a.current.hash, createdTime: a.current.createdTime, createdActor: a.current.createdActor, systemMetadata: a.currentSystemMetadata ?? '{}' });
      }
      a.top = next;
      a.cut = Math.max(a.cut, next - item.retention);
      if (item.retentionMaxAgeMs) a.horizon = item.now - item.retentionMaxAgeMs;
    }
    a.current = { value: projected.value, hash: projected.hash, parsed: projected.parsed, createdTime: item.now, createdActor: item.actor, fromStore: false };
    a.currentSystemMetadata = withVersion(item.systemMetadata, a.top + 1);
    a.versions++;
    setEdges(a, projected);
    a.changed = true;
    a.touched = true;
    e.changed = true;
  }
  addDefaults(item, e, aspect);
  return { unchanged, rows: 0 };
}

function applyReproject(item: Extract<WriteItem, { kind: 'reproject' }>, e: EntityState): ItemOutcome {
  const a = e.aspects.get(item.name);
  if (!e.exists || !a?.current || !a.current.fromStore || a.current.hash !== item.expectedHash) return { unchanged: true, rows: 0 };
  setEdges(a, item.projected);
  a.reprojected = true;
  return { unchanged: false, rows: 0 };
}

function setEdges(a: AspectState, projected: ProjectedEdges): void {
  a.edges = projected.edges.length > 0 ? new Map(projected.edges.map((edge) => [edgeKey(edge), edge])) : NO_EDGES;
  a.columnEdges = projected.columnEdges?.length ? new Set(projected.columnEdges.map(columnEdgeKey)) : NO_KEYS;
}

function applyRevert(item: Extract<WriteItem, { kind: 'revert' }>, e: EntityState): ItemOutcome {
  const a = e.aspects.get(item.name);
  if (!e.exists || !a?.current || !a.current.fromStore || a.current.hash !== item.expectedHash) return { unchanged: true, rows: 0 };
  e.changed = true;
  if (!item.survivor) {
    const rows = a.versions;
    e.aspects.delete(item.name);
    e.wipeNames.add(item.name);
    return { unchanged: false, rows };
  }
  const { survivor } = item;
  a.current = { value: survivor.projected.value, hash: survivor.projected.hash, parsed: survivor.projected.parsed, createdTime: survivor.createdTime, createdActor: survivor.createdActor, fromStore: false };
  a.currentSystemMetadata = survivor.systemMetadata;
  setEdges(a, survivor.projected);
  a.drop = item.drop;
  a.top = survivor.version - 1;
  a.versions -= item.drop.length;
  a.changed = true;
  a.touched = true;
  return { unchanged: false, rows: item.drop.length };
}

function addDefaults(item: Extract<WriteItem, { kind: 'upsert' }>, e: EntityState, aspect: (e: EntityState, name: string) => AspectState): void {
  e.exists = true;
  for (const d of item.defaults) {
    const a = aspect(e, d.name);
    if (a.current) continue;
    const projected = d.value();
    a.current = { value: projected.value, hash: projected.hash, parsed: projected.parsed, createdTime: item.now, createdActor: item.actor, fromStore: false };
    setEdges(a, projected);
    a.currentSystemMetadata = withVersion(item.systemMetadata, 1);
    a.versions = 1;
    a.changed = true;
    a.touched = true;
  }
}

function emptyPlan(): GroupPlan {
  return { wipes: [], rows: [], removeEdges: [], removeColumnEdges: [], targets: [], createEdges: [], createColumnEdges: [], entities: [] };
}

/** indexedRunOf of a system metadata string, each distinct one parsed once per group. */
function runOf(systemMetadata: string, seen: Map<string, { runId: string | null; lastObserved: number | null }>) {
  let run = seen.get(systemMetadata);
  if (!run) {
    const parsed = JSON.parse(systemMetadata) as { runId?: unknown; lastObserved?: unknown };
    run = indexedRunOf(parsed) ?? { runId: null, lastObserved: null };
    seen.set(systemMetadata, run);
  }
  return run;
}

function toPlan(entities: Map<string, EntityState>): GroupPlan {
  const plan = emptyPlan();
  // A group's writes mostly share one system metadata (one run): each distinct one is parsed once.
  const runs = new Map<string, { runId: string | null; lastObserved: number | null }>();
  const targets = new Map<string, string>();
  for (const e of [...entities.values()].sort((x, y) => (x.urn < y.urn ? -1 : 1))) {
    const node = e.node;
    if (e.wipeAll) plan.wipes.push({ urn: e.urn, node, names: null });
    else if (e.wipeNames.size > 0) plan.wipes.push({ urn: e.urn, node, names: [...e.wipeNames] });
    for (const a of e.aspects.values()) {
      if (!a.touched && !a.reprojected) continue;
      const stored = a.stored && !e.wipeAll && !e.wipeNames.has(a.name);
      const storedEdges = stored ? a.storedEdges : NO_KEYS;
      const copy = a.copy !== null && a.copy > a.cut ? a.copy : null;
      if (a.touched) plan.rows.push({
        urn: e.urn,
        node,
        name: a.name,
        copy,
        copySystemMetadata: copy === null ? null : a.copySystemMetadata,
        history: a.history.filter((h) => h.version > a.cut),
        cut: a.cut,
        horizon: a.changed ? a.horizon : null,
        stored,
        drop: a.drop,
        latest: a.changed && a.current ? { value: a.current.value, hash: a.current.hash, createdTime: a.current.createdTime, createdActor: a.current.createdActor } : null,
        systemMetadata: a.currentSystemMetadata ?? '{}',
        ...runOf(a.currentSystemMetadata ?? '{}', runs),
      });
      if (!a.changed && !a.reprojected) continue;
      for (const k of storedEdges) {
        if (a.edges.has(k)) continue;
        const i = k.indexOf('|');
        plan.removeEdges.push({ urn: e.urn, node, aspect: a.name, type: k.slice(0, i), target: withoutVia(k.slice(i + 1)) });
      }
      for (const [k, edge] of a.edges) {
        if (storedEdges.has(k)) continue;
        plan.createEdges.push({ urn: e.urn, node, aspect: a.name, type: edge.type, target: edge.target, t: -1, isLineage: edge.isLineage, ...(edge.via ? { via: edge.via } : {}) });
        if (!targets.has(edge.target)) targets.set(edge.target, edge.targetType);
      }
      const storedColumnEdges = stored ? a.storedColumnEdges : NO_KEYS;
      for (const k of storedColumnEdges) {
        if (!a.columnEdges.has(k)) {
          const { source, target } = splitColumnEdge(k);
          plan.removeColumnEdges.push({ owner: e.urn, aspect: a.name, source, target });
        }
      }
      for (const k of a.columnEdges) {
        if (storedColumnEdges.has(k)) continue;
        const edge = splitColumnEdge(k);
        plan.createColumnEdges.push({ owner: e.urn, aspect: a.name, ...edge, s: -1, t: -1 });
        for (const field of [edge.source, edge.target]) if (!targets.has(field)) targets.set(field, 'schemaField');
      }
    }
    if (!e.exists && !e.created) continue;
    const hasAspects = [...e.aspects.values()].some((a) => a.current !== null);
    const wiped = e.wipeAll || e.created;
    const removed = softDeleted(e);
    // A row only where `apply`'s entity stage has something to do: a restore's reprojections and a re-run's unchanged
    // writes leave most locked entities as they were (1,000 rows per restored page otherwise).
    if (e.changed || wiped || removed !== null || (hasAspects && e.placeholder)) plan.entities.push({ urn: e.urn, node, changed: e.changed, hasAspects, wiped, markers: e.markers, removed, placeholder: e.placeholder });
  }
  // Targets once each and edges grouped by target, both in urn order: one lock order for every transaction.
  plan.targets = [...targets].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([urn, type]) => ({ urn, type }));
  const position = new Map(plan.targets.map((t, i) => [t.urn, i]));
  for (const edge of plan.createEdges) edge.t = position.get(edge.target)!;
  for (const edge of plan.createColumnEdges) {
    edge.s = position.get(edge.source)!;
    edge.t = position.get(edge.target)!;
  }
  // Positions follow urn order, so comparing them is comparing the urns (long strings with long common prefixes: a
  // restore's page sorts thousands). Edges come in source urn order; a stable grouping by target keeps it within each.
  const byTarget: GroupPlan['createEdges'][] = plan.targets.map(() => []);
  for (const edge of plan.createEdges) byTarget[edge.t].push(edge);
  plan.createEdges = byTarget.flat();
  plan.createColumnEdges.sort((x, y) => x.t - y.t || x.s - y.s);
  return plan;
}

/** Whether the group leaves the entity soft-deleted, when it changed the status aspect (null: it did not). */
function softDeleted(e: EntityState): boolean | null {
  const current = e.aspects.get(status.name)?.current;
  // A value this group wrote (a stored one is known by its hash only, and unchanged).
  if (current && !current.fromStore) return current.parsed ? current.parsed.removed === true : current.value.includes('"removed":true');
  return !current && (e.wipeAll || e.wipeNames.has(status.name)) ? false : null;
}

/** A stored edge by its key: only its type and target are known (enough to keep it or remove it). */
function storedEdge(key: string): Edge {
  const i = key.indexOf('|');
  return { type: key.slice(0, i), target: key.slice(i + 1), targetType: '', isLineage: false };
}

function splitColumnEdge(key: string): ColumnEdge {
  // schemaField urns contain no '|'; the separator is unambiguous.
  const i = key.indexOf('|');
  const v = key.indexOf(VIA_MARK, i);
  return v < 0 ? { source: key.slice(0, i), target: key.slice(i + 1) } : { source: key.slice(0, i), target: key.slice(i + 1, v), via: key.slice(v + 1) };
}

/** The target of an edge key without the node it passes through. */
function withoutVia(target: string): string {
  const v = target.indexOf(VIA_MARK);
  return v < 0 ? target : target.slice(0, v);
}

/**
 * A group that uses every write statement, on a scratch entity, shaped like a real one (Neo4j keys its plan cache by
 * parameter types; every group's lists travel in one map, so this one plan serves them all): the service rehearses it,
 * rolled back, before its first writes (AspectStore.prepareWrites).
 */
export function rehearsalGroup(namespace: string, now = Date.now()): { requests: LockRequest[]; plan: (locked: Map<string, LockedEntity>) => ApplyParams; now: number } {
  const urn = makeUrn(namespace, 'corpuser', ['__write_path_rehearsal__']);
  const dataset = makeUrn(namespace, 'dataset', [makeUrn(namespace, 'dataPlatform', ['rehearsal']), 't', 'PROD']);
  const field = (n: number) => makeUrn(namespace, 'schemaField', [dataset, `c${n}`]);
  const value = { value: '{}', hash: 'h', createdTime: now, createdActor: urn };
  const plan = (locked: Map<string, LockedEntity>): ApplyParams => {
    const node = locked.get(urn)?.node ?? null;
    return applyParameters({
      wipes: [{ urn, node, names: ['a'] }, { urn, node, names: null }],
      rows: [
        { urn, node, name: 'b', copy: 1, copySystemMetadata: '{}', history: [{ ...value, version: 2, systemMetadata: '{}' }], cut: 1, horizon: now - 1000, drop: [3], stored: true, latest: value, systemMetadata: '{}', runId: 'r', lastObserved: now },
        { urn, node, name: 'c', copy: null, copySystemMetadata: null, history: [], cut: 0, horizon: null, drop: [], stored: false, latest: null, systemMetadata: '{}', runId: null, lastObserved: null },
      ],
      removeEdges: [{ urn, node, aspect: 'b', type: 'OwnedBy', target: field(0) }],
      removeColumnEdges: [{ owner: urn, aspect: 'b', source: field(1), target: field(2) }],
      targets: [{ urn: field(1), type: 'schemaField' }, { urn: field(2), type: 'schemaField' }],
      createEdges: [{ urn, node, aspect: 'b', type: 'OwnedBy', target: field(1), t: 0, isLineage: false, via: field(2) }],
      createColumnEdges: [{ owner: urn, aspect: 'b', source: field(1), target: field(2), s: 0, t: 1, via: field(0) }],
      entities: [{ urn, node, changed: true, hasAspects: true, wiped: false, markers: [], removed: true, placeholder: true }],
    });
  };
  return { requests: [{ urn, entityType: 'corpuser', create: true, all: false, names: ['b'], history: ['b'], present: ['k'], values: ['b'], columns: ['b'] }], plan, now };
}
