import neo4j from 'neo4j-driver';
import { join } from 'node:path';
import pino from 'pino';
import { CypherLibrary } from '../src/stores/graph/cypher';
import { Neo4jExecutor } from '../src/stores/graph/neo4j-executor';
import { backends, flag, percentile, report, ROOT } from './lib';

/**
 * `datahub ingest list-runs` (`/runs?action=list`, soft-deleted entities left out) on a catalog of --entities entities
 * with 5 latest aspects each, every aspect of one of --runs runs (skewed: the newest runs hold most), 5 % of the entities
 * soft-deleted. The two forms of the statement, in alternating rounds: `runs/list` reads each entity's status aspect,
 * `runs/listByFlag` the entity's soft-delete flag; `runs/listIncludingSoftDeleted` (no check) is the floor. A fourth
 * form, not adopted, collects the urns of every soft-deleted entity first and leaves their aspects out by set lookup: it
 * holds them all in one list in Neo4j's memory, and a catalog that stateful ingestion has pruned for years has millions.
 *   npx tsx bench/runs-list.ts [--entities 100000] [--runs 20] [--rounds 7]
 */
const entities = flag('entities', 100_000);
const runs = flag('runs', 20);
const rounds = flag('rounds', 7);
const ASPECTS = ['datasetProperties', 'schemaMetadata', 'ownership', 'globalTags', 'status'];
const DEFAULT_RUN_ID = 'no-run-id-provided';

async function main() {
  const b = await backends(['neo4j']);
  const logger = pino({ level: 'warn' });
  const graph = new Neo4jExecutor({ uri: b.neo4jUri, user: '', password: '', database: 'neo4j', timeoutMs: 600_000, cypherDir: join(ROOT, 'cypher') }, logger);
  const driver = neo4j.driver(b.neo4jUri, undefined, { disableLosslessIntegers: true });
  try {
    for (const ddl of new CypherLibrary(join(ROOT, 'cypher')).file('schema')) await driver.executeQuery(ddl, {}, { database: 'neo4j' });
    const prefix = `runs_${Date.now().toString(36)}`;
    const filler = 'x'.repeat(800);
    const seeded = performance.now();
    for (let from = 0; from < entities; from += 2000) {
      const rows = Array.from({ length: Math.min(2000, entities - from) }, (_, k) => {
        const i = from + k;
        // Run r holds about twice as many entities as run r + 1: the latest full runs hold most of a catalog.
        const run = Math.min(runs - 1, Math.floor(-Math.log2(1 - ((i * 7919) % entities) / entities)));
        return { urn: `urn:li:dataset:(urn:li:dataPlatform:hive,${prefix}.t${i},PROD)`, runId: `${prefix}-run-${run}`, observed: 1_700_000_000_000 - run * 86_400_000 + i, removed: i % 20 === 0 };
      });
      await driver.executeQuery(
        `UNWIND $rows AS r
         CREATE (e:Entity {urn: r.urn, type: 'dataset'})
         SET e.removed = CASE WHEN r.removed THEN true END
         WITH e, r
         UNWIND $aspects AS name
         CREATE (e)-[:ASPECT]->(:Aspect {urn: r.urn, name: name, version: 0, runId: r.runId, lastObserved: r.observed,
           value: CASE WHEN name = 'status' THEN '{"removed":' + toString(r.removed) + '}' ELSE $filler END})`,
        { rows, aspects: ASPECTS, filler },
        { database: 'neo4j' },
      );
    }
    await driver.executeQuery("MERGE (m:Migration {name: 'entitySoftDeleteFlag'}) SET m.doneAt = timestamp()", {}, { database: 'neo4j' });
    console.error(`seeded ${entities} entities x ${ASPECTS.length} aspects in ${Math.round(performance.now() - seeded)} ms`);

    const params = { offset: neo4j.int(0), limit: neo4j.int(10), defaultRunId: DEFAULT_RUN_ID, statusAspect: 'status' };
    const statements = ['runs/list', 'runs/listByFlag', 'runs/listIncludingSoftDeleted'] as const;
    const answers = new Map<string, string>();
    const times = new Map<string, number[]>(statements.map((s) => [s, []]));
    const SET_DIFFERENCE = `
      OPTIONAL MATCH (d:Entity) WHERE d.removed = true
      WITH collect(d.urn) AS removed
      MATCH (a:Aspect)
      WHERE a.runId IS NOT NULL AND a.urn >= '' AND a.runId <> $defaultRunId AND a.version = 0 AND NOT a.urn IN removed
      WITH a.runId AS runId, count(*) AS rows, max(a.lastObserved) AS timestamp
      RETURN runId, rows, timestamp
      ORDER BY timestamp DESC, runId
      SKIP $offset LIMIT $limit`;
    const setDifference = async () => (await driver.executeQuery(SET_DIFFERENCE, params, { database: 'neo4j' })).records;
    times.set('set difference', []);
    for (let round = 0; round <= rounds; round++) {
      // Each round in another order; round 0 warms plans and the page cache and is not counted.
      const order = round % 2 === 0 ? statements : [...statements].reverse();
      for (const statement of [...order, 'set difference']) {
        const started = performance.now();
        const records = statement === 'set difference' ? await setDifference() : await graph.query('runs.list', statement as (typeof statements)[number], params);
        const ms = performance.now() - started;
        if (round > 0) times.get(statement)!.push(ms);
        answers.set(statement, JSON.stringify(records.map((r) => [r.get('runId'), Number(r.get('rows')), Number(r.get('timestamp'))]).filter((r) => String(r[0]).startsWith(prefix))));
      }
    }
    if (answers.get('runs/list') !== answers.get('runs/listByFlag')) throw new Error(`the two forms answer differently:\n${answers.get('runs/list')}\n${answers.get('runs/listByFlag')}`);
    const median = (s: string) => Math.round(percentile([...times.get(s)!].sort((x, y) => x - y), 50));
    if (answers.get('runs/list') !== answers.get('set difference')) console.error('set difference answers differently');
    const rows = Object.fromEntries([...statements, 'set difference'].map((s) => [s, { 'p50 ms': median(s), runs: times.get(s)!.map(Math.round).join(' ') }]));
    report('runs-list', rows, { entities, aspects: entities * ASPECTS.length, runs, rounds, 'listByFlag / list': +(median('runs/listByFlag') / median('runs/list')).toFixed(2) });
  } finally {
    await driver.close();
    await graph.close();
    await b.stop();
  }
}

void main();
