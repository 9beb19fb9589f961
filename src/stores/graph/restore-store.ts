import neo4j from 'neo4j-driver';
import type { Neo4jExecutor } from './neo4j-executor';

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
  /** The edges its aspects own now, `aspect|type|target`. */
  edges: string[];
  /** The column edges its aspects own now, `aspect|source|target`. */
  columnEdges: string[];
}

/** Reads for restoreIndices (cypher/restore.cypher); its edges are rewritten through the write path. */
export class RestoreStore {
  constructor(private readonly neo4j: Neo4jExecutor) {}

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
      edges: r.get('edges') as string[],
      columnEdges: r.get('columnEdges') as string[],
    }));
  }
}
