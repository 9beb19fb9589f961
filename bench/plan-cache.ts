import neo4j from 'neo4j-driver';
import { execSync } from 'node:child_process';
import { report, ROOT } from './lib';

/**
 * Plans Neo4j makes for the write path's two statements (`writes/lock`, `writes/apply`) while a command writes, from an
 * empty query cache: Neo4j keys cached plans by parameter type and, for a list parameter, by its size bucket (0, 1,
 * 2-10, 11-100, …), so a statement taking several lists gets a plan per combination of their sizes. Uses db.stats
 * (QUERIES): a row per distinct plan of a statement (plans that read alike share one), each with up to 100 of its
 * invocations and their compile times (a plan made: hundreds of ms; one found in the cache: well under one). `plans`
 * counts rows and `compileSeconds` sums the recorded invocations: with many shapes, both are lower bounds.
 *   BENCH_NEO4J_URI=… BENCH_SEARCH_URL=… BENCH_PIDS=… npx tsx bench/plan-cache.ts ["command"]
 * Default command: `npx tsx bench/ingest.ts --datasets 2000 --scenarios a,c --warmup 0` (its own result file is kept out).
 */
const command = process.argv[2] ?? 'npx tsx bench/ingest.ts --datasets 2000 --scenarios a,c --warmup 0 > /dev/null 2>&1; git checkout -q bench/results';

interface QueryStats {
  query: string;
  invocations: { elapsedCompileTimeInUs?: number }[];
}

async function main() {
  const driver = neo4j.driver(process.env.BENCH_NEO4J_URI!, undefined, { disableLosslessIntegers: true });
  const run = (cypher: string) => driver.executeQuery(cypher, {}, { database: 'neo4j' });
  try {
    await run('CALL db.clearQueryCaches()');
    await run("CALL db.stats.clear('QUERIES')");
    await run("CALL db.stats.collect('QUERIES', {durationSeconds: 900})");
    const started = Date.now();
    execSync(command, { stdio: 'inherit', cwd: ROOT, shell: '/bin/bash' });
    const seconds = (Date.now() - started) / 1000;
    await run("CALL db.stats.stop('QUERIES')");
    const stats = (await run("CALL db.stats.retrieve('QUERIES') YIELD data RETURN data")).records.map((r) => r.get('data') as QueryStats);
    const statement = (marker: RegExp) => {
      const plans = stats.filter((s) => marker.test(s.query));
      const compileUs = plans.flatMap((p) => p.invocations).reduce((sum, i) => sum + (i.elapsedCompileTimeInUs ?? 0), 0);
      return { plans: plans.length, compileSeconds: Math.round(compileUs / 10_000) / 100 };
    };
    report('plan-cache', { 'writes/lock': statement(/SET e\._LOCK_ = true\s+WITH peers, x, e, created, e\.rev AS previousRev/), 'writes/apply': statement(/DETACH DELETE a\b[\s\S]*CREATE \(o:Outbox/) }, { command, seconds });
  } finally {
    await driver.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
