import neo4j from 'neo4j-driver';
import { ConcurrentDeleteError, type Neo4jStore } from './neo4j';

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

export interface AspectWrite {
  urn: string;
  entityType: string;
  name: string;
  /** Serialized value and its canonical hash (equal hash = unchanged). */
  value: string;
  hash: string;
  actor: string;
  now: number;
  systemMetadata: string;
  retention: number;
  edges: { type: string; target: string; targetType: string; isLineage: boolean }[];
  /** Aspects created only when the entity lacks them (key aspect, default browse paths). */
  defaults: { name: string; value: string; hash: string }[];
  /** Column-level lineage: DownstreamOf edges between schemaField nodes, owned by this entity and aspect. */
  columnEdges?: { source: string; target: string }[];
}

/**
 * A PATCH: `build` turns the aspect's current value (null = absent) into the write, inside the transaction, after the
 * entity is locked, so the read-modify-write is atomic.
 */
export interface PatchWrite {
  urn: string;
  entityType: string;
  name: string;
  now: number;
  build: (current: Record<string, unknown> | null) => AspectWrite;
}

function isPatch(w: AspectWrite | PatchWrite): w is PatchWrite {
  return 'build' in w;
}

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
  /** `outboxNamespace` tags the outbox entries every write leaves for the search indexer. */
  constructor(
    private readonly neo4j: Neo4jStore,
    private readonly outboxNamespace: string,
  ) {}

  private statement(name: string): string {
    return this.neo4j.cypher.get(name);
  }

  /** Writes proposals, all in one transaction; returns per proposal whether it changed anything. */
  async upsert(writes: (AspectWrite | PatchWrite)[]): Promise<{ unchanged: boolean; rev: number }[]> {
    const text = this.statement('aspects/upsert');
    const params = (w: AspectWrite) => {
      const columnEdges = w.columnEdges ?? [];
      return {
        ...w,
        columnEdges,
        columnEdgeKeys: columnEdges.map((c) => `${c.source}|${c.target}`),
        edgeKeys: w.edges.map((e) => `${e.type}|${e.target}`),
        revFloor: revFloor(w.now),
        ns: this.outboxNamespace,
      };
    };
    return this.neo4j.write('ingest.upsert', async (tx) => {
      let results;
      if (writes.some(isPatch)) {
        // A patch reads what the writes before it left: one statement after the other.
        results = [];
        for (const w of writes) {
          let write: AspectWrite;
          if (isPatch(w)) {
            const locked = await tx.run(this.statement('aspects/lockForPatch'), { urn: w.urn, name: w.name, entityType: w.entityType, now: w.now });
            write = w.build(parseJson(locked.records[0]?.get('value')));
          } else {
            write = w;
          }
          results.push(await tx.run(text, params(write)));
        }
      } else {
        // Pipelined: the statements still run one after the other, in order, in this transaction, but without a round
        // trip each (a batch of 1,000 proposals would otherwise spend most of its time waiting on the network).
        results = await Promise.all((writes as AspectWrite[]).map((w) => tx.run(text, params(w))));
      }
      return results.map((result, i) => {
        const record = result.records[0];
        // No row: the entity matched by MERGE was hard-deleted by a concurrent transaction (the write is retried).
        if (!record) throw new ConcurrentDeleteError(`${writes[i].urn} was deleted while ${writes[i].name} was written`);
        return { unchanged: Boolean(record.get('unchanged')), rev: Number(record.get('rev')) };
      });
    });
  }

  async deleteAspect(urn: string, name: string, now: number): Promise<number> {
    return this.neo4j.write('ingest.deleteAspect', async (tx) => {
      const result = await tx.run(this.statement('aspects/deleteAspect'), { urn, name, now, revFloor: revFloor(now), ns: this.outboxNamespace });
      return Number(result.records[0]?.get('rows') ?? 0);
    });
  }

  async deleteEntity(urn: string, now: number): Promise<number> {
    return this.neo4j.write('ingest.deleteEntity', async (tx) => {
      const result = await tx.run(this.statement('aspects/deleteEntity'), { urn, now, revFloor: revFloor(now), ns: this.outboxNamespace });
      return Number(result.records[0]?.get('rows') ?? 0);
    });
  }

  async latest(urn: string, names: string[] | null): Promise<StoredAspect[]> {
    const records = await this.neo4j.query('retrieval.latest', 'aspects/latest', { urn, names });
    return records.map((r) => toStored(r, 0));
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

  async relationships(
    urn: string,
    direction: 'INCOMING' | 'OUTGOING',
    types: string[],
    start: number,
    count: number,
  ): Promise<{ total: number; relationships: Relationship[] }> {
    const statement = direction === 'OUTGOING' ? 'relationships/outgoing' : 'relationships/incoming';
    const records = await this.neo4j.query('retrieval.relationships', statement, { urn, types, start: neo4j.int(start), count: neo4j.int(count) });
    const record = records[0];
    if (!record) return { total: 0, relationships: [] };
    return { total: Number(record.get('total')), relationships: record.get('page') as Relationship[] };
  }
}
