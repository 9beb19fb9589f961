import fc from 'fast-check';
import neo4j, { type Driver } from 'neo4j-driver';
import { bearer, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * One projection: the edges restoreIndices rebuilds are exactly those the writes made. Random aspects of several entity
 * types (owners, tags, terms, field-level tags, dataset and column lineage, chart inputs, dashboard contents, job inputs
 * and outputs, group members; data jobs written without their key aspect; lineage through queries) are written, every edge they made is wiped
 * in Neo4j, the entities are restored, and the edge set must come back exactly.
 */

const idx = (n: number, max = 3) => fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: max });

const model = fc.record({
  datasets: fc.array(
    fc.record({
      owners: fc.option(idx(4), { nil: undefined }),
      tags: fc.option(idx(4), { nil: undefined }),
      terms: fc.option(idx(3), { nil: undefined }),
      fieldTags: fc.option(idx(4, 2), { nil: undefined }),
      upstreams: fc.option(fc.array(fc.record({ dataset: fc.integer({ min: 0, max: 3 }), columns: idx(3, 2), query: fc.boolean() }), { maxLength: 2 }), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  charts: fc.array(idx(4), { maxLength: 2 }),
  dashboards: fc.array(fc.record({ charts: idx(2), datasets: idx(4) }), { maxLength: 2 }),
  jobs: fc.array(fc.record({ inputs: idx(4), outputs: idx(4) }), { maxLength: 2 }),
  groups: fc.array(idx(4), { maxLength: 2 }),
});

type Model = typeof model extends fc.Arbitrary<infer T> ? T : never;

describe('restore rebuilds exactly the edges the writes made', () => {
  let svc: TestService;
  let driver: Driver;
  let admin: Record<string, string>;

  beforeAll(async () => {
    svc = await startTestService();
    driver = neo4j.driver(process.env.TEST_NEO4J_URI!);
    admin = bearer((await mintToken({ scopes: ['admin'] })).token);
  });

  afterAll(async () => {
    await driver?.close();
    await svc?.close();
  });

  function proposals(id: string, m: Model) {
    const dataset = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_d${i},PROD)`;
    const field = (i: number, c: number) => `urn:li:schemaField:(${dataset(i)},c${c})`;
    const user = (i: number) => `urn:li:corpuser:${id}_u${i}`;
    const tag = (i: number) => `urn:li:tag:${id}_t${i}`;
    const term = (i: number) => `urn:li:glossaryTerm:${id}_g${i}`;
    const chart = (i: number) => `urn:li:chart:(looker,${id}_c${i})`;
    const flow = `urn:li:dataFlow:(airflow,${id}_flow,prod)`;
    const job = (i: number) => `urn:li:dataJob:(${flow},${id}_j${i})`;
    const query = (i: number) => `urn:li:query:${id}_q${i}`;
    const stamp = { time: 0, actor: 'urn:li:corpuser:x' };
    const out: { entityUrn: string; aspectName: string; value: unknown }[] = [];
    const add = (entityUrn: string, aspectName: string, value: unknown) => out.push({ entityUrn, aspectName, value });
    m.datasets.forEach((d, i) => {
      add(dataset(i), 'datasetProperties', { name: `${id}_d${i}` });
      if (d.owners) add(dataset(i), 'ownership', { owners: d.owners.map((u) => ({ owner: user(u), type: 'DATAOWNER' })) });
      if (d.tags) add(dataset(i), 'globalTags', { tags: d.tags.map((t) => ({ tag: tag(t) })) });
      if (d.terms) add(dataset(i), 'glossaryTerms', { terms: d.terms.map((t) => ({ urn: term(t) })), auditStamp: stamp });
      if (d.fieldTags) {
        add(dataset(i), 'schemaMetadata', {
          schemaName: 's',
          platform: 'urn:li:dataPlatform:hive',
          version: 0,
          hash: '',
          platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
          fields: [0, 1, 2].map((c) => ({
            fieldPath: `c${c}`,
            nativeDataType: 'string',
            type: { type: { 'com.linkedin.schema.StringType': {} } },
            ...(c === 0 ? { globalTags: { tags: d.fieldTags!.map((t) => ({ tag: tag(t) })) } } : {}),
          })),
        });
      }
      const ups = (d.upstreams ?? []).filter((u) => u.dataset !== i && u.dataset < m.datasets.length);
      if (ups.length > 0) {
        add(dataset(i), 'upstreamLineage', {
          upstreams: ups.map((u) => ({ dataset: dataset(u.dataset), type: 'TRANSFORMED', auditStamp: stamp, ...(u.query ? { query: query(u.dataset) } : {}) })),
          fineGrainedLineages: ups
            .filter((u) => u.columns.length > 0)
            .map((u) => ({ upstreamType: 'FIELD_SET', upstreams: u.columns.map((c) => field(u.dataset, c)), downstreamType: 'FIELD', downstreams: [field(i, 0)], ...(u.query ? { query: query(u.dataset) } : {}) })),
        });
      }
    });
    m.charts.forEach((inputs, i) => add(chart(i), 'chartInfo', { title: 'c', description: '', lastModified: { created: stamp, lastModified: stamp }, inputs: inputs.map((d) => ({ string: dataset(d % m.datasets.length) })) }));
    m.dashboards.forEach((d, i) =>
      add(`urn:li:dashboard:(looker,${id}_b${i})`, 'dashboardInfo', {
        title: 'b',
        description: '',
        lastModified: { created: stamp, lastModified: stamp },
        charts: d.charts.filter((c) => c < m.charts.length).map(chart),
        datasets: d.datasets.map((x) => dataset(x % m.datasets.length)),
      }),
    );
    // Data jobs are written without their key aspect: its IsPartOf edge to the flow must exist from the first write.
    m.jobs.forEach((j, i) =>
      add(job(i), 'dataJobInputOutput', { inputDatasets: j.inputs.map((d) => dataset(d % m.datasets.length)), outputDatasets: j.outputs.map((d) => dataset(d % m.datasets.length)) }),
    );
    m.groups.forEach((members, i) => add(`urn:li:corpGroup:${id}_grp${i}`, 'corpGroupInfo', { admins: [], members: members.map(user), groups: [] }));
    return out;
  }

  async function edges(id: string): Promise<string[]> {
    const session = driver.session({ database: 'neo4j' });
    try {
      const result = await session.run(
        `MATCH (e:Entity)-[r]->(t:Entity) WHERE e.urn CONTAINS $id
         RETURN e.urn + ' -' + type(r) + '[' + r.aspect + coalesce(',' + r.owner, '') + coalesce(',via ' + r.via, '') + ']-> ' + t.urn AS edge`,
        { id },
      );
      return result.records.map((r) => r.get('edge') as string).sort();
    } finally {
      await session.close();
    }
  }

  /**
   * Damages the edges the writes made: all gone, every other one gone (column edges included), a stale edge added
   * to each aspect that owns edges (to another entity of the test), or the nodes they pass through forgotten (as edges
   * written before they were kept); `none` leaves them as they are.
   */
  async function damage(id: string, how: 'all' | 'some' | 'stale' | 'via' | 'none'): Promise<void> {
    const statements = {
      all: 'MATCH (e:Entity)-[r]->(:Entity) WHERE e.urn CONTAINS $id DELETE r',
      some: `MATCH (e:Entity)-[r]->(t:Entity) WHERE e.urn CONTAINS $id
             WITH r ORDER BY elementId(r) WITH collect(r) AS edges
             UNWIND [i IN range(0, size(edges) - 1) WHERE i % 2 = 0 | edges[i]] AS r DELETE r`,
      stale: `MATCH (e:Entity)-[r]->(:Entity) WHERE e.urn CONTAINS $id AND r.owner IS NULL
              WITH DISTINCT e, r.aspect AS aspect, type(r) AS type
              MATCH (stale:Entity) WHERE stale.urn CONTAINS $id AND stale <> e AND NOT (e)-[]->(stale)
              WITH e, aspect, type, min(stale.urn) AS target
              MATCH (t:Entity {urn: target})
              CREATE (e)-[s:$(type)]->(t) SET s.aspect = aspect`,
      via: 'MATCH (e:Entity)-[r]->(:Entity) WHERE e.urn CONTAINS $id AND r.via IS NOT NULL REMOVE r.via',
      none: null,
    };
    const statement = statements[how];
    if (!statement) return;
    const session = driver.session({ database: 'neo4j' });
    try {
      await session.run(statement, { id });
    } finally {
      await session.close();
    }
  }

  it('for random aspects of many entity types, whatever was left of the edges', async () => {
    await fc.assert(
      fc.asyncProperty(model, fc.constantFrom('all' as const, 'some' as const, 'stale' as const, 'via' as const, 'none' as const), async (m, how) => {
        const id = uniqueId('rp');
        const written = proposals(id, m).map((p) => ({
          entityUrn: p.entityUrn,
          entityType: p.entityUrn.split(':')[2],
          changeType: 'UPSERT',
          aspectName: p.aspectName,
          aspect: { value: JSON.stringify(p.value), contentType: 'application/json' },
        }));
        const res = await svc.call('POST', '/aspects?action=ingestProposalBatch', { proposals: written });
        expect(res.status).toBe(200);
        const made = await edges(id);
        for (const j of m.jobs.keys()) expect(made.some((e) => e.includes(`${id}_j${j})`) && e.includes('-IsPartOf[dataJobKey]->'))).toBe(true);

        await damage(id, how);
        if (how === 'all') expect(await edges(id)).toEqual([]);
        for (const urn of new Set(written.map((w) => w.entityUrn))) {
          const restored = await svc.call('POST', '/operations?action=restoreIndices', { urn, batchSize: 10 }, admin);
          expect(restored.status).toBe(200);
        }
        expect(await edges(id)).toEqual(made);
      }),
      { numRuns: 15 },
    );
  });
});
