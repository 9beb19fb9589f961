import type { Record as Neo4jRecord } from 'neo4j-driver';
import type { Neo4jExecutor } from './neo4j-executor';
import type { StatementName } from './statements.generated';

/** The Neo4j read of the search deleted-hit guard (cypher/search.cypher). */
export class DeletedHitsStore {
  constructor(
    private readonly neo4j: Neo4jExecutor,
    private readonly timeoutMs = 30_000,
  ) {}

  /** The subset of URNs that are entities with at least one aspect. */
  async existing(urns: string[]): Promise<Set<string>> {
    if (urns.length === 0) return new Set();
    const records = await this.run('search.existing', 'search/existing', { urns });
    return new Set(records.map((r) => r.get('urn') as string));
  }

  /** On the leader (WRITE mode), which has every committed delete; one auto-commit round trip. */
  private run(caller: string, statement: StatementName, params: Record<string, unknown>): Promise<Neo4jRecord[]> {
    return this.neo4j.query(caller, statement, params, { mode: 'WRITE', timeoutMs: this.timeoutMs });
  }
}
