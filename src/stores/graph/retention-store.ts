import neo4j from 'neo4j-driver';
import type { Neo4jExecutor } from './neo4j-executor';

/** An entity of a page of applyRetention, with its latest aspects that have history. */
export interface EntityHistory {
  urn: string;
  entityType: string;
  aspects: { name: string; history: number }[];
}

/** What one aspect's history keeps: the `keep` newest versions (null: any number), none superseded before `horizon`. */
export interface TrimTarget {
  urn: string;
  name: string;
  keep: number | null;
  horizon: number | null;
}

/** Retention applied to history already stored (cypher/retention.cypher). */
export class RetentionStore {
  constructor(private readonly neo4j: Neo4jExecutor) {}

  /** Entities [start, start + count) in urn order (only `urn` when set), with their aspects that have history (only `aspect`). */
  async historyPage(start: number, count: number, urn: string | null, aspect: string | null): Promise<EntityHistory[]> {
    const records = await this.neo4j.query('retention.historyPage', 'retention/historyPage', { start: neo4j.int(start), count: neo4j.int(count), urn, aspect });
    return records.map((r) => ({
      urn: r.get('urn') as string,
      entityType: r.get('type') as string,
      aspects: (r.get('aspects') as { name: string; history: unknown }[]).map((a) => ({ name: a.name, history: Number(a.history) })),
    }));
  }

  /** Trims the targets' history in one transaction; the number of versions deleted. */
  async trim(targets: TrimTarget[]): Promise<number> {
    if (targets.length === 0) return 0;
    return this.neo4j.write('retention.trim', async (tx) => {
      const result = await tx.run(this.neo4j.cypher.get('retention/trim'), { targets });
      return Number(result.records[0]?.get('deleted') ?? 0);
    });
  }
}
