import neo4j from 'neo4j-driver';
import type { Neo4jExecutor } from './neo4j-executor';

/** The deepest chain of parents read (DataHub's parent resolvers stop at a bound too). */
const MAX_DEPTH = 20;

/** Reads entities' chains of parents along IsPartOf edges, and their siblings (cypher/hierarchy.cypher). */
export class HierarchyStore {
  constructor(private readonly neo4j: Neo4jExecutor) {}

  /** Per urn, its parents nearest first through edges projected by `aspects`; an urn not stored has none. */
  async parents(urns: string[], aspects: string[]): Promise<Map<string, string[]>> {
    if (urns.length === 0) return new Map();
    const records = await this.neo4j.query('hierarchy.parents', 'hierarchy/parents', { urns, aspects, maxDepth: MAX_DEPTH });
    return new Map(records.map((r) => [r.get('urn') as string, r.get('parents') as string[]]));
  }

  /** Up to `limit` entities directly under `urn` through edges projected by `aspects`. */
  async children(urn: string, aspects: string[], limit: number): Promise<string[]> {
    const records = await this.neo4j.query('hierarchy.children', 'hierarchy/children', { urn, aspects, limit: neo4j.int(limit) });
    return records.map((r) => r.get('urn') as string);
  }

  /** Per urn, its siblings in either direction (SiblingOf edges), not soft-deleted, by urn. */
  async siblings(urns: string[]): Promise<Map<string, string[]>> {
    if (urns.length === 0) return new Map();
    const records = await this.neo4j.query('hierarchy.siblings', 'hierarchy/siblings', { urns });
    return new Map(records.map((r) => [r.get('urn') as string, r.get('siblingUrns') as string[]]));
  }
}
