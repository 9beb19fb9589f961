import DataLoader from 'dataloader';
import neo4j from 'neo4j-driver';
import type { ManagedTransaction } from 'neo4j-driver';
import { UnavailableError } from '../../model/errors';
import { LatestAspectCache } from './latest-aspect-cache';
import type { Neo4jStore } from './neo4j';
import type { Peer, ProcessLease } from './process-lease';

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

/** An entity a write group locks, and which of its stored aspects it needs to see. */
export interface LockRequest {
  urn: string;
  entityType: string;
  /** Create the entity when absent (upserts); deletes only lock what exists. */
  create: boolean;
  /** Return every stored aspect (entity deletes), else only `names`. */
  all: boolean;
  names: string[];
  /** Aspects whose stored value is returned too (patches). */
  values: string[];
  /** Aspects whose owned column-level lineage edges are returned too. */
  columns: string[];
}

export interface StoredAspectState {
  name: string;
  hash: string;
  /** Highest history version (0: none) and how many there are. */
  top: number;
  history: number;
  value: string | null;
  /** Edges the latest value projects, as "<type>|<target urn>". */
  edges: string[];
  /** Column-level lineage edges the aspect owns, as "<source field urn>|<target field urn>". */
  columnEdges: string[];
}

export interface LockedEntity {
  urn: string;
  rev: number;
  /** The rev before this write's lock bumped it (null: none). */
  previousRev: number | null;
  created: boolean;
  aspects: StoredAspectState[];
}

export interface AspectValue {
  value: string;
  hash: string;
  createdTime: number;
  createdActor: string;
}

/** What a group writes: one list per stage of cypher/writes.cypher `apply`. */
export interface GroupPlan {
  wipes: { urn: string; names: string[] | null }[];
  rows: {
    urn: string;
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
  removeEdges: { urn: string; aspect: string; type: string; target: string }[];
  targets: { urn: string; type: string }[];
  createEdges: { urn: string; aspect: string; type: string; target: string; isLineage: boolean }[];
  removeColumnEdges: { owner: string; aspect: string; source: string; target: string }[];
  createColumnEdges: { owner: string; aspect: string; source: string; target: string }[];
  /** `markers`: pending-delete markers the outbox entry keeps until the indexer has applied it. */
  entities: { urn: string; changed: boolean; hasAspects: boolean; wiped: boolean; markers: string[] }[];
}

/** Tells other service processes which entities a write changed, before it is acknowledged (src/stores/peers). */
export interface PeerNotifier {
  notify(peers: Iterable<Peer>, urns: readonly string[]): Promise<void>;
}

type LatestRead = { urn: string; names: string[] | null };
type RelationshipRead = { urn: string; types: string[]; start: number; count: number };

export interface Relationship {
  type: string;
  entity: string;
}

/** Entity revisions never fall below the clock in microseconds, so they keep growing across delete and re-create. */
function revFloor(nowMs: number): number {
  return Math.floor(nowMs) * 1000;
}

function parseJson(text: unknown): Record<string, unknown> | null {
  return typeof text === 'string' ? (JSON.parse(text) as Record<string, unknown>) : null;
}

function toStored(r: { get(key: string): unknown }, version: number): StoredAspect {
  return {
    name: r.get('name') as string,
    version,
    value: parseJson(r.get('value')) ?? {},
    created: { time: Number(r.get('createdTime') ?? 0), actor: String(r.get('createdActor') ?? '') },
    systemMetadata: parseJson(r.get('systemMetadata')),
  };
}

/** Versioned aspects, entities and projected edges in Neo4j. Statements live in cypher/aspects.cypher. */
export class AspectStore {
  /**
   * `outboxNamespace` tags the outbox entries every write leaves for the search indexer. With a `lease`, cached reads
   * are served unchecked while it allows, and every write tells the peers its transaction found (`peers`) before it
   * is acknowledged.
   */
  constructor(
    private readonly neo4j: Neo4jStore,
    private readonly outboxNamespace: string,
    private readonly cache: LatestAspectCache | null = null,
    private readonly lease: ProcessLease | null = null,
    private readonly peers: PeerNotifier | null = null,
  ) {}

  private statement(name: string): string {
    return this.neo4j.cypher.get(name);
  }

  /**
   * Rehearses a write group that uses every write statement, on a scratch entity, and rolls it back: planning the
   * statements cold takes about a second, which the first writes of a fresh service would otherwise spend queued.
   * (Parameters must have the shapes of real ones: Neo4j keys its plan cache by parameter types.)
   */
  async prepareWrites(): Promise<void> {
    const now = Date.now();
    const urn = 'urn:li:corpuser:__write_path_rehearsal__';
    const field = (n: number) => `urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:rehearsal,t,PROD),c${n})`;
    const value = { value: '{}', hash: 'h', createdTime: now, createdActor: urn };
    const plan: GroupPlan = {
      wipes: [{ urn, names: ['a'] }, { urn, names: null }],
      rows: [
        { urn, name: 'b', copy: 1, copySystemMetadata: '{}', history: [{ ...value, version: 2, systemMetadata: '{}' }], cut: 1, horizon: now - 1000, drop: [3], stored: true, latest: value, systemMetadata: '{}', runId: 'r', lastObserved: now },
        { urn, name: 'c', copy: null, copySystemMetadata: null, history: [], cut: 0, horizon: null, drop: [], stored: false, latest: null, systemMetadata: '{}', runId: null, lastObserved: null },
      ],
      removeEdges: [{ urn, aspect: 'b', type: 'OwnedBy', target: field(0) }],
      removeColumnEdges: [{ owner: urn, aspect: 'b', source: field(1), target: field(2) }],
      targets: [{ urn: field(1), type: 'schemaField' }, { urn: field(2), type: 'schemaField' }],
      createEdges: [{ urn, aspect: 'b', type: 'OwnedBy', target: field(1), isLineage: false }],
      createColumnEdges: [{ owner: urn, aspect: 'b', source: field(1), target: field(2) }],
      entities: [{ urn, changed: true, hasAspects: true, wiped: false, markers: [] }],
    };
    const request: LockRequest = { urn, entityType: 'corpuser', create: true, all: false, names: ['b'], values: ['b'], columns: ['b'] };
    await this.neo4j.rehearse('ingest.prepare', (tx) => this.applyGroup(tx, [request], now, () => ({ plan, result: null }), new Map()));
  }

  /**
   * One group of writes in one transaction: locks and reads the entities (`writes/lock`), lets `plan` decide everything
   * in memory, then applies the plan with a fixed set of UNWIND statements. `plan` runs inside the transaction function,
   * so it may run again when the driver retries a transient error: it must not keep state between calls. Resolves once
   * every peer has dropped its copies of these entities (or can no longer serve them); `onCommitted` runs before that.
   */
  async writeGroup<T>(
    requests: LockRequest[],
    now: number,
    timeoutMs: number,
    plan: (locked: Map<string, LockedEntity>) => { plan: GroupPlan; result: T },
    onCommitted?: () => void,
  ): Promise<T> {
    // Every attempt's peers: an attempt whose commit failed may still have committed.
    const peers = new Map<string, Peer>();
    let failed = true;
    try {
      const result = await this.neo4j.write('ingest.group', (tx) => this.applyGroup(tx, requests, now, plan, peers), timeoutMs);
      failed = false;
      // Committed: what follows (telling peers) holds no lock and needs no transaction.
      onCommitted?.();
      return result;
    } finally {
      // Before the write is answered, committed or not (a failed commit may still have happened).
      const urns = requests.map((r) => r.urn);
      this.cache?.invalidate(urns);
      if (peers.size > 0) {
        const told = this.peers?.notify(peers.values(), urns);
        // A failed write reports its own error; a committed one is not acknowledged unless every peer was handled.
        if (failed) await told?.catch(() => undefined);
        else {
          await told?.catch((err) => {
            // Not a failure of the group: its units must not be written again one by one.
            throw new UnavailableError(`The write was committed, but another service process could not be told of it or revoked: ${(err as Error).message}`, 'neo4j');
          });
        }
      }
    }
  }

  private async applyGroup<T>(
    tx: ManagedTransaction,
    requests: LockRequest[],
    now: number,
    plan: (locked: Map<string, LockedEntity>) => { plan: GroupPlan; result: T },
    peers: Map<string, Peer> | null,
  ): Promise<T> {
    // Pipelined with the lock: read first in the transaction, and costs no round trip of its own.
    const peerRead = this.lease && peers ? tx.run(this.statement('processes/peers'), this.lease.peersQuery()) : null;
    const records = (await tx.run(this.statement('writes/lock'), { entities: requests, now, revFloor: revFloor(now) })).records;
    for (const r of (await peerRead)?.records ?? []) {
      const waitMs = r.get('waitMs');
      peers!.set(r.get('id'), { id: r.get('id'), url: r.get('url'), token: r.get('token'), waitMs: waitMs === null ? null : Number(waitMs) });
    }
    const locked = new Map<string, LockedEntity>();
    for (const r of records) {
      locked.set(r.get('urn'), { urn: r.get('urn'), rev: Number(r.get('rev')), previousRev: r.get('previousRev') === null ? null : Number(r.get('previousRev')), created: Boolean(r.get('created')), aspects: r.get('aspects') as StoredAspectState[] });
    }
    const { plan: p, result } = plan(locked);
    // The whole plan in one statement: each statement costs Neo4j and the driver about as much again as a small write.
    if (Object.values(p).some((list: unknown[]) => list.length > 0)) await tx.run(this.statement('writes/apply'), { ...p, now, ns: this.outboxNamespace });
    return result;
  }

  /**
   * Latest aspects of one entity; $names null = all. Reads that arrive together (in one turn of the event loop) share one
   * round trip. With a cache, a copy read earlier is served when Neo4j confirms in that round trip that the entity's rev
   * is unchanged; the aspects then neither travel nor get parsed again.
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
    const results: StoredAspect[][] = reads.map(() => []);
    const keys = reads.map((r) => LatestAspectCache.key(r.urn, r.names));
    const cached = keys.map((key) => this.cache?.get(key));
    // Copies read in this lease's epoch are current: every write, through any process, drops them before it is answered.
    const unchecked = this.lease?.unchecked() ?? false;
    const epoch = unchecked ? this.lease!.epoch : -1;
    const pending: number[] = [];
    for (let i = 0; i < reads.length; i++) {
      const copy = cached[i];
      if (unchecked && copy && copy.epoch === epoch) results[i] = [...copy.aspects];
      else pending.push(i);
    }
    if (pending.length === 0) return results;
    const ticket = this.cache?.beginRead() ?? 0;
    try {
      const items = pending.map((i) => ({ key: i, urn: reads[i].urn, names: reads[i].names, knownRev: cached[i]?.rev ?? -1 }));
      const records = await this.neo4j.query('retrieval.latest', 'aspects/latestUnlessRev', { items });
      const found = new Set<number>();
      for (const record of records) {
        const i = record.get('key') as number;
        const rev = record.get('rev') as number | null;
        found.add(i);
        // Trusted unchecked later only if the lease held throughout and no write's invalidation overtook the read.
        const trusted = unchecked && this.lease!.unchecked() && this.lease!.epoch === epoch && !this.cache?.overtaken(reads[i].urn, ticket);
        const copy = cached[i];
        if (copy && rev === copy.rev) {
          results[i] = [...copy.aspects];
          if (trusted && copy.epoch !== epoch) this.cache?.set(keys[i], { ...copy, epoch });
          continue;
        }
        let bytes = 0;
        const aspects: StoredAspect[] = [];
        for (const a of record.get('aspects') as Record<string, unknown>[]) {
          bytes += String(a.value ?? '').length + String(a.systemMetadata ?? '').length;
          aspects.push(toStored({ get: (k: string) => a[k] }, 0));
        }
        if (this.cache && typeof rev === 'number') this.cache.set(keys[i], { rev, aspects, bytes, epoch: trusted ? epoch : -1 });
        results[i] = [...aspects];
      }
      for (const i of pending) if (!found.has(i) && cached[i]) this.cache?.delete(keys[i]);
      return results;
    } finally {
      this.cache?.endRead();
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

  /** One page of an entity's edges; requests that arrive together share one round trip. */
  relationships(urn: string, direction: 'INCOMING' | 'OUTGOING', types: string[], start: number, count: number): Promise<{ total: number; relationships: Relationship[] }> {
    return (direction === 'OUTGOING' ? this.outgoingReads : this.incomingReads).load({ urn, types, start, count });
  }

  private readonly outgoingReads = this.coalesced((r: readonly RelationshipRead[]) => this.relationshipPages('relationships/outgoingMany', r));
  private readonly incomingReads = this.coalesced((r: readonly RelationshipRead[]) => this.relationshipPages('relationships/incomingMany', r));

  private async relationshipPages(statement: string, reads: readonly RelationshipRead[]): Promise<{ total: number; relationships: Relationship[] }[]> {
    const items = reads.map((r, key) => ({ key, urn: r.urn, types: r.types, start: neo4j.int(r.start), count: neo4j.int(r.count) }));
    const records = await this.neo4j.query('retrieval.relationships', statement, { items });
    const pages = reads.map(() => ({ total: 0, relationships: [] as Relationship[] }));
    for (const record of records) pages[record.get('key') as number] = { total: Number(record.get('total')), relationships: record.get('page') as Relationship[] };
    return pages;
  }

}
