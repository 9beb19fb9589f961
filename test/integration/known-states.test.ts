import { AspectStore } from '../../src/stores/graph/aspect-store';
import { startTestService, uniqueId, type TestService } from '../support/service';

/**
 * Writes planned from the states the write path keeps (src/services/write-path/known-states.ts), sent in one statement,
 * leave Neo4j exactly as writes that lock and read first: the same sequence of proposals through a service that keeps
 * states and one that keeps none gives the same aspects, versions, edges, column edges and entity flags.
 */
describe('writes planned from known states', () => {
  let keeping: TestService;
  let locking: TestService;
  const knownGroups = jest.spyOn(AspectStore.prototype, 'writeKnownGroup');

  beforeAll(async () => {
    // RETENTION_MAX_VERSIONS 2: the sequence trims history.
    [keeping, locking] = await Promise.all([startTestService({ RETENTION_MAX_VERSIONS: '2' }), startTestService({ RETENTION_MAX_VERSIONS: '2', WRITE_CACHE_SIZE: '0' })]);
  });
  afterAll(async () => {
    knownGroups.mockRestore();
    await Promise.all([keeping?.close(), locking?.close()]);
  });

  const ds = (id: string, name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${id}.${name},PROD)`;
  const field = (dataset: string, f: string) => `urn:li:schemaField:(${dataset},${f})`;
  const lineage = (id: string, ups: string[], columns: [string, string][]) => ({
    upstreams: ups.map((u) => ({ dataset: ds(id, u), type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:x' } })),
    fineGrainedLineages: columns.map(([up, down]) => ({ upstreamType: 'FIELD_SET', upstreams: [field(ds(id, ups[0]), up)], downstreamType: 'FIELD', downstreams: [field(ds(id, 'd'), down)] })),
  });
  const owners = (...names: string[]) => ({ owners: names.map((n) => ({ owner: `urn:li:corpuser:${n}`, type: 'DATAOWNER' })) });

  /** Proposals, one request each, in order: [dataset name, aspect, value or 'DELETE']. */
  const sequence = (id: string): [string, string, unknown][] => [
    ['d', 'datasetProperties', { description: 'v1' }],
    ['d', 'ownership', owners('a', 'b')],
    ['d', 'ownership', owners('b', 'c')],
    ['d', 'ownership', owners('b', 'c')],
    ['d', 'upstreamLineage', lineage(id, ['u'], [['x', 'y']])],
    ['d', 'upstreamLineage', lineage(id, ['u', 'v'], [['x', 'z'], ['w', 'y']])],
    ['d', 'globalTags', { tags: [{ tag: 'urn:li:tag:pii' }] }],
    ...[2, 3, 4, 5].map((v): [string, string, unknown] => ['d', 'datasetProperties', { description: `v${v}` }]),
    // u was a placeholder (an upstream): its first aspects, then more.
    ['u', 'datasetProperties', { description: 'u1' }],
    ['u', 'ownership', owners('a')],
    ['u', 'datasetProperties', { description: 'u2' }],
    ['d', 'ownership', 'DELETE'],
    ['d', 'ownership', owners('c')],
    ['d', 'status', { removed: true }],
    ['d', 'status', { removed: false }],
    ['d', 'upstreamLineage', lineage(id, ['v'], [])],
    ['d', 'datasetProperties', { description: 'v6' }],
  ];

  async function play(svc: TestService, id: string): Promise<void> {
    for (const [name, aspectName, value] of sequence(id)) {
      const body = value === 'DELETE'
        ? { proposal: { entityType: 'dataset', entityUrn: ds(id, name), changeType: 'DELETE', aspectName } }
        : { proposal: { entityType: 'dataset', entityUrn: ds(id, name), changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } } };
      const res = await svc.call('POST', '/aspects?action=ingestProposal', body);
      expect(res.status).toBe(200);
    }
  }

  /** Everything Neo4j holds of the test's entities, with the test's id taken out; write times and hashes (of values holding the id) left out. */
  async function graphOf(svc: TestService, id: string): Promise<unknown> {
    const prefix = `urn:li:dataset:(urn:li:dataPlatform:hive,${id}.`;
    const { records } = await svc.graph.driver.executeQuery(
      `MATCH (e:Entity) WHERE e.urn STARTS WITH $prefix OR e.urn STARTS WITH 'urn:li:schemaField:(' + $prefix
       WITH e ORDER BY e.urn
       RETURN e.urn AS urn, e.placeholder AS placeholder, e.removed AS removed, e.type AS type,
         COLLECT { MATCH (a:Aspect {urn: e.urn}) RETURN [a.name, a.version, a.value, a.historyTrimmed, a.createdActor, a.runId] } AS aspects,
         [(e)-[:ASPECT]->(a) | [a.name, a.version]] AS latest,
         [(e)-[r]->(t:Entity) | [type(r), r.aspect, r.owner, r.isLineage, t.urn]] AS edges,
         COLLECT { MATCH (p:LineagePast {source: e.urn}) RETURN [p.type, p.aspect, p.target] } AS past`,
      { prefix },
      { database: 'neo4j' },
    );
    const text = JSON.stringify(
      records.map((r) => ({
        urn: r.get('urn'),
        placeholder: r.get('placeholder'),
        removed: r.get('removed'),
        type: r.get('type'),
        aspects: (r.get('aspects') as unknown[][]).map((a) => JSON.stringify(a)).sort(),
        latest: (r.get('latest') as unknown[][]).map((a) => JSON.stringify(a)).sort(),
        edges: (r.get('edges') as unknown[][]).map((a) => JSON.stringify(a)).sort(),
        past: (r.get('past') as unknown[][]).map((a) => JSON.stringify(a)).sort(),
      })),
    );
    return JSON.parse(text.replaceAll(id, 'ID'));
  }

  it('leave the graph as the locking way does, and are used', async () => {
    const [kept, locked] = [uniqueId('known'), uniqueId('locked')];
    knownGroups.mockClear();
    await Promise.all([play(keeping, kept), play(locking, locked)]);
    const applied = (await Promise.all(knownGroups.mock.results.map((r) => r.value as Promise<{ applied: boolean }>))).filter((t) => t.applied).length;
    // Every write but the first of d and of u (read whole), the delete (which forgets d) and the write after it.
    expect(applied).toBe(16);
    const [a, b] = await Promise.all([graphOf(keeping, kept), graphOf(locking, locked)]);
    expect(a).toEqual(b);
    expect((a as { urn: string }[]).map((e) => e.urn)).toContain('urn:li:dataset:(urn:li:dataPlatform:hive,ID.u,PROD)');
  });

  it('a state made stale by another process is not used: the write reads and plans again', async () => {
    const id = uniqueId('stale');
    const urn = ds(id, 'd');
    const put = (svc: TestService, description: string) =>
      svc.call('POST', '/aspects?action=ingestProposal', { proposal: { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'datasetProperties', aspect: { value: JSON.stringify({ description }), contentType: 'application/json' } } });
    expect((await put(keeping, 'one')).status).toBe(200);
    // Another process writes the same aspect: the kept state no longer matches the stored rev.
    expect((await put(locking, 'two')).status).toBe(200);
    knownGroups.mockClear();
    expect((await put(keeping, 'three')).status).toBe(200);
    const results = await Promise.all(knownGroups.mock.results.map((r) => r.value as Promise<{ applied: boolean }>));
    expect(results.map((t) => t.applied)).toEqual([false]);
    const { records } = await keeping.graph.driver.executeQuery('MATCH (a:Aspect {urn: $urn, name: $name}) RETURN a.version AS v, a.value AS value ORDER BY v', { urn, name: 'datasetProperties' }, { database: 'neo4j' });
    // Retention 2: the latest and the two before it, none lost, none twice.
    expect(records.map((r) => [r.get('v'), JSON.parse(r.get('value')).description])).toEqual([[0, 'three'], [1, 'one'], [2, 'two']]);
    // The next write is planned from what the fallback read.
    knownGroups.mockClear();
    expect((await put(keeping, 'four')).status).toBe(200);
    expect((await Promise.all(knownGroups.mock.results.map((r) => r.value as Promise<{ applied: boolean }>))).map((t) => t.applied)).toEqual([true]);
  });
});
