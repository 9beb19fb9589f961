import DataLoader from 'dataloader';
import neo4j from 'neo4j-driver';
import type { Integer, ManagedTransaction } from 'neo4j-driver';
import type { StoredAspectRow } from './latest-aspect-cache';
import type { Neo4jExecutor } from './neo4j-executor';
import type { Peer } from './process-lease';
import type { LatestRead, ReadCoherence } from './read-coherence';
import { RelationshipPageCache, type CachedRelationshipPage } from './relationship-page-cache';
import type { StatementName } from './statements.generated';

export interface AuditStamp {
  time: number;
  actor: string;
}

export interface StoredAspect {
  name: string;
  version: number;
  value: Record<string, unknown>;
  created: AuditStamp;
  systemMetadata: Record<string, unknown> | null;
}

/**
 * An entity `writes/lock` locked and read. What the lock is asked for and what it returns of each stored aspect (`A`),
 * like what `writes/apply` takes, belong to the planner (src/services/write-path/plan.ts): the store passes them through.
 */
export interface LockedEntity<A> {
  urn: string;
  /** The entity node's element id in this transaction: `apply` finds the node by it (no index seek). */
  node: string;
  rev: number;
  /** The rev before this write's lock bumped it (null: none). */
  previousRev: number | null;
  created: boolean;
  /** Flagged a placeholder (an edge target with no aspects of its own, until a write gives it some). */
  placeholder: boolean;
  aspects: A[];
}

/** Parameters of `writes/lock` (`$group.entities`): one entry per entity, in the order the locks are taken. */
export type LockParams = readonly { urn: string }[];

/** Parameters of `writes/apply` (`$plan`): one list per stage. */
export type ApplyParams = Record<string, unknown[]>;

/**
 * The planning step of a write transaction: from what the lock found, everything the group writes and what it answers.
 * It runs inside Neo4j's transaction function, which the driver runs again on a transient error: it must be pure (no
 * state kept between calls; the last call's plan is the one that committed).
 */
export type PlanLocked<A, T> = (locked: Map<string, LockedEntity<A>>) => { plan: ApplyParams; result: T };

/**
 * How a write transaction ended, for the write path's publish stage: committed with its result, or failed (it may
 * still have committed). `peers`: the processes every attempt found serving cached reads, which must be told either way.
 */
export type GroupTransaction<T> = { committed: true; result: T; peers: Peer[] } | { committed: false; error: unknown; peers: Peer[] };

type RelationshipRead = { urn: string; types: string[]; start: number; count: number };

export interface Relationship {
  type: string;
  entity: string;
}

/** A row of the relationship statements: `type|urn` (a relationship type has no `|`). */
function toRelationship(row: string): Relationship {
  const bar = row.indexOf('|');
  return { type: row.slice(0, bar), entity: row.slice(bar + 1) };
}

/** Entity revisions never fall below the clock in microseconds, so they keep growing across delete and re-create. */
function revFloor(nowMs: number): number {
  return Math.floor(nowMs) * 1000;
}

/** The rev a write at `nowMs` gives an entity whose rev was `previousRev` (what `writes/lock` sets). */
export function nextRev(previousRev: number, nowMs: number): number {
  return previousRev >= revFloor(nowMs) ? previousRev + 1 : revFloor(nowMs);
}

/**
 * An entity a group planned from a state kept since this process last wrote it (`writes/apply` with `known`): `apply`
 * locks the node, writes only if its rev is still `rev`, and gives it `next`.
 */
export interface KnownEntityLock {
  urn: string;
  node: string;
  rev: number;
  next: number;
}

/** How a group planned from known states ended: applied, not applied (a known state was stale), or failed. */
export type KnownGroupTransaction = { applied: true; peers: Peer[] } | { applied: false; error?: unknown };

type PeerRow = { id: string; url: string; token: string; waitMs: unknown };

function toPeer(p: PeerRow): Peer {
  return { id: p.id, url: p.url, token: p.token, waitMs: p.waitMs === null ? null : Number(p.waitMs) };
}

function parseJson(text: unknown): Record<string, unknown> | null {
  return typeof text === 'string' ? (JSON.parse(text) as Record<string, unknown>) : null;
}

/** An aspect row of a Neo4j record (or of a map in one), its JSON not parsed yet: what the read cache keeps. */
function rowOf(r: { get(key: string): unknown }): StoredAspectRow {
  return {
    name: r.get('name') as string,
    value: (r.get('value') as string | null) ?? null,
    createdTime: Number(r.get('createdTime') ?? 0),
    createdActor: String(r.get('createdActor') ?? ''),
    systemMetadata: (r.get('systemMetadata') as string | null) ?? null,
  };
}

function fromRow(row: StoredAspectRow, version: number): StoredAspect {
  return {
    name: row.name,
    version,
    value: parseJson(row.value) ?? {},
    created: { time: row.createdTime, actor: row.createdActor },
    systemMetadata: parseJson(row.systemMetadata),
  };
}

function toStored(r: { get(key: string): unknown }, version: number): StoredAspect {
  return fromRow(rowOf(r), version);
}

/** A write group rolled back because tokens its requests came with are revoked (`jtis`; empty: none is any more). */
export class RevokedTokensError extends Error {
  constructor(readonly jtis: string[]) {
    super(`Access tokens revoked: ${jtis.join(', ')}`);
  }
}

/** Versioned aspects, entities and projected edges in Neo4j. Statements live in cypher/aspects.cypher. */
export class AspectStore {
  /**
   * `outboxNamespace` tags the outbox entries every write leaves for the search indexer. `coherence` decides what reads
   * may serve from the cache, and which peer processes every write transaction must find (ReadCoherence).
   */
  constructor(
    private readonly neo4j: Neo4jExecutor,
    private readonly outboxNamespace: string,
    private readonly coherence: ReadCoherence | null = null,
  ) {}

  private statement(name: StatementName): string {
    return this.neo4j.cypher.get(name);
  }

  /**
   * Runs a write group in a transaction and rolls it back: planning the statements cold takes about a second, which the
   * first writes of a fresh service would otherwise spend queued. (Parameters must have the shapes of real ones: Neo4j
   * keys its plan cache by parameter types; the planner provides them, `rehearsalGroup` in write-path/plan.ts.)
   */
  async prepareWrites<A>(rehearsal: { requests: LockParams; plan: (locked: Map<string, LockedEntity<A>>) => ApplyParams; now: number }): Promise<void> {
    await this.neo4j.rehearse('ingest.prepare', (tx) => this.applyGroup(tx, rehearsal.requests, rehearsal.now, (locked: Map<string, LockedEntity<A>>) => ({ plan: rehearsal.plan(locked), result: null }), new Map()));
  }

  /**
   * One group of writes in one transaction: locks and reads the entities (`writes/lock`), lets `planLocked` decide
   * everything in memory, then applies the plan with a fixed set of UNWIND statements (`writes/apply`). Never throws:
   * a failed transaction is answered as such, with the peers its attempts found, for the publish stage.
   * `outboxClaimUntil`: the lease the group's outbox entries are written with, 0 for none (a lease taken for this
   * process's indexer, which is handed the entries at commit: nobody claims them until it runs out).
   */
  async writeGroup<A, T>(requests: LockParams, now: number, timeoutMs: number, planLocked: PlanLocked<A, T>, outboxClaimUntil = 0, tokens: string[] = []): Promise<GroupTransaction<T>> {
    // Every attempt's peers: an attempt whose commit failed may still have committed.
    const peers = new Map<string, Peer>();
    try {
      const result = await this.neo4j.write('ingest.group', (tx) => this.applyGroup(tx, requests, now, planLocked, peers, outboxClaimUntil, tokens), timeoutMs);
      return { committed: true, result, peers: [...peers.values()] };
    } catch (error) {
      return { committed: false, error, peers: [...peers.values()] };
    }
  }

  /** `tokens`: ids of the tokens the group's requests came with; one revoked rolls it back (RevokedTokensError). */
  private async applyGroup<A, T>(
    tx: ManagedTransaction,
    requests: LockParams,
    now: number,
    planLocked: PlanLocked<A, T>,
    peers: Map<string, Peer> | null,
    outboxClaimUntil = 0,
    tokens: string[] = [],
  ): Promise<T> {
    const records = (await tx.run(this.statement('writes/lock'), { group: { entities: requests }, now, revFloor: revFloor(now) })).records;
    const locked = new Map<string, LockedEntity<A>>();
    for (const r of records) {
      locked.set(r.get('urn'), { urn: r.get('urn'), node: r.get('node'), rev: Number(r.get('rev')), previousRev: r.get('previousRev') === null ? null : Number(r.get('previousRev')), created: Boolean(r.get('created')), placeholder: Boolean(r.get('placeholder')), aspects: r.get('aspects') as A[] });
    }
    const { plan, result } = planLocked(locked);
    // The whole plan in one statement: each statement costs Neo4j and the driver about as much again as a small write.
    // It also reads the peer processes to tell, whenever the lock bumped a rev, and checks the tokens.
    const peersOf = peers ? (this.coherence?.peersOf() ?? null) : null;
    if (Object.values(plan).some((list) => list.length > 0) || (peersOf !== null && records.length > 0)) {
      const applied = await tx.run(this.statement('writes/apply'), { plan: { ...plan, known: [], peersOf, tokens }, now, ns: this.outboxNamespace, claimUntil: outboxClaimUntil });
      // With nothing known to be stale, only a revoked token makes `apply` write nothing.
      if (applied.records.length === 0 && tokens.length > 0) throw new RevokedTokensError(await this.revokedAmong(tx, tokens));
      for (const p of (applied.records[0]?.get('peers') ?? []) as PeerRow[]) peers!.set(p.id, toPeer(p));
    } else if (tokens.length > 0) {
      const revoked = await this.revokedAmong(tx, tokens);
      if (revoked.length > 0) throw new RevokedTokensError(revoked);
    }
    return result;
  }

  private async revokedAmong(tx: ManagedTransaction, jtis: string[]): Promise<string[]> {
    const result = await tx.run(this.statement('tokens/revokedAmong'), { jtis });
    return result.records.map((r) => r.get('jti') as string);
  }

  /**
   * A group planned from known states (`known`, every entity it writes) in one auto-commit statement: `writes/apply`
   * locks them and writes only if none has changed since and none of `tokens` is revoked. Never throws.
   */
  async writeKnownGroup(known: KnownEntityLock[], plan: ApplyParams, now: number, timeoutMs: number, outboxClaimUntil = 0, tokens: string[] = []): Promise<KnownGroupTransaction> {
    try {
      const peersOf = this.coherence?.peersOf() ?? null;
      const records = await this.neo4j.query('ingest.known', 'writes/apply', { plan: { ...plan, known, peersOf, tokens }, now, ns: this.outboxNamespace, claimUntil: outboxClaimUntil }, { mode: 'WRITE', timeoutMs });
      if (records.length === 0) return { applied: false };
      return { applied: true, peers: (records[0].get('peers') as PeerRow[]).map(toPeer) };
    } catch (error) {
      return { applied: false, error };
    }
  }

  /**
   * Latest aspects of one entity; $names null = all. Reads that arrive together (in one turn of the event loop) share one
   * round trip. With a cache, a copy read earlier is served when Neo4j confirms in that round trip that the entity's rev
   * is unchanged; the aspects then do not travel (they are parsed from the copy's JSON, as from Neo4j's).
   */
  latest(urn: string, names: string[] | null): Promise<StoredAspect[]> {
    return this.latestReads.load({ urn, names });
  }

  private readonly latestReads = this.coalesced((reads: readonly LatestRead[]) => this.readLatest(reads));

  /**
   * Reads of one statement that arrive in the same turn of the event loop (every request whose bytes came in one poll,
   * not only one callback's) go to Neo4j as one UNWIND statement: one round trip and one transaction for all of them.
   * Each read is still sent after it was asked for, so it sees every write acknowledged before.
   */
  private coalesced<K, V>(batch: (reads: readonly K[]) => Promise<V[]>): DataLoader<K, V> {
    return new DataLoader<K, V>(batch, { cache: false, maxBatchSize: 100, batchScheduleFn: (run) => setImmediate(run) });
  }

  private async readLatest(reads: readonly LatestRead[]): Promise<StoredAspect[][]> {
    const read = this.coherence?.beforeRead(reads);
    const results: StoredAspect[][] = reads.map((_, i) => read?.served[i]?.map((row) => fromRow(row, 0)) ?? []);
    const pending = reads.map((_, i) => i).filter((i) => !read?.served[i]);
    if (pending.length === 0) return results;
    try {
      const items = pending.map((i) => ({ key: i, urn: reads[i].urn, names: reads[i].names, knownRev: read?.knownRev(i) ?? -1 }));
      const records = await this.neo4j.query('retrieval.latest', 'aspects/latestUnlessRev', { items });
      const found = new Set<number>();
      for (const record of records) {
        const i = record.get('key') as number;
        const rev = record.get('rev') as number | null;
        found.add(i);
        const fresh = () => (record.get('aspects') as Record<string, unknown>[]).map((a) => rowOf({ get: (k: string) => a[k] }));
        results[i] = (read ? read.answered(i, rev, fresh) : fresh()).map((row) => fromRow(row, 0));
      }
      for (const i of pending) if (!found.has(i)) read?.absent(i);
      return results;
    } finally {
      read?.end();
    }
  }

  /** Latest aspect values of many entities in one round trip (search indexing, restore, metadata tests). */
  async latestMany(
    urns: string[],
    names: string[] | null,
  ): Promise<Map<string, { rev: number; entityType: string; aspects: Map<string, Record<string, unknown>> }>> {
    const records = await this.neo4j.query('retrieval.latestMany', 'aspects/latestMany', { urns, names });
    const out = new Map<string, { rev: number; entityType: string; aspects: Map<string, Record<string, unknown>> }>();
    for (const r of records) {
      const aspects = new Map<string, Record<string, unknown>>();
      for (const a of r.get('aspects') as { name: string; value: string }[]) aspects.set(a.name, JSON.parse(a.value));
      out.set(r.get('urn'), { rev: Number(r.get('rev')), entityType: r.get('entityType'), aspects });
    }
    return out;
  }

  /** The subset of URNs that are stored entities. */
  async existing(urns: string[]): Promise<Set<string>> {
    if (urns.length === 0) return new Set();
    const records = await this.neo4j.query('search.existing', 'aspects/existing', { urns });
    return new Set(records.map((r) => r.get('urn') as string));
  }

  /** 0 = latest; n > 0 = history version n; n < 0 = n-th most recent history version. null when absent. */
  async version(urn: string, name: string, version: number): Promise<StoredAspect | null> {
    return this.neo4j.read('retrieval.version', async (tx) => {
      let exact = version;
      if (version < 0) {
        const top = (await tx.run(this.statement('aspects/maxHistoryVersion'), { urn, name })).records[0]?.get('top');
        if (top === null || top === undefined) return null;
        exact = Number(top) + 1 + version;
        if (exact < 1) return null;
      }
      const record = (await tx.run(this.statement('aspects/exactVersion'), { urn, name, version: neo4j.int(exact) })).records[0];
      return record ? toStored({ get: (k: string) => (k === 'name' ? name : record.get(k)) }, exact) : null;
    });
  }

  async historyVersions(urn: string, name: string): Promise<{ version: number; value: Record<string, unknown> }[]> {
    const records = await this.neo4j.query('retrieval.history', 'aspects/historyVersions', { urn, name });
    return records.map((r) => ({ version: Number(r.get('version')), value: JSON.parse(r.get('value')) }));
  }

  /**
   * One page of an entity's edges; requests that arrive together share one round trip. With unchecked reads, a page
   * read before is served without asking (see RelationshipPageCache).
   */
  async relationships(urn: string, direction: 'INCOMING' | 'OUTGOING', types: string[], start: number, count: number): Promise<{ total: number; relationships: Relationship[] }> {
    const read = this.coherence?.beforeRelationshipRead(RelationshipPageCache.key(direction, urn, types, start, count));
    const page = read?.served ?? (await (direction === 'OUTGOING' ? this.outgoingReads : this.incomingReads).load({ urn, types, start, count }));
    if (read && !read.served) read.answered(page);
    // Each read gets its own objects: a caller may change its page.
    return { total: page.total, relationships: page.rows.map(toRelationship) };
  }

  private readonly outgoingReads = this.coalesced((r: readonly RelationshipRead[]) => this.relationshipPages('relationships/outgoingMany', r));
  private readonly incomingReads = this.coalesced((r: readonly RelationshipRead[]) => this.relationshipPages('relationships/incomingMany', r));

  /**
   * Identical reads that arrived together are asked once: under load most of a batch asks for the same few hot pages
   * (bench/read.ts at 32 clients: 8 reads of 2.3 distinct entities per batch), and each costs Neo4j every edge of the
   * entity, not just the page. Every read still gets an answer read after it was asked for.
   */
  private async relationshipPages(statement: StatementName, reads: readonly RelationshipRead[]): Promise<CachedRelationshipPage[]> {
    const keyOf = new Map<string, number>();
    const items: { key: number; urn: string; types: string[]; start: Integer; count: Integer }[] = [];
    const itemOf = reads.map((r) => {
      const id = `${r.start}\n${r.count}\n${[...r.types].sort().join(',')}\n${r.urn}`;
      let key = keyOf.get(id);
      if (key === undefined) {
        keyOf.set(id, (key = items.length));
        items.push({ key, urn: r.urn, types: r.types, start: neo4j.int(r.start), count: neo4j.int(r.count) });
      }
      return key;
    });
    const records = await this.neo4j.query('retrieval.relationships', statement, { items });
    const answers: CachedRelationshipPage[] = items.map(() => ({ total: 0, rows: [] }));
    for (const record of records) answers[record.get('key') as number] = { total: Number(record.get('total')), rows: record.get('page') as string[] };
    return itemOf.map((key) => answers[key]);
  }

}
