import { join } from 'node:path';
import neo4j, { type Driver } from 'neo4j-driver';
import { startServers, stopServers } from '../../stack';
import { createLogger } from '../../src/logger';
import { CypherLibrary } from '../../src/stores/graph/cypher';
import { Neo4jExecutor } from '../../src/stores/graph/neo4j-executor';
import type { StatementName } from '../../src/stores/graph/statements.generated';
import { expansion, FRONTIER_BY_ELEMENT_ID, FRONTIER_BY_URN, TOKENS_REVOKED, VIAS_PRESENT } from '../../src/stores/graph/lineage-store';
import { uniqueId } from '../support/service';

/** A statement without its own `CYPHER replan=…` option, which would conflict with the test's replan=force. */
const withoutReplanOption = (text: string) => text.replace(/^CYPHER replan=\w+\s*/, '');

/**
 * Every write-path statement seeks, whatever the statistics were when Neo4j planned it. Neo4j keeps a plan until the
 * statistics diverge, and a catalog with dataset-level lineage but (still) few column-level edges led it to scan the
 * owner index of DownstreamOf, or the Entity urn index: once the column edges arrived, every write group read all of
 * them (20,000 edges: 100,000 db hits per group instead of about 200).
 */
const ROOT = join(__dirname, '..', '..');
const cypher = new CypherLibrary(join(ROOT, 'cypher'));
const SCAN = /Scan/; // AllNodesScan, NodeByLabelScan, NodeIndexScan, (Directed)RelationshipIndexScan, RelationshipTypeScan, …
/** The one scan a write makes on purpose: `apply` reads the registered service processes (a handful of nodes). */
const SERVICE_PROCESSES = /^(NodeByLabelScan|NodeIndexScan|NodeUniqueIndexScan)\S* .*:ServiceProcess/;

/** Each operator of a plan as `OperatorType details`. */
function details(plan: { operatorType: string; arguments?: { Details?: string }; children?: unknown[] }, out: string[] = []): string[] {
  out.push(`${plan.operatorType} ${plan.arguments?.Details ?? ''}`);
  for (const child of (plan.children ?? []) as (typeof plan)[]) details(child, out);
  return out;
}

describe('write-path plans', () => {
  let driver: Driver;
  const prefix = `urn:li:dataset:(urn:li:dataPlatform:planstats,${uniqueId()}`;
  const now = Date.now();
  const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,plan_probe,PROD)';
  const field = (n: number) => `urn:li:schemaField:(${urn},c${n})`;
  const value = { value: '{}', hash: 'h', createdTime: now, createdActor: 'urn:li:corpuser:probe' };

  /** Parameters of every statement in cypher/writes.cypher, shaped as the write path sends them. */
  const parameters: Record<string, Record<string, unknown>> = {
    lock: { group: { entities: [{ urn, entityType: 'dataset', create: true, all: false, names: ['upstreamLineage'], history: ['upstreamLineage'], present: ['datasetKey', 'browsePathsV2'], values: [], columns: ['upstreamLineage'] }] }, now, revFloor: now * 1000 },
    apply: {
      plan: {
        known: [{ urn, node: '4:00000000-0000-0000-0000-000000000000:0', rev: 1, next: 2 }],
        peersOf: 'plan-probe',
        wipes: [{ urn, names: ['upstreamLineage'] }, { urn, names: null }],
        drops: [{ urn, name: 'upstreamLineage', drop: [3] }],
        copies: [{ urn, name: 'upstreamLineage', copy: 1, copySystemMetadata: null }],
        histories: [{ urn, name: 'upstreamLineage', history: [{ ...value, version: 2, systemMetadata: '{}' }] }],
        cuts: [{ urn, name: 'upstreamLineage', cut: 1 }],
        horizons: [{ urn, name: 'upstreamLineage', horizon: now - 1000 }],
        updateLatest: [{ name: 'upstreamLineage', latest: value, systemMetadata: '{}', runId: 'r', lastObserved: now }],
        createLatest: [{ urn, name: 'upstreamLineage', latest: value, systemMetadata: '{}', runId: 'r', lastObserved: now }],
        removeEdges: [{ urn, aspect: 'upstreamLineage', type: 'DownstreamOf', target: `${prefix},0,PROD)` }],
        removeColumnEdges: [{ owner: urn, aspect: 'upstreamLineage', source: field(0), target: field(1) }],
        targets: [{ urn: field(1), type: 'schemaField' }],
        createEdges: [{ urn, aspect: 'upstreamLineage', type: 'DownstreamOf', target: `${prefix},0,PROD)`, isLineage: true }],
        createColumnEdges: [{ owner: urn, aspect: 'upstreamLineage', source: field(0), target: field(1) }],
        outbox: [{ urn, markers: [] }],
        unplaceholders: [{}],
        softDeletes: [{ removed: true }],
        orphans: [{}],
      },
      now,
      ns: 'plans',
    },
  };

  beforeAll(async () => {
    driver = neo4j.driver(process.env.TEST_NEO4J_URI!, undefined, { disableLosslessIntegers: true });
    for (const ddl of cypher.file('schema')) await driver.executeQuery(ddl, {}, { database: 'neo4j' });
    await driver.executeQuery('CALL db.awaitIndexes(60)', {}, { database: 'neo4j' });
    // The statistics that misled the planner: many dataset-level DownstreamOf edges (no owner), few column-level ones.
    await driver.executeQuery(
      `UNWIND range(1, 20000) AS i
       CREATE (:Entity {urn: $prefix + ',' + i + ',PROD)', type: 'dataset'})-[:DownstreamOf {aspect: 'upstreamLineage', isLineage: true}]->(:Entity {urn: $prefix + ',' + i + '_up,PROD)', type: 'dataset'})`,
      { prefix },
      { database: 'neo4j' },
    );
  });

  afterAll(async () => {
    const session = driver.session({ database: 'neo4j' });
    try {
      await session.run("MATCH (e:Entity) WHERE e.urn STARTS WITH $prefix CALL (e) { DETACH DELETE e } IN TRANSACTIONS OF 5000 ROWS", { prefix });
    } finally {
      await session.close();
      await driver.close();
    }
  });

  it('covers every statement of writes.cypher', () => {
    const names = cypher.names('writes').map((n) => n.replace(/^writes\//, ''));
    expect(names.sort()).toEqual(Object.keys(parameters).sort());
  });

  it.each(Object.keys(parameters))('%s seeks every node and relationship it reads', async (name) => {
    // replan=force: planned now, under these statistics, as a freshly started service would plan it.
    const result = await driver.executeQuery(`CYPHER replan=force EXPLAIN ${withoutReplanOption(cypher.get(`writes/${name}` as StatementName))}`, parameters[name], { database: 'neo4j' });
    const scans = details(result.summary.plan as never).filter((step) => SCAN.test(step.split(' ')[0]) && !SERVICE_PROCESSES.test(step));
    expect(scans).toEqual([]);
  });
});

/**
 * Statements planned on an empty database, as a service started on a new catalog plans them. Neo4j keeps such a plan
 * until the statistics diverge, and with nothing in the graph every lookup looks free: the write path's history
 * lookups sought an index on (name, version), i.e. every version of that aspect name in the catalog, and restore's
 * edge MERGE scanned every relationship. On a Neo4j of its own, since the suite's database is never empty.
 */
describe('plans made on an empty database', () => {
  const root = join(ROOT, '.stack', 'test-plans');
  let driver: Driver;
  let url: string;
  /** Scans that are the statement's purpose: the outbox backlog count, the purge of expired token revocations, the peers. */
  // A walk's first statement asks whether any lineage edge has a via: the via index's first entry.
  const firstVia = /RelationshipIndexScan\S* .*v:DownstreamOf\(via\)/;
  const intended: Record<string, RegExp> = { 'outbox/pending': /NodeByLabelScan.*:Outbox/, 'tokens/revoke': /NodeIndexScan.*old:RevokedToken/, 'writes/apply': SERVICE_PROCESSES, 'lineage/hop': firstVia, 'lineage/lastHopCounted': firstVia };
  const statements = ['writes', 'aspects', 'restore', 'outbox', 'relationships', 'search', 'tokens', 'tests', 'health', 'references', 'listing', 'history', 'lineage'].flatMap((file) => cypher.names(file));
  // The lineage hops are templates (HistoryStore and LineageStore fill in the relationship types walked out- and inwards).
  const text = (name: string) =>
    cypher
      .get(name as StatementName)
      .replaceAll('{{outTypes}}', 'Produces')
      .replaceAll('{{inTypes}}', 'DownstreamOf|Consumes')
      .replaceAll('{{fwd}}', 'Produces')
      .replaceAll('{{back}}', 'DownstreamOf|Consumes')
      .replace('{{expand}}', expansion(['Produces'], ['DownstreamOf', 'Consumes']))
      .replace('{{absentCounts}}', 'CALL () { MATCH ()-[r:UsedBy]->() RETURN count(r) AS absent0 }')
      .replace('{{absentFound}}', 'absent0 > 0')
      .replace('{{tokensRevoked}}', TOKENS_REVOKED)
      .replace('{{viasPresent}}', VIAS_PRESENT)
      .replace('{{counts}}', 'CALL () { MATCH ()-[r:Produces]->() RETURN count(r) AS c0 }\nCALL () { MATCH ()-[r:DownstreamOf]->() RETURN count(r) AS c1 }')
      .replace('{{present}}', 'c0 > 0, c1 > 0')
      .replaceAll('{{creates}}', 'CREATE (probe)-[:Produces]->(probe)')
      .replaceAll('{{removed}}', 'coalesce(b.removed, false)')
      .replaceAll('{{frontier}}', FRONTIER_BY_ELEMENT_ID);

  beforeAll(async () => {
    const servers = await startServers({ root, servers: ['neo4j'], persistent: false, heap: { neo4j: '512m' } });
    url = servers.neo4j.url;
    driver = neo4j.driver(url, undefined, { disableLosslessIntegers: true });
    for (const ddl of cypher.file('schema')) await driver.executeQuery(ddl, {}, { database: 'neo4j' });
    await driver.executeQuery('CALL db.awaitIndexes(60)', {}, { database: 'neo4j' });
  }, 300_000);

  afterAll(async () => {
    await driver?.close();
    await stopServers(['neo4j'], root);
  });

  it.each(statements)('%s seeks through a unique constraint or expands from a found node', async (name) => {
    const result = await driver.executeQuery(`CYPHER replan=force EXPLAIN ${withoutReplanOption(text(name))}`, {}, { database: 'neo4j' });
    const steps = details(result.summary.plan as never);
    // Scans read the whole graph; a non-unique seek on Aspect reads that aspect's versions of every entity.
    const costly = steps.filter((s) => (SCAN.test(s.split(' ')[0]) || /^NodeIndexSeek\S* .*:Aspect\(/.test(s)) && !intended[name]?.test(s));
    expect(costly).toEqual([]);
  });

  it("lineage/vias seeks both ends and checks the edge between them, never expanding a hub's edges", async () => {
    const steps = details((await driver.executeQuery(`CYPHER replan=force EXPLAIN ${text('lineage/vias')}`, {}, { database: 'neo4j' })).summary.plan as never);
    expect(steps.filter((s) => s.startsWith('Expand(Into)'))).toHaveLength(1);
    expect(steps.filter((s) => s.startsWith('Expand(All)'))).toEqual([]);
  });

  // Last: it writes to the database the tests above plan on.
  it('lineage/hop seeks its start by urn, later frontiers by element id, and expands from them, whether the catalog is empty or holds a few entities', async () => {
    // The hop is a template (LineageStore fills in the edge types stored along and against the walk, and expands only
    // the sides with edges): a mixed instance, and one with a single side.
    const explain = async (frontier: string, forward: string[], back: string[]) => {
      const hop = cypher
        .get('lineage/hop')
        .replace('{{expand}}', expansion(forward, back))
        .replace('{{absentCounts}}', 'CALL () { MATCH ()-[r:UsedBy]->() RETURN count(r) AS absent0 }')
        .replace('{{absentFound}}', 'absent0 > 0')
        .replace('{{tokensRevoked}}', TOKENS_REVOKED)
      .replace('{{viasPresent}}', VIAS_PRESENT)
        .replaceAll('{{back}}', back.join('|') || 'NoSuchType')
        .replaceAll('{{fwd}}', forward.join('|') || 'NoSuchType')
        .replaceAll('{{removed}}', 'coalesce(b.removed, false)');
      return details((await driver.executeQuery(`CYPHER replan=force EXPLAIN ${hop.replace('{{frontier}}', frontier)}`, {}, { database: 'neo4j' })).summary.plan as never);
    };
    const check = async () => {
      for (const [forward, back, sides] of [[['Produces'], ['DownstreamOf', 'Consumes'], 2], [[], ['DownstreamOf'], 1]] as const) {
        const [start, later] = [await explain(FRONTIER_BY_URN, [...forward], [...back]), await explain(FRONTIER_BY_ELEMENT_ID, [...forward], [...back])];
        for (const steps of [start, later]) {
          expect(steps.filter((s) => SCAN.test(s.split(' ')[0]) && !firstVia.test(s))).toEqual([]);
          // Each edge direction walked is walked out of the frontier node a, never into it from a neighbour found first.
          expect(steps.filter((s) => s.startsWith('Expand(All)') && /\(a\)/.test(s))).toHaveLength(sides);
        }
        expect(start.some((s) => /^NodeUniqueIndexSeek\S* UNIQUE a:Entity\(urn\)/.test(s))).toBe(true);
        expect(later.some((s) => /^NodeByElementIdSeek\S* a WHERE elementId\(a\)/.test(s))).toBe(true);
        expect(later.some((s) => /IndexSeek\S* .*a:Entity\(urn\)/.test(s))).toBe(false);
      }
    };
    await check();
    await driver.executeQuery(
      `UNWIND range(1, 20) AS i CREATE (:Entity {urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,t' + i + ',PROD)', type: 'dataset'})`,
      {},
      { database: 'neo4j' },
    );
    await check();
  });

  // After the others: it drops the schema they plan with.
  it('several processes that start at once on a new database all create the schema', async () => {
    const dropped = async (kind: 'CONSTRAINTS' | 'INDEXES') =>
      (await driver.executeQuery(`SHOW ${kind} YIELD name, type WHERE type <> 'LOOKUP' RETURN name`, {}, { database: 'neo4j' })).records.map((r) => r.get('name') as string);
    for (const name of await dropped('CONSTRAINTS')) await driver.executeQuery(`DROP CONSTRAINT ${name}`, {}, { database: 'neo4j' });
    for (const name of await dropped('INDEXES')) await driver.executeQuery(`DROP INDEX ${name}`, {}, { database: 'neo4j' });
    const executors = Array.from({ length: 4 }, () => new Neo4jExecutor({ uri: url, user: '', password: '', database: 'neo4j', timeoutMs: 10_000, cypherDir: join(ROOT, 'cypher') }, createLogger('silent')));
    try {
      const results = await Promise.allSettled(executors.map((e) => e.ensureSchema()));
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(await dropped('CONSTRAINTS')).not.toHaveLength(0);
    } finally {
      await Promise.all(executors.map((e) => e.close()));
    }
  });
});
