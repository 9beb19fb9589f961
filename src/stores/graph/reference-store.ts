import type { Neo4jExecutor } from './neo4j-executor';

/** One reference to an entity: an edge `relationship` from `entity`, projected from its aspect `aspect`. */
export interface Reference {
  relationship: string;
  entity: string;
  aspect: string;
}

/** Reads the references to an entity (cypher/references.cypher). */
export class ReferenceStore {
  constructor(private readonly neo4j: Neo4jExecutor) {}

  /** On the leader (WRITE mode), which has every committed write: the references just removed must not reappear. */
  async incoming(urn: string): Promise<Reference[]> {
    const records = await this.neo4j.query('references.incoming', 'references/incoming', { urn }, { mode: 'WRITE' });
    return records.map((r) => ({ relationship: r.get('relationship') as string, entity: r.get('entity') as string, aspect: r.get('aspect') as string }));
  }
}
