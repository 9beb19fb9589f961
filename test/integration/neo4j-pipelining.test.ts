import { Socket } from 'node:net';
import { join } from 'node:path';
import { createLogger } from '../../src/logger';
import { Neo4jStore } from '../../src/stores/graph/neo4j';
import { uniqueId } from '../support/service';

const ROOT = join(__dirname, '..', '..');

/**
 * Transactions send BEGIN with their first statement (pipelineBegin, through a private method of neo4j-driver that its
 * executeQuery uses). These fail when a driver upgrade drops that method or changes what it does.
 */
describe('Neo4j transactions with a pipelined BEGIN', () => {
  let graph: Neo4jStore;
  const port = Number(new URL(process.env.TEST_NEO4J_URI!.replace(/^bolt/, 'http')).port);

  beforeAll(() => {
    graph = new Neo4jStore({ uri: process.env.TEST_NEO4J_URI!, user: '', password: '', database: 'neo4j', timeoutMs: 5000, cypherDir: join(ROOT, 'cypher') }, createLogger('silent'));
  });

  afterAll(async () => {
    await graph.driver.close();
  });

  /** Socket flushes (each one write syscall) to Neo4j while `work` runs. */
  async function flushesDuring(work: () => Promise<unknown>): Promise<number> {
    const proto = Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
    const originals = { _write: proto._write, _writev: proto._writev };
    let flushes = 0;
    for (const name of ['_write', '_writev'] as const) {
      proto[name] = function (this: Socket, ...args: unknown[]) {
        if (this.remotePort === port) flushes++;
        return originals[name].apply(this, args);
      };
    }
    try {
      await work();
    } finally {
      Object.assign(proto, originals);
    }
    return flushes;
  }

  it('a transaction of one statement costs two socket writes: BEGIN with the statement, then COMMIT', async () => {
    const id = uniqueId();
    // The pool's connection is open before counting (its handshake is not part of a transaction).
    await graph.write('test.warm', (tx) => tx.run('RETURN 1'));
    const flushes = await flushesDuring(() => graph.write('test.pipelined', (tx) => tx.run('CREATE (:PipelineProbe {id: $id})', { id })));
    expect(flushes).toBe(2);
    const [record] = await graph.driver.executeQuery('MATCH (p:PipelineProbe {id: $id}) WITH p, count(*) AS n DELETE p RETURN n', { id }, { database: 'neo4j' }).then((r) => r.records);
    expect(record.get('n')).toBe(1);
  });

  it('a statement that fails after a pipelined BEGIN fails its transaction, which changes nothing', async () => {
    const id = uniqueId();
    await expect(
      graph.write('test.failing', async (tx) => {
        await tx.run('CREATE (:PipelineProbe {id: $id})', { id });
        await tx.run('RETURN 1/0');
      }),
    ).rejects.toThrow(/by zero/);
    const { records } = await graph.driver.executeQuery('MATCH (p:PipelineProbe {id: $id}) RETURN count(p) AS n', { id }, { database: 'neo4j' });
    expect(records[0].get('n')).toBe(0);
  });
});
