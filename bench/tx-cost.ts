import neo4j from 'neo4j-driver';
import { join } from 'node:path';
import { CypherLibrary } from '../src/stores/graph/cypher';
import { backends, cpuSnapshot, flag, report, ROOT } from './lib';

/**
 * Neo4j's own CPU per auto-commit transaction, for statements that do almost nothing: the floor every Neo4j round trip
 * pays however small the read, and the reason the service shares reads between requests (coalesced entitiesV2 and
 * relationships, shared deleted-hit snapshots) instead of making each one smaller.
 *   npx tsx bench/tx-cost.ts [--seconds 4] [--concurrency 8]
 */
const seconds = flag('seconds', 4);
const concurrency = flag('concurrency', 8);

async function main() {
  const b = await backends(['neo4j']);
  const driver = neo4j.driver(b.neo4jUri, undefined, { disableLosslessIntegers: true });
  const cypher = new CypherLibrary(join(ROOT, 'cypher'));
  const rows: Record<string, Record<string, unknown>> = {};
  try {
    const statements: [string, string, Record<string, unknown>, 'READ' | 'WRITE'][] = [
      ['RETURN 1', 'RETURN 1', {}, 'READ'],
      ['deleted-hit snapshot (search/deletions), WRITE', cypher.get('search/deletions'), { ns: '', limit: neo4j.int(1000) }, 'WRITE'],
      ['deleted-hit snapshot (search/deletions), READ', cypher.get('search/deletions'), { ns: '', limit: neo4j.int(1000) }, 'READ'],
    ];
    // Twice through the list, measuring the second pass: the JVM keeps compiling for a while, and the first statement
    // measured would pay for it.
    for (const measured of [false, true]) {
      for (const [name, statement, params, mode] of statements) {
        let transactions = 0;
        const started = Date.now();
        const before = cpuSnapshot(b.pids);
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (Date.now() - started < seconds * 1000) {
              const session = driver.session({ database: 'neo4j', defaultAccessMode: mode === 'READ' ? neo4j.session.READ : neo4j.session.WRITE });
              try {
                await session.run(statement, params);
              } finally {
                await session.close();
              }
              transactions++;
            }
          }),
        );
        const after = cpuSnapshot(b.pids);
        if (!measured) continue;
        rows[name] = {
          transactionsPerSecond: Math.round(transactions / seconds),
          'neo4j cpu µs/tx': Math.round(((after.processes.neo4j - before.processes.neo4j) * 1000) / transactions),
          'client cpu µs/tx': Math.round(((after.self - before.self) * 1000) / transactions),
        };
      }
    }
  } finally {
    await driver.close();
    await b.stop();
  }
  report('tx-cost', rows, { seconds, concurrency });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
