import neo4j from 'neo4j-driver';
import { join } from 'node:path';
import pino from 'pino';
import { Neo4jExecutor } from '../src/stores/graph/neo4j-executor';
import { OutboxStore } from '../src/stores/graph/outbox-store';
import { cpuSnapshot, flag, ROOT } from './lib';

/**
 * Neo4j's CPU per outbox entry for the indexer's two transactions on it: the claim (a lease on up to --batch entries)
 * and the acknowledgement (their removal). Entries are created --backlog at a time (what the writes leave between two
 * of the indexer's rounds), then claimed batch after batch and acknowledged, until --entries; three rounds.
 * Needs BENCH_NEO4J_URI and BENCH_PIDS=neo4j:<pid>.
 *   npx tsx bench/outbox-cost.ts [--entries 20000] [--batch 100] [--backlog 500]
 */
const entries = flag('entries', 20_000);
const batch = flag('batch', 100);
const backlog = flag('backlog', 500);
const pid = Number((process.env.BENCH_PIDS ?? '').split(',').find((p) => p.startsWith('neo4j'))!.split(':')[1]);

async function main() {
  const logger = pino({ level: 'warn' });
  const graph = new Neo4jExecutor({ uri: process.env.BENCH_NEO4J_URI!, user: '', password: '', database: 'neo4j', timeoutMs: 30_000, cypherDir: join(ROOT, 'cypher') }, logger);
  const driver = neo4j.driver(process.env.BENCH_NEO4J_URI!);
  try {
    await graph.ensureSchema();
    for (let round = 0; round < 3; round++) {
      const ns = `outbox_cost_${Date.now()}_`;
      const store = new OutboxStore(graph, ns);
      let claimMs = 0;
      let acknowledgeMs = 0;
      let claims = 0;
      for (let from = 0; from < entries; from += backlog) {
        const rows = Array.from({ length: backlog }, (_, i) => ({ urn: `urn:li:dataset:(urn:li:dataPlatform:bench,outbox_${round}.${from + i},PROD)`, rev: 1 }));
        await driver.executeQuery('UNWIND $rows AS r CREATE (:Outbox {urn: r.urn, ns: $ns, rev: r.rev, updatedAt: timestamp(), claimUntil: 0})', { rows, ns }, { database: 'neo4j' });
        const before = cpuSnapshot({ neo4j: pid });
        const claimed = [];
        for (;;) {
          const taken = await store.claim(batch, 30_000);
          if (taken.length === 0) break;
          claimed.push(taken);
        }
        const between = cpuSnapshot({ neo4j: pid });
        for (const taken of claimed) await store.acknowledge(taken);
        const after = cpuSnapshot({ neo4j: pid });
        claimMs += between.processes.neo4j - before.processes.neo4j;
        acknowledgeMs += after.processes.neo4j - between.processes.neo4j;
        claims += claimed.length;
      }
      const perEntry = (ms: number) => +((ms * 1000) / entries).toFixed(1);
      console.log(JSON.stringify({ round, entries, batch, backlog, claims, 'claim µs per entry': perEntry(claimMs), 'acknowledge µs per entry': perEntry(acknowledgeMs) }));
    }
  } finally {
    await driver.close();
    await graph.close();
  }
}

void main();
