import neo4j, { type Record as Neo4jRecord } from 'neo4j-driver';
import { translateNeo4jError, type Neo4jStore } from './neo4j';

/** The Neo4j reads of the search deleted-hit guard (cypher/search.cypher). */
export class DeletedHitsStore {
  /** `ns` is the index set (SEARCH_INDEX_PREFIX) whose outbox is read. */
  constructor(
    private readonly neo4j: Neo4jStore,
    private readonly ns: string,
    private readonly timeoutMs = 30_000,
  ) {}

  /** Entities deleted in Neo4j whose outbox entry is still there; `complete` is false when more than `limit` entries wait. */
  async deletions(limit: number): Promise<{ deleted: Set<string>; complete: boolean }> {
    const records = await this.run('search.deletions', 'search/deletions', { ns: this.ns, limit: neo4j.int(limit) });
    const record = records[0];
    return { deleted: new Set((record?.get('deleted') as string[] | undefined) ?? []), complete: Number(record?.get('scanned') ?? 0) < limit };
  }

  /** The subset of URNs that are entities with at least one aspect. */
  async existing(urns: string[]): Promise<Set<string>> {
    if (urns.length === 0) return new Set();
    const records = await this.run('search.existing', 'search/existing', { urns });
    return new Set(records.map((r) => r.get('urn') as string));
  }

  /**
   * One auto-commit statement: one round trip, where a transaction function adds BEGIN and COMMIT (the COMMIT's own
   * socket write was the largest single cost of a search in the service's profile). Write access mode: in a cluster
   * the leader answers, which has every committed delete. Without the driver's eager call-site stack (see neo4j.ts).
   */
  private async run(caller: string, statement: string, params: Record<string, unknown>): Promise<Neo4jRecord[]> {
    const session = this.neo4j.driver.session({ database: this.neo4j.database, defaultAccessMode: neo4j.session.WRITE });
    const limit = Error.stackTraceLimit;
    try {
      Error.stackTraceLimit = 0;
      const result = session.run(this.neo4j.cypher.get(statement), params, { timeout: this.timeoutMs, metadata: { app: 'graph-metadata-service', caller } });
      Error.stackTraceLimit = limit;
      return (await result).records;
    } catch (err) {
      throw translateNeo4jError(err);
    } finally {
      Error.stackTraceLimit = limit;
      await session.close().catch(() => undefined);
    }
  }
}
