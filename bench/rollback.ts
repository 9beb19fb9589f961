import neo4j, { type Driver } from 'neo4j-driver';
import { randomUUID } from 'node:crypto';
import { contentHash } from '../src/model/canonical';
import { backends, flag, http, report, startServiceProcess } from './lib';

/**
 * Rollback of a large run (`/runs?action=rollback`), beside the raw Cypher that restores the same versions.
 *
 * Two disjoint sets of N datasets are seeded straight into Neo4j as two runs left them: run A created each dataset
 * (key aspect, browse paths) and wrote five aspects; run B then rewrote those five (so each latest aspect is B's and
 * version 1 holds A's value). Values are realistic and targets skewed: a schema of 30 fields, one tag on 90 % of the
 * datasets, three owners owning them all, an upstream each. Run B of set 1 is rolled back by the service (one request,
 * through its write path: versions, edges, outbox, indexing); set 2 by the raw reference, UNWIND statements in
 * transactions of 500 datasets that move version 1 back to the latest node, delete it, and swap the edges, computed
 * ahead from the known values (set 2 is seeded after the service's rollback, which would find it too). Both write the
 * same versions and edges. Default N = 10,000 (50,000 aspects).
 *   npx tsx bench/rollback.ts [--datasets 10000]
 */
const datasets = flag('datasets', 10_000);
const BATCH = 500;

const id = `rb${randomUUID().slice(0, 8)}`;
const runA = `${id}-a`;
const runB = `${id}-b`;
const dataset = (set: number, i: number) => `urn:li:dataset:(urn:li:dataPlatform:bench,${id}_s${set}.t${String(i).padStart(6, '0')},PROD)`;
const tagOf = (i: number, run: string) => `urn:li:tag:${id}_${run}_${i % 10 === 0 ? 'rare' + (i % 7) : 'common'}`;
const ownerOf = (i: number, run: string) => `urn:li:corpuser:${id}_${run}_owner${i % 3}`;

type Edge = { type: string; target: string; targetType: string; isLineage: boolean };
interface Version {
  name: string;
  value: string;
  hash: string;
  edges: Edge[];
}

function aspects(set: number, i: number, run: 'a' | 'b'): Version[] {
  const stamp = { time: 1_700_000_000_000, actor: 'urn:li:corpuser:bench' };
  const fields = Array.from({ length: 30 }, (_, c) => ({
    fieldPath: `col_${c}`,
    nativeDataType: c % 3 === 0 ? 'bigint' : 'varchar(255)',
    type: { type: { [c % 3 === 0 ? 'com.linkedin.schema.NumberType' : 'com.linkedin.schema.StringType']: {} } },
    description: `Column ${c} of table ${i}, as run ${run} described it`,
    nullable: c % 2 === 0,
  }));
  const values: [string, Record<string, unknown>, Edge[]][] = [
    ['datasetProperties', { name: `t${i}`, description: `Table ${i}, run ${run}`, customProperties: { team: `team_${i % 7}`, run } }, []],
    ['ownership', { owners: [{ owner: ownerOf(i, run), type: 'DATAOWNER' }], lastModified: stamp }, [{ type: 'OwnedBy', target: ownerOf(i, run), targetType: 'corpuser', isLineage: false }]],
    ['globalTags', { tags: [{ tag: tagOf(i, run) }] }, [{ type: 'TaggedWith', target: tagOf(i, run), targetType: 'tag', isLineage: false }]],
    [
      'upstreamLineage',
      { upstreams: [{ dataset: dataset(set, run === 'a' ? Math.max(0, i - 1) : (i + 7) % datasets), type: 'TRANSFORMED', auditStamp: stamp }] },
      [{ type: 'DownstreamOf', target: dataset(set, run === 'a' ? Math.max(0, i - 1) : (i + 7) % datasets), targetType: 'dataset', isLineage: true }],
    ],
    ['schemaMetadata', { schemaName: `t${i}`, platform: 'urn:li:dataPlatform:bench', version: 0, hash: run, platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } }, fields }, []],
  ];
  return values.map(([name, value, edges]) => ({ name, value: JSON.stringify(value), hash: contentHash(value), edges }));
}

async function seed(driver: Driver, set: number): Promise<void> {
  const session = driver.session({ database: 'neo4j' });
  const now = Date.now();
  try {
    for (let from = 0; from < datasets; from += BATCH) {
      const rows: Record<string, unknown>[] = [];
      for (let i = from; i < Math.min(datasets, from + BATCH); i++) {
        const a = aspects(set, i, 'a');
        const b = aspects(set, i, 'b');
        const key = { platform: 'urn:li:dataPlatform:bench', name: `${id}_s${set}.t${String(i).padStart(6, '0')}`, origin: 'PROD' };
        rows.push({
          urn: dataset(set, i),
          created: [
            { name: 'datasetKey', value: JSON.stringify(key), hash: contentHash(key) },
            { name: 'browsePaths', value: JSON.stringify({ paths: [`/prod/bench/${id}`] }), hash: contentHash({ paths: [`/prod/bench/${id}`] }) },
          ],
          aspects: b.map((v, k) => ({ name: v.name, b: v, a: a[k] })),
          edges: b.flatMap((v) => v.edges.map((e) => ({ ...e, aspect: v.name }))),
        });
      }
      await session.executeWrite((tx) =>
        tx.run(
          `UNWIND $rows AS row
           MERGE (e:Entity {urn: row.urn}) ON CREATE SET e.type = 'dataset', e.createdAt = $now
           SET e.rev = $rev
           WITH e, row
           CALL (e, row) {
             UNWIND row.created AS c
             CREATE (e)-[:ASPECT]->(:Aspect {urn: row.urn, name: c.name, version: 0, value: c.value, hash: c.hash, createdTime: $then,
                                             createdActor: 'urn:li:corpuser:bench', systemMetadata: $metaA, runId: $runA, lastObserved: $then})
           }
           CALL (e, row) {
             UNWIND row.aspects AS x
             CREATE (e)-[:ASPECT]->(:Aspect {urn: row.urn, name: x.name, version: 0, value: x.b.value, hash: x.b.hash, createdTime: $now,
                                             createdActor: 'urn:li:corpuser:bench', systemMetadata: $metaB, runId: $runB, lastObserved: $now})
             CREATE (:Aspect {urn: row.urn, name: x.name, version: 1, value: x.a.value, hash: x.a.hash, createdTime: $then,
                              createdActor: 'urn:li:corpuser:bench', systemMetadata: $metaA})
           }
           CALL (e, row) {
             UNWIND row.edges AS edge
             MERGE (t:Entity {urn: edge.target}) ON CREATE SET t.type = edge.targetType, t.createdAt = $now, t.placeholder = true
             CREATE (e)-[r:$(edge.type)]->(t)
             SET r.aspect = edge.aspect, r.isLineage = edge.isLineage
           }`,
          {
            rows,
            now,
            then: now - 86_400_000,
            rev: now * 1000,
            runA,
            runB,
            metaA: JSON.stringify({ runId: runA, lastObserved: now - 86_400_000 }),
            metaB: JSON.stringify({ runId: runB, lastObserved: now }),
          },
        ),
      );
    }
  } finally {
    await session.close();
  }
}

/** The raw reference: version 1 back to the latest node, version 1 deleted, B's edges swapped for A's. */
async function rawRollback(driver: Driver, set: number): Promise<number> {
  const session = driver.session({ database: 'neo4j' });
  const started = performance.now();
  try {
    for (let from = 0; from < datasets; from += BATCH) {
      const rows: Record<string, unknown>[] = [];
      for (let i = from; i < Math.min(datasets, from + BATCH); i++) {
        const a = aspects(set, i, 'a');
        const b = aspects(set, i, 'b');
        rows.push({
          urn: dataset(set, i),
          aspects: b.map((v, k) => ({ name: v.name, remove: v.edges.map((e) => `${e.type}|${e.target}`), create: a[k].edges })),
        });
      }
      await session.executeWrite((tx) =>
        tx.run(
          `UNWIND $rows AS row
           MATCH (e:Entity {urn: row.urn})
           SET e.rev = e.rev + 1
           WITH e, row
           UNWIND row.aspects AS x
           MATCH (e)-[:ASPECT]->(l:Aspect {name: x.name})
           MATCH (h:Aspect {urn: row.urn, name: x.name, version: 1})
           SET l.value = h.value, l.hash = h.hash, l.createdTime = h.createdTime, l.createdActor = h.createdActor,
               l.systemMetadata = h.systemMetadata, l.runId = $runA
           DELETE h
           WITH e, x
           CALL (e, x) {
             MATCH (e)-[r]->(t:Entity)
             WHERE r.aspect = x.name AND type(r) + '|' + t.urn IN x.remove
             DELETE r
           }
           CALL (e, x) {
             UNWIND x.create AS edge
             MERGE (t:Entity {urn: edge.target}) ON CREATE SET t.type = edge.targetType, t.placeholder = true
             CREATE (e)-[r:$(edge.type)]->(t)
             SET r.aspect = x.name, r.isLineage = edge.isLineage
           }`,
          { rows, runA },
        ),
      );
    }
  } finally {
    await session.close();
  }
  return (performance.now() - started) / 1000;
}

/** Both sets end as run A left them: latest values A's, no history, A's edges. */
async function check(driver: Driver, set: number): Promise<{ latestFromB: number; history: number; edgesToB: number }> {
  const session = driver.session({ database: 'neo4j' });
  try {
    const prefix = `urn:li:dataset:(urn:li:dataPlatform:bench,${id}_s${set}.`;
    const r = await session.run(
      `MATCH (e:Entity) WHERE e.urn STARTS WITH $prefix
       RETURN sum(COUNT { (e)-[:ASPECT]->(l:Aspect) WHERE l.runId = $runB }) AS latestFromB,
              sum(COUNT { UNWIND $names AS name MATCH (h:Aspect {urn: e.urn, name: name}) WHERE h.version > 0 RETURN h }) AS history,
              sum(COUNT { (e)-[r]->(t:Entity) WHERE t.urn CONTAINS '_b_' }) AS edgesToB`,
      { prefix, runB, names: ['datasetProperties', 'ownership', 'globalTags', 'upstreamLineage', 'schemaMetadata'] },
    );
    const rec = r.records[0];
    return { latestFromB: Number(rec.get('latestFromB')), history: Number(rec.get('history')), edgesToB: Number(rec.get('edgesToB')) };
  } finally {
    await session.close();
  }
}

async function cleanup(driver: Driver): Promise<void> {
  const session = driver.session({ database: 'neo4j' });
  try {
    await session.run(
      `MATCH (e:Entity) WHERE e.urn CONTAINS $id
       CALL (e) { OPTIONAL MATCH (e)-[:ASPECT]->(a:Aspect) DETACH DELETE a, e } IN TRANSACTIONS OF 2000 ROWS`,
      { id },
    );
    await session.run(`MATCH (h:Aspect) WHERE h.urn CONTAINS $id CALL (h) { DETACH DELETE h } IN TRANSACTIONS OF 5000 ROWS`, { id });
  } finally {
    await session.close();
  }
}

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const driver = neo4j.driver(b.neo4jUri, undefined, { disableLosslessIntegers: true });
  const service = await startServiceProcess(b, { LOG_LEVEL: 'warn' });
  const rows: Record<string, Record<string, unknown>> = {};
  const aspectsRolledBack = datasets * 5;
  try {
    console.log(`seeding ${datasets.toLocaleString('en')} datasets (runs A and B, ${aspectsRolledBack.toLocaleString('en')} aspects of B)…`);
    await seed(driver, 1);

    const started = performance.now();
    const res = await http(`${service.url}/runs?action=rollback`, { json: { runId: runB, safe: true } });
    const serviceSeconds = (performance.now() - started) / 1000;
    if (!res.ok) throw new Error(`rollback failed: ${res.status} ${res.text.slice(0, 300)}`);
    const answer = JSON.parse(res.text).value as { aspectsReverted: number };
    rows['service (POST /runs?action=rollback)'] = {
      aspects: answer.aspectsReverted,
      seconds: Math.round(serviceSeconds * 100) / 100,
      aspectsPerSecond: Math.round(answer.aspectsReverted / serviceSeconds),
      ...(await check(driver, 1)),
    };
  } finally {
    await service.stop();
  }
  try {
    // Set 2 is seeded only now: the service's rollback of run B would have found it too.
    await seed(driver, 2);
    const rawSeconds = await rawRollback(driver, 2);
    rows['raw Cypher (UNWIND, 500 datasets per transaction)'] = {
      aspects: aspectsRolledBack,
      seconds: Math.round(rawSeconds * 100) / 100,
      aspectsPerSecond: Math.round(aspectsRolledBack / rawSeconds),
      ...(await check(driver, 2)),
    };
    const ours = rows['service (POST /runs?action=rollback)'];
    rows.ratio = { serviceOverRaw: Math.round(((ours.aspectsPerSecond as number) / (aspectsRolledBack / rawSeconds)) * 100) / 100 };
  } finally {
    await cleanup(driver).catch((err) => console.error('cleanup failed', err));
    await driver.close();
    await b.stop();
  }
  report('rollback', rows, { datasets, aspectsPerDataset: 5 });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
