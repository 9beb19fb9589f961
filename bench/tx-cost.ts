import neo4j, { type ManagedTransaction } from 'neo4j-driver';
import { disableNagleForDriverSockets } from '../src/stores/graph/neo4j-executor';
import { backends, cpuSnapshot, flag, report } from './lib';

/**
 * Neo4j's own CPU per transaction for statements that do almost nothing: the floor every round trip and every statement
 * pays however small its work. It is why the service shares transactions between requests (group commit, coalesced
 * reads) instead of making each one smaller. A transaction function takes two exchanges with the server (BEGIN with the
 * first statement, then COMMIT once its results are in) and an auto-commit statement (`session.run`) one; the
 * difference between the two is the cost of one exchange, and `5 statements … pipelined` against `1 statement` the cost
 * of a statement sent without waiting.
 *   npx tsx bench/tx-cost.ts [--seconds 4] [--concurrency 8]
 * With BENCH_NEO4J_URI, name the server's process for its CPU: BENCH_PIDS=neo4j:<pid>.
 */
const seconds = flag('seconds', 4);
const concurrency = flag('concurrency', 8);

type Statement = [string, Record<string, unknown>];
/** READ and WRITE run a transaction function; AUTO the first statement alone, as an auto-commit transaction. */
type Mode = 'READ' | 'WRITE' | 'AUTO';

async function main() {
  const b = await backends(['neo4j']);
  // The service's sockets: writes made in one tick (BEGIN and the first statement) go out together.
  disableNagleForDriverSockets();
  const driver = neo4j.driver(b.neo4jUri, undefined, { disableLosslessIntegers: true });
  const rows: Record<string, Record<string, unknown>> = {};
  const write = 'UNWIND $rows AS row MERGE (n:TxCostBench {id: row.id}) SET n.v = row.v';
  const rowsOf = (n: number) => Array.from({ length: n }, () => ({ id: Math.floor(Math.random() * 10_000), v: Math.random() }));
  const cases: [string, Mode, () => Statement[]][] = [
    ['read: RETURN 1', 'READ', () => [['RETURN 1', {}]]],
    ['auto-commit: RETURN 1', 'AUTO', () => [['RETURN 1', {}]]],
    ['auto-commit write: 1 statement of 1 row', 'AUTO', () => [[write, { rows: rowsOf(1) }]]],
    ['write: 1 statement of 1 row', 'WRITE', () => [[write, { rows: rowsOf(1) }]]],
    ['write: 1 statement of 5 rows', 'WRITE', () => [[write, { rows: rowsOf(5) }]]],
    ['write: 5 statements of 1 row, pipelined', 'WRITE', () => Array.from({ length: 5 }, (): Statement => [write, { rows: rowsOf(1) }])],
    ['write: 1 statement of 100 rows', 'WRITE', () => [[write, { rows: rowsOf(100) }]]],
  ];
  const admin = (statement: string) => driver.executeQuery(statement, {}, { database: 'neo4j' });
  try {
    await admin('CREATE CONSTRAINT tx_cost_bench IF NOT EXISTS FOR (n:TxCostBench) REQUIRE n.id IS UNIQUE');
    // Twice through the list, measuring the second pass: the JVM keeps compiling for a while, and the first statement
    // measured would pay for it.
    for (const measured of [false, true]) {
      for (const [name, mode, statements] of cases) {
        let transactions = 0;
        const started = Date.now();
        const before = cpuSnapshot(b.pids);
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (Date.now() - started < seconds * 1000) {
              const session = driver.session({ database: 'neo4j', defaultAccessMode: mode === 'READ' ? neo4j.session.READ : neo4j.session.WRITE });
              try {
                const work = (tx: ManagedTransaction) => Promise.all(statements().map(([q, p]) => tx.run(q, p)));
                if (mode === 'AUTO') await session.run(...statements()[0]);
                else await (mode === 'READ' ? session.executeRead(work) : session.executeWrite(work));
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
          'neo4j cpu µs/tx': b.pids.neo4j ? Math.round(((after.processes.neo4j - before.processes.neo4j) * 1000) / transactions) : null,
          'client cpu µs/tx': Math.round(((after.self - before.self) * 1000) / transactions),
        };
      }
    }
    await admin('MATCH (n:TxCostBench) DETACH DELETE n');
    await admin('DROP CONSTRAINT tx_cost_bench IF EXISTS');
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
