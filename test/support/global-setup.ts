import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Starts the real local stack once per test run (Neo4j, OpenSearch, Elasticsearch), unless addresses are given:
 * TEST_NEO4J_URI, TEST_OPENSEARCH_URL, TEST_ELASTICSEARCH_URL. Workers read the addresses from the environment.
 */
export default async function globalSetup(): Promise<void> {
  // Service processes (serviceProcess) run the compiled build, as the Docker image does.
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: join(__dirname, '..', '..'), stdio: ['ignore', 'ignore', 'inherit'] });
  const given = process.env.TEST_NEO4J_URI && process.env.TEST_OPENSEARCH_URL;
  if (given) return;
  const { startServers } = await import('../../stack');
  const root = join(__dirname, '..', '..', '.stack', 'test');
  const servers = await startServers({
    root,
    servers: ['neo4j', 'opensearch', 'elasticsearch'],
    persistent: false,
    log: (line: string) => process.stderr.write(`[stack] ${line}\n`),
  });
  process.env.TEST_STACK_ROOT = root;
  process.env.TEST_NEO4J_URI = servers.neo4j.url;
  process.env.TEST_OPENSEARCH_URL = servers.opensearch.url;
  process.env.TEST_ELASTICSEARCH_URL = servers.elasticsearch.url;
  process.env.TEST_STACK_STARTED = '1';
}
