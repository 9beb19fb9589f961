/**
 * Smoke test of the local stack tooling (stack/index.ts). Read-only towards the servers: it starts
 * (or reuses) neo4j + opensearch and checks that they answer; it never stops or restarts anything,
 * so it is safe next to other integration tests sharing the same servers.
 * Uses the stack root of test/support/global-setup.ts (TEST_STACK_ROOT) when set, so it shares its servers;
 * skipped when the run targets external servers (TEST_NEO4J_URI given without a stack).
 * Set STACK_TEST_ELASTICSEARCH=1 to include Elasticsearch.
 */
import { readdirSync, readFileSync } from 'node:fs';
import neo4j from 'neo4j-driver';

import { ServerName, stackStatus, startServers } from '../../stack';
import { engineNiceness } from '../../stack/servers';

/** Niceness of each thread of a process (field 19 of /proc/<pid>/task/<tid>/stat, counted after the command's parentheses). */
function threadNiceness(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

const servers: ServerName[] = ['neo4j', 'opensearch'];
if (process.env.STACK_TEST_ELASTICSEARCH === '1') servers.push('elasticsearch');

const root = process.env.TEST_STACK_ROOT;
const external = !!process.env.TEST_NEO4J_URI && !root;
if (root && process.env.TEST_ELASTICSEARCH_URL && !servers.includes('elasticsearch')) servers.push('elasticsearch');

jest.setTimeout(300_000);

(external ? describe.skip : describe)('local stack', () => {
  let infos: Awaited<ReturnType<typeof startServers>>;

  beforeAll(async () => {
    infos = await startServers({ root, servers, persistent: false });
  });

  it('neo4j answers RETURN 1 over bolt', async () => {
    expect(infos.neo4j.url).toMatch(/^bolt:\/\/127\.0\.0\.1:\d+$/);
    const driver = neo4j.driver(infos.neo4j.url);
    try {
      const res = await driver.executeQuery('RETURN 1 AS one');
      expect(res.records[0].get('one').toNumber()).toBe(1);
    } finally {
      await driver.close();
    }
  });

  it('opensearch answers with version 2.19 and has the reindex + analysis-common modules', async () => {
    const root = (await (await fetch(`${infos.opensearch.url}/`)).json()) as { version: { number: string } };
    expect(root.version.number).toMatch(/^2\.19\./);
    const plugins = await (await fetch(`${infos.opensearch.url}/_cat/plugins?h=component`)).text();
    expect(plugins).toContain('ReindexPlugin');
    expect(plugins).toContain('CommonAnalysisPlugin');
    expect(plugins).toContain('PainlessPlugin');
  });

  it('the engine runs at the niceness STACK_ENGINE_NICE asks for (none unless set), every thread of it; Neo4j at none', () => {
    expect(engineNiceness()).toBe(process.env.STACK_ENGINE_NICE ? Number(process.env.STACK_ENGINE_NICE) : 0);
    expect(new Set(threadNiceness(infos.opensearch.pid))).toEqual(new Set([engineNiceness()]));
    expect(new Set(threadNiceness(infos.neo4j.pid))).toEqual(new Set([0]));
  });

  it('stackStatus reports the servers as running', () => {
    const st = stackStatus(root);
    for (const name of servers) {
      expect(st[name].running).toBe(true);
      expect(st[name].url).toBe(infos[name].url);
    }
  });

  (servers.includes('elasticsearch') ? it : it.skip)('elasticsearch answers cluster health', async () => {
    const health = (await (await fetch(`${infos.elasticsearch.url}/_cluster/health`)).json()) as { status: string };
    expect(['yellow', 'green']).toContain(health.status);
  });
});
