import { testInfo } from '../../model/aspects';
import type { Neo4jExecutor } from './neo4j-executor';

export interface StoredTestInfo {
  urn: string;
  /** The latest testInfo aspect value. */
  value: Record<string, unknown>;
}

/** Reads metadata-test definitions. Statements live in cypher/tests.cypher. */
export class TestStore {
  constructor(
    private readonly neo4j: Neo4jExecutor,
    private readonly testType = 'test',
  ) {}

  /** The testInfo of every test, or of the given test URNs only (unknown ones are simply absent); one round trip. */
  async testInfos(urns: string[] | null): Promise<StoredTestInfo[]> {
    const records = urns
      ? await this.neo4j.query('tests.definitionsByUrn', 'tests/definitionsByUrn', { urns, testType: this.testType, testInfoAspect: testInfo.name })
      : await this.neo4j.query('tests.allDefinitions', 'tests/allDefinitions', { testType: this.testType, testInfoAspect: testInfo.name });
    return records.map((r) => ({ urn: r.get('urn') as string, value: JSON.parse(r.get('value') as string) as Record<string, unknown> }));
  }
}
