import { join } from 'node:path';
import type { ManagedTransaction } from 'neo4j-driver';
import { createLogger } from '../../src/logger';
import { Registry } from '../../src/model/registry';
import { LatestAspectCache } from '../../src/stores/graph/latest-aspect-cache';
import { Neo4jExecutor } from '../../src/stores/graph/neo4j-executor';
import { LeasedReadCoherence } from '../../src/stores/graph/read-coherence';
import { LineageStore, type LineageQuery } from '../../src/stores/graph/lineage-store';
import { startTestService, uniqueId, type TestService } from '../support/service';

const ROOT = join(__dirname, '..', '..');

/** `executor` whose reads hand each statement to `seen` (with how it ran: in a transaction or auto-commit) before running it. */
function recordingExecutor(executor: Neo4jExecutor, seen: (text: string, params: Record<string, unknown>, how: string) => void): Neo4jExecutor {
  const recording = Object.create(executor) as Neo4jExecutor;
  const recorded = (how: string, tx: ManagedTransaction) => ({ run: (text: string, params: Record<string, unknown>) => (seen(text, params, how), tx.run(text, params)) }) as unknown as ManagedTransaction;
  recording.read = (caller, work, deadline) => executor.read(caller, (tx) => work(recorded('in a transaction', tx)), deadline);
  recording.readEachStatement = (caller, work, deadline) => executor.readEachStatement(caller, (tx) => work(recorded('auto-commit', tx)), deadline);
  return recording;
}

/**
 * The page's aspects are read in the hop that reaches the page's rows, so a walk from a hub whose page fills in one hop
 * takes one statement per hop and none after; rows the hop did not read (pushed past its reads by a filter) are read
 * afterwards. Either way each row comes with its own aspects.
 */
describe('lineage store: the page read within the hops', () => {
  let svc: TestService;
  let executor: Neo4jExecutor;
  let store: LineageStore;
  const statements: string[] = [];
  const runs: string[] = [];
  const id = uniqueId('lps');
  const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${id}.${name},PROD)`;
  const children = Array.from({ length: 30 }, (_, i) => `d${String(i).padStart(2, '0')}`);
  const grandchildren = ['e0', 'e1', 'e2', 'e3', 'e4'];

  async function propose(name: string, aspectName: string, value: unknown) {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', {
      proposal: { entityType: 'dataset', entityUrn: ds(name), changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } },
    });
    expect(res.status).toBe(200);
  }
  const upstream = (name: string, up: string) => propose(name, 'upstreamLineage', { upstreams: [{ dataset: ds(up), type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:x' } }] });

  beforeAll(async () => {
    svc = await startTestService();
    // hub ← d00..d29 ← (d00) e0..e4; d01 and d02 soft-deleted; every one described.
    for (const name of children) await upstream(name, 'hub');
    // Written out of urn order, so a hop's rows do not arrive in it: the walk orders them where the page needs it.
    for (const name of ['e3', 'e0', 'e4', 'e1', 'e2']) await upstream(name, 'd00');
    for (const name of [...children, ...grandchildren]) await propose(name, 'datasetProperties', { description: `about ${name}` });
    for (const name of ['d01', 'd02']) await propose(name, 'status', { removed: true });
    executor = new Neo4jExecutor({ uri: process.env.TEST_NEO4J_URI!, user: '', password: '', database: 'neo4j', timeoutMs: 10_000, cypherDir: join(ROOT, 'cypher') }, createLogger('silent'));
    // Every statement of a walk, by kind: the executor's reads with their statements counted, and how they ran.
    const counting = recordingExecutor(executor, (text, _params, how) => (statements.push(text.includes('$urns') ? 'after' : 'hop'), runs.push(how)));
    const registry = Registry.load(join(ROOT, 'schema'), 'li');
    // The one lineage type this test writes: a type left out at prepare whose first edge another test file wrote
    // meanwhile would have a walk count the types and walk again (statements these tests count).
    const written = new Map([...registry.lineageRelationships()].filter(([type]) => type === 'DownstreamOf'));
    store = new LineageStore(counting, written, registry.urnNamespace);
    await store.prepare();
  }, 120_000);

  afterAll(async () => {
    await executor?.close();
    await svc?.close();
  });

  const walk = async (q: Partial<LineageQuery>) => {
    statements.length = 0;
    runs.length = 0;
    const page = await store.traverse({
      urn: ds('hub'), direction: 'DOWNSTREAM', columns: false, maxHops: 1, fanOut: 1000, visitCap: 10_000,
      groups: [{ degrees: null, types: null, platforms: null, includeRemoved: true }], start: 0, count: 10,
      aspects: ['datasetProperties', 'status'], deadlineMs: 10_000, ...q,
    });
    const names = page.rows.map((r) => r.urn.slice(r.urn.indexOf(`${id}.`) + id.length + 1, -',PROD)'.length));
    for (const r of page.rows) expect(r.aspects.get('datasetProperties')).toEqual({ description: `about ${names[page.rows.indexOf(r)]}` });
    return { names, total: page.total, statements: [...statements] };
  };

  test('a page that fills in the first hop: one statement, each row with its aspects', async () => {
    expect(await walk({})).toEqual({ names: children.slice(0, 10), total: 30, statements: ['hop'] });
  });

  test('a page further on, within the hop or across two hops: one statement per hop', async () => {
    expect(await walk({ start: 5, count: 5 })).toEqual({ names: children.slice(5, 10), total: 30, statements: ['hop'] });
    expect(await walk({ start: 28, count: 10, maxHops: 2 })).toEqual({ names: [...children.slice(28), ...grandchildren], total: 35, statements: ['hop', 'hop'] });
  });

  test('a last hop the page falls in is in urn order, whether the filters leave rows before it or not', async () => {
    expect(await walk({ start: 27, count: 5, maxHops: 2 })).toEqual({ names: ['d27', 'd28', 'd29', 'e0', 'e1'], total: 35, statements: ['hop', 'hop'] });
    const second = [{ degrees: [2], types: null, platforms: null, includeRemoved: true }];
    // The last hop applies the filters itself, so the page it reads is the filtered one: no statement after it.
    expect(await walk({ groups: second, start: 1, count: 3, maxHops: 2 })).toEqual({ names: ['e1', 'e2', 'e3'], total: 5, statements: ['hop', 'hop'] });
  });

  test('a last hop pages past soft-deleted rows itself; rows an earlier hop did not read, pushed past its reads, are read afterwards', async () => {
    const hidden = [{ degrees: null, types: null, platforms: null, includeRemoved: false }];
    expect(await walk({ groups: hidden })).toEqual({ names: ['d00', ...children.slice(3, 12)], total: 28, statements: ['hop'] });
    // Over two hops, the first reads the first 10 of its neighbours (d01 and d02 among them) as the page's candidates.
    expect(await walk({ groups: hidden, count: 10, maxHops: 2 })).toEqual({ names: ['d00', ...children.slice(3, 12)], total: 33, statements: ['hop', 'hop', 'after'] });
    expect(await walk({ groups: hidden, count: 100, maxHops: 2 })).toEqual({ names: ['d00', ...children.slice(3), ...grandchildren], total: 33, statements: ['hop', 'hop'] });
  });

  test('a walk of one hop runs its statements auto-commit, a longer one in one read transaction (its frontiers are element ids)', async () => {
    const hidden = [{ degrees: null, types: null, platforms: null, includeRemoved: false }];
    expect(await walk({ groups: hidden })).toMatchObject({ names: ['d00', ...children.slice(3, 12)], statements: ['hop'] });
    expect(runs).toEqual(['auto-commit']);
    expect(await walk({ maxHops: 2, start: 28 })).toMatchObject({ names: [...children.slice(28), ...grandchildren] });
    expect(runs).toEqual(['in a transaction', 'in a transaction']);
  });

  test('a last hop that would pass the result cap is walked again the way that keeps the first nodes in urn order', async () => {
    statements.length = 0;
    const page = await store.traverse({
      urn: ds('hub'), direction: 'DOWNSTREAM', columns: false, maxHops: 1, fanOut: 1000, visitCap: 10,
      groups: [{ degrees: null, types: null, platforms: null, includeRemoved: true }], start: 0, count: 5, aspects: ['datasetProperties', 'status'], deadlineMs: 10_000,
    });
    expect(page.rows.map((r) => r.urn)).toEqual(children.slice(0, 5).map(ds));
    expect(page.rows.map((r) => r.aspects.get('datasetProperties'))).toEqual(children.slice(0, 5).map((name) => ({ description: `about ${name}` })));
    expect({ total: page.total, cut: page.cut }).toEqual({ total: 10, cut: { visitCap: true, fanOut: false, maxHops: true } });
    // The counted hop, then the hop that returns every neighbour.
    expect(statements).toEqual(['hop', 'hop']);
  });

  test('without aspects asked, no page is read', async () => {
    statements.length = 0;
    const page = await store.traverse({
      urn: ds('hub'), direction: 'DOWNSTREAM', columns: false, maxHops: 1, fanOut: 1000, visitCap: 10_000,
      groups: [{ degrees: null, types: null, platforms: null, includeRemoved: true }], start: 0, count: 10, aspects: [], deadlineMs: 10_000,
    });
    expect(page.rows).toHaveLength(10);
    expect(page.rows.every((r) => r.aspects.get('datasetProperties') === undefined && r.rev === null)).toBe(true);
    expect(statements).toEqual(['hop']);
  });
});

/**
 * Hop statements leave out the lineage relationship types that have no edges in the database (counted at start, from
 * Neo4j's count store): a catalog whose lineage is all dataset to dataset walks one typed expansion per hop, not a UNION
 * of both sides. The walk's first statement tells when a left-out type has edges now; the store counts again and walks
 * again, so a type's first edge is walked from the next walk on.
 */
describe('lineage store: relationship types without edges left out', () => {
  let svc: TestService;
  let executor: Neo4jExecutor;
  let store: LineageStore;
  const texts: string[] = [];
  const id = uniqueId('lpt');
  // A type of this test's own, stored along the downstream direction (as Produces is): no other test has its edges.
  const along = `TestAlong_${id}`;
  const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${id}.${name},PROD)`;

  async function propose(name: string, aspectName: string, value: unknown) {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', {
      proposal: { entityType: 'dataset', entityUrn: ds(name), changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } },
    });
    expect(res.status).toBe(200);
  }

  beforeAll(async () => {
    svc = await startTestService();
    // hub ← a, b (DownstreamOf, written by the service); c exists with no lineage yet.
    for (const name of ['a', 'b']) await propose(name, 'upstreamLineage', { upstreams: [{ dataset: ds('hub'), type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:x' } }] });
    await propose('c', 'datasetProperties', { description: 'c' });
    executor = new Neo4jExecutor({ uri: process.env.TEST_NEO4J_URI!, user: '', password: '', database: 'neo4j', timeoutMs: 10_000, cypherDir: join(ROOT, 'cypher') }, createLogger('silent'));
    const recording = recordingExecutor(executor, (text) => texts.push(text));
    store = new LineageStore(recording, new Map([['DownstreamOf', { isUpstream: true }], [along, { isUpstream: false }]]), 'li');
    await store.prepare();
  }, 120_000);

  afterAll(async () => {
    await executor?.close();
    await svc?.close();
  });

  const downstream = async () => {
    texts.length = 0;
    const page = await store.traverse({
      urn: ds('hub'), direction: 'DOWNSTREAM', columns: false, maxHops: 2, fanOut: 1000, visitCap: 10_000,
      groups: [{ degrees: null, types: null, platforms: null, includeRemoved: true }], start: 0, count: 10, aspects: [], deadlineMs: 10_000,
    });
    return page.rows.map((r) => r.urn);
  };
  const kinds = () => texts.map((t) => (t.startsWith('UNWIND range') ? (t.includes('UNION') ? 'hop, both sides' : 'hop, one side') : t.includes('AS present') ? 'count types' : 'other'));

  test('a type with no edges is left out: one typed expansion per hop', async () => {
    expect(await downstream()).toEqual([ds('a'), ds('b')]);
    expect(kinds()).toEqual(['hop, one side', 'hop, one side']);
  });

  test("a left-out type's first edge is walked from the next walk on; the store counts the types again", async () => {
    const driver = (await import('neo4j-driver')).default.driver(process.env.TEST_NEO4J_URI!);
    try {
      await driver.executeQuery(`MATCH (h:Entity {urn: $hub}), (c:Entity {urn: $c}) CREATE (h)-[:${along}]->(c)`, { hub: ds('hub'), c: ds('c') }, { database: 'neo4j' });
    } finally {
      await driver.close();
    }
    expect(await downstream()).toEqual([ds('a'), ds('b'), ds('c')]);
    // The first walk's first statement found the type stale: counted again, then walked with both sides.
    expect(kinds()).toEqual(['hop, one side', 'count types', 'hop, both sides', 'hop, both sides']);
    expect(await downstream()).toEqual([ds('a'), ds('b'), ds('c')]);
    expect(kinds()).toEqual(['hop, both sides', 'hop, both sides']);
  });
});

/**
 * A walk answered again: once the read cache holds a copy of each row its last page had, the page is chosen in the
 * service and the hop only reads those rows' revs. A row whose rev changed (a write) or that is new on the page is read
 * afterwards; every row still comes with its current aspects.
 */
describe('lineage store: a page answered again is served from copies of its rows', () => {
  let svc: TestService;
  let executor: Neo4jExecutor;
  let store: LineageStore;
  const ran: { kind: 'hop' | 'after'; params: Record<string, unknown> }[] = [];
  const id = uniqueId('lpc');
  const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${id}.${name},PROD)`;
  const descriptions = new Map<string, string>();

  async function propose(name: string, aspectName: string, value: unknown) {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', {
      proposal: { entityType: 'dataset', entityUrn: ds(name), changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } },
    });
    expect(res.status).toBe(200);
  }
  const describe_ = async (name: string, description: string) => {
    descriptions.set(name, description);
    await propose(name, 'datasetProperties', { description });
  };
  const child = async (name: string) => {
    await propose(name, 'upstreamLineage', { upstreams: [{ dataset: ds('hub'), type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:x' } }] });
    await describe_(name, `about ${name}`);
  };

  beforeAll(async () => {
    svc = await startTestService();
    for (const name of ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7']) await child(name);
    executor = new Neo4jExecutor({ uri: process.env.TEST_NEO4J_URI!, user: '', password: '', database: 'neo4j', timeoutMs: 10_000, cypherDir: join(ROOT, 'cypher') }, createLogger('silent'));
    const recording = recordingExecutor(executor, (text, params) => ran.push({ kind: text.includes('$urns') ? 'after' : 'hop', params }));
    const registry = Registry.load(join(ROOT, 'schema'), 'li');
    const written = new Map([...registry.lineageRelationships()].filter(([type]) => type === 'DownstreamOf'));
    // Checked copies (no lease): served only once Neo4j confirmed the rev, as the service's default.
    store = new LineageStore(recording, written, registry.urnNamespace, new LeasedReadCoherence(new LatestAspectCache(1 << 20)));
    await store.prepare();
  }, 120_000);

  afterAll(async () => {
    await executor?.close();
    await svc?.close();
  });

  const walk = async () => {
    ran.length = 0;
    const page = await store.traverse({
      urn: ds('hub'), direction: 'DOWNSTREAM', columns: false, maxHops: 1, fanOut: 1000, visitCap: 10_000,
      groups: [{ degrees: null, types: null, platforms: null, includeRemoved: true }], start: 0, count: 5,
      aspects: ['datasetProperties', 'status'], deadlineMs: 10_000,
    });
    const names = page.rows.map((r) => r.urn.slice(r.urn.indexOf(`${id}.`) + id.length + 1, -',PROD)'.length));
    for (const [k, r] of page.rows.entries()) expect(r.aspects.get('datasetProperties')).toEqual({ description: descriptions.get(names[k]) });
    const [first] = ran;
    return {
      names,
      total: page.total,
      statements: ran.map((r) => r.kind),
      // The walk's one hop is its last, counted in Neo4j: it reads its page's aspects, or only their revs.
      pageReadInHop: first.params.readAspects === true,
    };
  };

  test('the first two walks read the page in the hop (the second leaves copies); the third reads only revs', async () => {
    const inHop = { names: ['k1', 'k2', 'k3', 'k4', 'k5'], total: 7, statements: ['hop'], pageReadInHop: true };
    expect(await walk()).toEqual(inHop);
    expect(await walk()).toEqual(inHop);
    expect(await walk()).toEqual({ ...inHop, pageReadInHop: false });
    expect(await walk()).toEqual({ ...inHop, pageReadInHop: false });
  });

  test('a row written since its copy was made is read again, with its new aspects; then its new copy serves', async () => {
    await describe_('k3', 'k3, described again');
    expect(await walk()).toEqual({ names: ['k1', 'k2', 'k3', 'k4', 'k5'], total: 7, statements: ['hop', 'after'], pageReadInHop: false });
    expect((ran[1].params.urns as string[])).toEqual([ds('k3')]);
    expect(await walk()).toMatchObject({ statements: ['hop'], pageReadInHop: false });
  });

  test('a row new on the page is read afterwards; the walk after reads its page in the hop again, until it holds copies', async () => {
    await child('k0');
    expect(await walk()).toEqual({ names: ['k0', 'k1', 'k2', 'k3', 'k4'], total: 8, statements: ['hop', 'after'], pageReadInHop: false });
    expect((ran[1].params.urns as string[])).toEqual([ds('k0')]);
    // k0 was not among the rows hinted, so no copy of it was kept: one more walk reads the page in the hop.
    expect(await walk()).toMatchObject({ names: ['k0', 'k1', 'k2', 'k3', 'k4'], statements: ['hop'], pageReadInHop: true });
    expect(await walk()).toMatchObject({ names: ['k0', 'k1', 'k2', 'k3', 'k4'], statements: ['hop'], pageReadInHop: false });
  });

  test('a row soft-deleted since is left out of the page as before', async () => {
    await propose('k1', 'status', { removed: true });
    ran.length = 0;
    const page = await store.traverse({
      urn: ds('hub'), direction: 'DOWNSTREAM', columns: false, maxHops: 1, fanOut: 1000, visitCap: 10_000,
      groups: [{ degrees: null, types: null, platforms: null, includeRemoved: false }], start: 0, count: 5,
      aspects: ['datasetProperties', 'status'], deadlineMs: 10_000,
    });
    expect(page.rows.map((r) => r.urn)).toEqual(['k0', 'k2', 'k3', 'k4', 'k5'].map(ds));
    expect(page.rows.map((r) => (r.aspects.get('datasetProperties') as { description: string }).description)).toEqual(['about k0', 'about k2', 'k3, described again', 'about k4', 'about k5']);
  });
});
