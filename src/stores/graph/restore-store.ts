import neo4j from 'neo4j-driver';
import type { Neo4jStore } from './neo4j';

export interface RestorePageQuery {
  urn: string | null;
  aspect: string | null;
  /** Anchored regular expression of the urn pattern, null for none. */
  urnRegex: string | null;
  /** Urns in [from, to) only: the range the urn index seeks. */
  from: string;
  to: string;
  /** Keyset cursor: this urn is excluded ('' = none); pass it as `from` too. */
  after: string;
  skip: number;
  limit: number;
}

export interface RestoreEntity {
  urn: string;
  rev: number;
  entityType: string;
  aspects: { name: string; value: string; hash: string }[];
}

export interface EdgeRewrite {
  urn: string;
  aspect: string;
  /** Hash of the aspect value the edges were derived from; the rewrite is skipped when the aspect changed since. */
  hash: string;
  edges: { type: string; target: string; targetType: string }[];
}

/** Reads for restoreIndices and the edge rewrite it does (cypher/restore.cypher). */
export class RestoreStore {
  constructor(private readonly neo4j: Neo4jStore) {}

  async page(query: RestorePageQuery): Promise<RestoreEntity[]> {
    const records = await this.neo4j.query('operations.restore.page', 'restore/page', {
      ...query,
      skip: neo4j.int(query.skip),
      limit: neo4j.int(query.limit),
    });
    return records.map((r) => ({
      urn: r.get('urn') as string,
      rev: Number(r.get('rev') ?? 0),
      entityType: r.get('entityType') as string,
      aspects: r.get('aspects') as RestoreEntity['aspects'],
    }));
  }

  /** Returns how many rows were applied (the others changed meanwhile) and how many edges they hold. */
  async rewriteEdges(rows: EdgeRewrite[], now: number): Promise<{ applied: number; edges: number }> {
    if (rows.length === 0) return { applied: 0, edges: 0 };
    const byUrn = new Map<string, { urn: string; aspects: unknown[] }>();
    for (const r of rows) {
      const entry = byUrn.get(r.urn) ?? { urn: r.urn, aspects: [] };
      entry.aspects.push({ aspect: r.aspect, hash: r.hash, edges: r.edges, edgeKeys: r.edges.map((e) => `${e.type}|${e.target}`) });
      byUrn.set(r.urn, entry);
    }
    const params = [...byUrn.values()];
    return this.neo4j.write('operations.restore.rewriteEdges', async (tx) => {
      const record = (await tx.run(this.neo4j.cypher.get('restore/rewriteEdges'), { rows: params, now })).records[0];
      return { applied: Number(record?.get('applied') ?? 0), edges: Number(record?.get('edges') ?? 0) };
    });
  }
}
