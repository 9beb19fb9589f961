import { join } from 'node:path';
import neo4j, { Neo4jError } from 'neo4j-driver';
import { createLogger } from '../../src/logger';
import { Neo4jExecutor } from '../../src/stores/graph/neo4j-executor';

const ROOT = join(__dirname, '..', '..');

/**
 * Read transactions (Neo4jExecutor.read, a multi-hop lineage walk's): BEGIN goes out with the first statement, and the
 * answer does not wait for COMMIT's. Seen in the driver's own log of the messages it sends (C:) and receives (S:).
 */
describe('read transactions: no round trip for BEGIN or COMMIT', () => {
  let executor: Neo4jExecutor;
  const log: string[] = [];

  beforeAll(() => {
    executor = new Neo4jExecutor({ uri: process.env.TEST_NEO4J_URI!, user: '', password: '', database: 'neo4j', timeoutMs: 10_000, cypherDir: join(ROOT, 'cypher') }, createLogger('silent'));
    // The same executor on a driver that logs every Bolt message (the driver's public logging option).
    const logged = neo4j.driver(process.env.TEST_NEO4J_URI!, undefined, {
      disableLosslessIntegers: true,
      logging: { level: 'debug', logger: (_level, message) => { const m = / ([CS]): ([A-Z]+)/.exec(message); if (m) log.push(`${m[1]}: ${m[2]}`); } },
    });
    void executor.driver.close();
    Object.defineProperty(executor, 'driver', { value: logged });
  });

  afterAll(async () => {
    await executor?.close();
  });

  /** The messages of one transaction, from its BEGIN on. */
  const fromBegin = (messages: string[]) => messages.slice(messages.indexOf('C: BEGIN'));

  it('sends BEGIN with the first statement and answers before COMMIT is answered', async () => {
    await executor.read('test.warm', async (tx) => (await tx.run('RETURN 1 AS one')).records);
    await new Promise((r) => setTimeout(r, 50));
    log.length = 0;
    const answer = await executor.read('test.read', async (tx) => {
      const first = (await tx.run('RETURN 1 AS n')).records[0].get('n') as number;
      const second = (await tx.run('RETURN $n + 1 AS n', { n: first })).records[0].get('n') as number;
      return second;
    });
    const atAnswer = fromBegin(log);
    expect(answer).toBe(2);
    // Nothing came back between BEGIN and the first statement: the client did not wait for BEGIN's answer.
    expect(atAnswer.slice(0, 3)).toEqual(['C: BEGIN', 'C: RUN', 'C: PULL']);
    // Both statements were answered, and COMMIT's answer had not come (nor, here, had COMMIT gone out) when the read answered.
    expect(atAnswer.filter((m) => m === 'C: RUN')).toHaveLength(2);
    const commitAtAnswer = atAnswer.indexOf('C: COMMIT');
    expect(commitAtAnswer === -1 || commitAtAnswer === atAnswer.length - 1).toBe(true);
    // It is sent and answered afterwards, and the connection is used again.
    await new Promise((r) => setTimeout(r, 200));
    const after = fromBegin(log);
    expect(after.slice(after.indexOf('C: COMMIT'))).toEqual(['C: COMMIT', 'S: SUCCESS']);
    expect(await executor.read('test.again', async (tx) => (await tx.run('RETURN 3 AS n')).records[0].get('n'))).toBe(3);
  });

  it('runs work that failed transiently again, in a transaction of its own, and rolls the failed one back', async () => {
    log.length = 0;
    let attempts = 0;
    const answer = await executor.read('test.retry', async (tx) => {
      const n = (await tx.run('RETURN 5 AS n')).records[0].get('n') as number;
      if (++attempts === 1) throw new Neo4jError('a deadlock', 'Neo.TransientError.Transaction.DeadlockDetected', '50N00', 'error: a deadlock');
      return n;
    });
    expect(answer).toBe(5);
    expect(attempts).toBe(2);
    await new Promise((r) => setTimeout(r, 200));
    const sent = log.filter((m) => m.startsWith('C: ') && m !== 'C: PULL');
    expect(sent.slice(sent.indexOf('C: BEGIN'))).toEqual(['C: BEGIN', 'C: RUN', 'C: ROLLBACK', 'C: BEGIN', 'C: RUN', 'C: COMMIT']);
  });

  it('passes any other failure on, rolled back, and leaves nothing open', async () => {
    await expect(executor.read('test.fail', async (tx) => (await tx.run('RETURN 1 / 0 AS n')).records)).rejects.toMatchObject({ code: 'Neo.ClientError.Statement.ArithmeticError' });
    expect(await executor.read('test.after', async (tx) => (await tx.run('RETURN 7 AS n')).records[0].get('n'))).toBe(7);
  });
});
