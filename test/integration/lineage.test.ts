import neo4j from 'neo4j-driver';
import { EntityReads } from '../../src/services/entity-reads';
import { bearer, deleteEntities, enc, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * Multi-hop lineage, column lineage and DataHub PATCH against real Neo4j, through the HTTP API; once in the default urn
 * namespace and once in another (URN_NAMESPACE), so nothing assumes `urn:li:`.
 */
describe.each(['li', 'acme'])('lineage (urn namespace %s)', (ns) => {
  let svc: TestService;
  let token: string;
  const id = uniqueId('lin');
  const env: Record<string, string> = ns === 'li' ? {} : { URN_NAMESPACE: ns };
  const ds = (name: string, platform = 'hive') => `urn:${ns}:dataset:(urn:${ns}:dataPlatform:${platform},${id}.${name},PROD)`;
  const field = (dataset: string, f: string) => `urn:${ns}:schemaField:(${dataset},${f})`;
  const created = new Set<string>();

  async function propose(urn: string, aspectName: string, value: unknown, changeType = 'UPSERT') {
    created.add(urn);
    const res = await svc.call('POST', '/aspects?action=ingestProposal', {
      proposal: { entityType: 'dataset', entityUrn: urn, changeType, aspectName, aspect: { value: JSON.stringify(value), contentType: changeType === 'PATCH' ? 'application/json-patch+json' : 'application/json' } },
    });
    return res;
  }
  const upstreams = (urn: string, ups: string[], fine: unknown[] = []) =>
    propose(urn, 'upstreamLineage', { upstreams: ups.map((u) => ({ dataset: u, type: 'TRANSFORMED', auditStamp: { time: 0, actor: `urn:${ns}:corpuser:x` } })), ...(fine.length ? { fineGrainedLineages: fine } : {}) });
  const lineage = (body: Record<string, unknown>) => svc.call('POST', '/entities?action=searchAcrossLineage', { count: 100, ...body });
  const found = (res: { body: any }) => (res.body.value.entities as { entity: string; degree: number }[]).map((e) => `${e.degree}:${e.entity.replace(`${id}.`, '').replace(`urn:${ns}:dataset:(urn:${ns}:dataPlatform:`, '')}`);

  beforeAll(async () => {
    svc = await startTestService(env);
    token = (await mintToken()).token;
    // a ← b ← c ← d (hive, hive, snowflake, snowflake); d ← e; x ⇄ y (cycle); hub h with 5 downstreams, fed by a.
    await upstreams(ds('b'), [ds('a')]);
    await upstreams(ds('c', 'snowflake'), [ds('b')]);
    await upstreams(ds('d', 'snowflake'), [ds('c', 'snowflake')]);
    await upstreams(ds('e'), [ds('d', 'snowflake')]);
    await upstreams(ds('x'), [ds('y')]);
    await upstreams(ds('y'), [ds('x')]);
    await upstreams(ds('h'), [ds('a')]);
    for (let i = 0; i < 5; i++) await upstreams(ds(`h${i}`), [ds('h')]);
    await upstreams(ds('h0child'), [ds('h0')]);
    for (const n of ['a']) await propose(ds(n), 'status', { removed: false });
  }, 120_000);

  afterAll(async () => {
    await deleteEntities(svc.call, created);
    await svc.close();
  });

  test('downstream: every hop with its degree and a path; platform and degree filters; upstream', async () => {
    const all = await lineage({ urn: ds('a'), direction: 'DOWNSTREAM', maxHops: 4 });
    expect(all.status).toBe(200);
    expect(found(all)).toEqual(expect.arrayContaining(['1:hive,b,PROD)', '2:snowflake,c,PROD)', '3:snowflake,d,PROD)', '4:hive,e,PROD)', '1:hive,h,PROD)', '2:hive,h0,PROD)', '3:hive,h0child,PROD)']));
    const d = all.body.value.entities.find((e: any) => e.entity === ds('d', 'snowflake'));
    expect(d.paths[0].path).toEqual([ds('a'), ds('b'), ds('c', 'snowflake'), ds('d', 'snowflake')]);
    expect(all.body.value.truncated).toBe(false);

    const snow = await lineage({ urn: ds('a'), direction: 'DOWNSTREAM', filter: { or: [{ and: [{ field: 'degree', values: ['1', '2'] }, { field: 'platform.keyword', values: [`urn:${ns}:dataPlatform:snowflake`] }] }] } });
    expect(found(snow)).toEqual(['2:snowflake,c,PROD)']);

    const up = await lineage({ urn: ds('e'), direction: 'UPSTREAM', maxHops: 10 });
    expect(found(up)).toEqual(['1:snowflake,d,PROD)', '2:snowflake,c,PROD)', '3:hive,b,PROD)', '4:hive,a,PROD)']);
    const both = await lineage({ urn: ds('c', 'snowflake'), direction: 'BOTH', maxHops: 1 });
    expect(found(both).sort()).toEqual(['1:hive,b,PROD)', '1:snowflake,d,PROD)']);
  });

  test("the last hop's filters (degree, platform, entity type, OR-groups), applied where it is counted in Neo4j", async () => {
    const twoHops = (filter: unknown, entities?: string[]) => lineage({ urn: ds('a'), direction: 'DOWNSTREAM', maxHops: 2, ...(entities ? { entities } : {}), ...(filter ? { filter } : {}) });
    const snowAtTwo = await twoHops({ or: [{ and: [{ field: 'degree', values: ['2'] }, { field: 'platform.keyword', values: [`urn:${ns}:dataPlatform:snowflake`] }] }] });
    expect([found(snowAtTwo), snowAtTwo.body.value.numEntities]).toEqual([['2:snowflake,c,PROD)'], 1]);
    const firstOnly = await twoHops({ or: [{ and: [{ field: 'degree', values: ['1'] }] }] });
    expect([found(firstOnly), firstOnly.body.value.numEntities]).toEqual([['1:hive,b,PROD)', '1:hive,h,PROD)'], 2]);
    const hive = await twoHops({ or: [{ and: [{ field: 'platform.keyword', values: [`urn:${ns}:dataPlatform:hive`] }] }] });
    expect([found(hive), hive.body.value.numEntities]).toEqual([['1:hive,b,PROD)', '1:hive,h,PROD)', ...[0, 1, 2, 3, 4].map((i) => `2:hive,h${i},PROD)`)], 7]);
    const either = await twoHops({ or: [{ and: [{ field: 'degree', values: ['2'] }, { field: 'platform.keyword', values: [`urn:${ns}:dataPlatform:snowflake`] }] }, { and: [{ field: 'degree', values: ['1'] }] }] });
    expect([found(either), either.body.value.numEntities]).toEqual([['1:hive,b,PROD)', '1:hive,h,PROD)', '2:snowflake,c,PROD)'], 3]);
    const charts = await twoHops(null, ['chart']);
    expect([found(charts), charts.body.value.numEntities]).toEqual([[], 0]);
    const datasets = await twoHops(null, ['dataset']);
    expect(datasets.body.value.numEntities).toBe(8);
  });

  test('max hops bound says truncated: maxHops; paging by start/count and by scrollId', async () => {
    const res = await lineage({ urn: ds('a'), direction: 'DOWNSTREAM', maxHops: 1 });
    expect(found(res).sort()).toEqual(['1:hive,b,PROD)', '1:hive,h,PROD)']);
    expect(res.body.value).toMatchObject({ truncated: true, truncatedBy: ['maxHops'] });
    const p1 = await svc.call('POST', '/entities?action=scrollAcrossLineage', { urn: ds('a'), direction: 'DOWNSTREAM', maxHops: 4, count: 4 });
    expect(p1.body.value.entities).toHaveLength(4);
    const p2 = await svc.call('POST', '/entities?action=scrollAcrossLineage', { urn: ds('a'), direction: 'DOWNSTREAM', maxHops: 4, count: 100, scrollId: p1.body.value.scrollId });
    expect(p2.body.value.scrollId).toBeUndefined();
    expect(p1.body.value.entities.length + p2.body.value.entities.length).toBe(p1.body.value.numEntities);
  });

  test('cycles terminate, each node once', async () => {
    const res = await lineage({ urn: ds('x'), direction: 'UPSTREAM', maxHops: 20 });
    expect(found(res)).toEqual(['1:hive,y,PROD)']);
  });

  test('a hub beyond the fan-out cap is reached but not expanded, and the answer says truncated: fanOut', async () => {
    const res = await lineage({ urn: ds('a'), direction: 'DOWNSTREAM', maxHops: 5, fanOut: 3 });
    expect(res.body.value).toMatchObject({ truncated: true, truncatedBy: ['fanOut'] });
    expect(found(res)).toContain('1:hive,h,PROD)');
    expect(found(res).some((f) => f.includes(',h0'))).toBe(false);
    // From the hub itself: the start is always expanded.
    const hub = await lineage({ urn: ds('h'), direction: 'DOWNSTREAM', maxHops: 1, fanOut: 3 });
    expect(found(hub)).toHaveLength(5);
  });

  test('a result cap says truncated: results; a deadline is a 504, not a partial answer; bad bounds are 400', async () => {
    const capped = await startTestService({ ...env, LINEAGE_RESULT_CAP: '3' });
    try {
      const res = await capped.call('POST', '/entities?action=searchAcrossLineage', { urn: ds('a'), direction: 'DOWNSTREAM', maxHops: 5, count: 3 });
      expect(res.body.value.truncatedBy).toContain('results');
      // The nearest nodes are kept: both of degree 1 (b, h), then the first of degree 2 in urn order.
      expect(found(res)).toEqual(['1:hive,b,PROD)', '1:hive,h,PROD)', '2:hive,h0,PROD)']);
      // Exactly as many nodes as the cap: complete, not truncated.
      const fits = await capped.call('POST', '/entities?action=searchAcrossLineage', { urn: ds('d', 'snowflake'), direction: 'UPSTREAM', maxHops: 5, count: 3 });
      expect(fits.body.value).toMatchObject({ numEntities: 3, truncated: false, truncatedBy: [] });
    } finally {
      await capped.close();
    }
    const late = await lineage({ urn: ds('a'), direction: 'DOWNSTREAM', maxHops: 5, deadlineMs: 1 });
    expect(late.status).toBe(504);
    expect(late.body).toMatchObject({ status: 504, exceptionClass: 'DeadlineExceededError' });
    expect((await lineage({ urn: ds('a'), direction: 'DOWNSTREAM', maxHops: 999 })).status).toBe(400);
    expect((await lineage({ urn: 'nope', direction: 'DOWNSTREAM' })).status).toBe(400);
    expect((await lineage({ urn: ds('a'), direction: 'DOWNSTREAM', filter: { or: [{ and: [{ field: 'owners', values: ['x'] }] }] } })).status).toBe(400);
  });

  test('the maxHops cut is told when only one of many nodes at the bound leads on', async () => {
    // 40 downstreams of w; then the last of them in urn order gets a downstream of its own.
    for (let i = 0; i < 40; i++) await upstreams(ds(`w${String(i).padStart(2, '0')}`), [ds('w')]);
    const leaves = await lineage({ urn: ds('w'), direction: 'DOWNSTREAM', maxHops: 1 });
    expect(leaves.body.value).toMatchObject({ numEntities: 40, truncated: false, truncatedBy: [] });
    await upstreams(ds('w39child'), [ds('w39')]);
    const cut = await lineage({ urn: ds('w'), direction: 'DOWNSTREAM', maxHops: 1 });
    expect(cut.body.value).toMatchObject({ numEntities: 40, truncated: true, truncatedBy: ['maxHops'] });
  });

  test('the maxHops cut is told too after a walk too large to ask in its last hop', async () => {
    // v → 300 children → one grandchild each: past 256 visited nodes the last hop does not ask, a statement after it does.
    const name = (i: number) => `v${String(i).padStart(3, '0')}`;
    for (let i = 0; i < 300; i += 30) {
      await Promise.all(Array.from({ length: 30 }, (_, k) => upstreams(ds(name(i + k)), [ds('v')])));
      await Promise.all(Array.from({ length: 30 }, (_, k) => upstreams(ds(`${name(i + k)}g`), [ds(name(i + k))])));
    }
    const leaves = await lineage({ urn: ds('v'), direction: 'DOWNSTREAM', maxHops: 2 });
    expect(leaves.body.value).toMatchObject({ numEntities: 600, truncated: false, truncatedBy: [] });
    await upstreams(ds('v299gchild'), [ds('v299g')]);
    const cut = await lineage({ urn: ds('v'), direction: 'DOWNSTREAM', maxHops: 2 });
    expect(cut.body.value).toMatchObject({ numEntities: 600, truncated: true, truncatedBy: ['maxHops'] });
  });

  test('soft-deleted entities are hidden unless asked for', async () => {
    await propose(ds('h1'), 'status', { removed: true });
    const res = await lineage({ urn: ds('h'), direction: 'DOWNSTREAM', maxHops: 1 });
    expect(found(res)).not.toContain('1:hive,h1,PROD)');
    const withDeleted = await lineage({ urn: ds('h'), direction: 'DOWNSTREAM', maxHops: 1, includeSoftDeleted: true });
    expect(found(withDeleted)).toContain('1:hive,h1,PROD)');
  });

  test('the soft-delete flag on the node follows every change of the status aspect; entities from before get it at start', async () => {
    const driver = neo4j.driver(process.env.TEST_NEO4J_URI!);
    const cypher = (q: string, params: Record<string, unknown> = {}) => driver.executeQuery(q, params, { database: 'neo4j' });
    const flag = async () => (await cypher('MATCH (e:Entity {urn: $urn}) RETURN e.removed AS removed', { urn: ds('h2') })).records[0].get('removed');
    const shown = async (service = svc) => found(await service.call('POST', '/entities?action=searchAcrossLineage', { urn: ds('h'), direction: 'DOWNSTREAM', maxHops: 1, count: 100 })).includes('1:hive,h2,PROD)');
    try {
      await propose(ds('h2'), 'status', { removed: true });
      expect([await flag(), await shown()]).toEqual([true, false]);
      await propose(ds('h2'), 'status', { removed: false });
      expect([await flag(), await shown()]).toEqual([null, true]);
      await propose(ds('h2'), 'status', { removed: true });
      expect((await svc.call('POST', '/entities?action=delete', { urn: ds('h2'), aspectName: 'status' })).status).toBe(200);
      expect([await flag(), await shown()]).toEqual([null, true]);

      // Written before the write path kept the flag: a start fills it in, and hops read it once that is done.
      await propose(ds('h2'), 'status', { removed: true });
      await cypher('MATCH (e:Entity {urn: $urn}) REMOVE e.removed', { urn: ds('h2') });
      await cypher("MATCH (m:Migration {name: 'entitySoftDeleteFlag'}) DELETE m");
      const restarted = await startTestService(env);
      try {
        const recorded = async () => (await cypher("MATCH (m:Migration {name: 'entitySoftDeleteFlag'}) RETURN count(m) AS n")).records[0].get('n').toNumber() === 1;
        for (let i = 0; i < 600 && !(await recorded()); i++) await new Promise((r) => setTimeout(r, 100));
        expect(await recorded()).toBe(true);
        expect([await flag(), await shown(restarted)]).toEqual([true, false]);
      } finally {
        await restarted.close();
      }
    } finally {
      await propose(ds('h2'), 'status', { removed: false });
      await driver.close();
    }
  });

  test('column-level lineage: fineGrainedLineages become schemaField edges; lineage from a column; edges follow updates', async () => {
    const src = ds('colsrc');
    const mid = ds('colmid');
    const dst = ds('coldst');
    await upstreams(mid, [src], [{ upstreamType: 'FIELD_SET', upstreams: [field(src, 'id')], downstreamType: 'FIELD', downstreams: [field(mid, 'id2')] }]);
    await upstreams(dst, [mid], [{ upstreamType: 'FIELD_SET', upstreams: [field(mid, 'id2')], downstreamType: 'FIELD', downstreams: [field(dst, 'id3')] }]);
    const down = await lineage({ urn: field(src, 'id'), direction: 'DOWNSTREAM', maxHops: 5 });
    expect(down.body.value.entities.map((e: any) => [e.degree, e.entity])).toEqual([
      [1, field(mid, 'id2')],
      [2, field(dst, 'id3')],
    ]);
    // Dataset-level lineage does not wander into columns.
    expect(found(await lineage({ urn: src, direction: 'DOWNSTREAM', maxHops: 5 }))).toEqual([`1:hive,colmid,PROD)`, `2:hive,coldst,PROD)`]);
    // Replacing the aspect without the column mapping removes the column edge.
    await upstreams(dst, [mid]);
    const after = await lineage({ urn: field(src, 'id'), direction: 'DOWNSTREAM', maxHops: 5 });
    expect(after.body.value.entities.map((e: any) => e.entity)).toEqual([field(mid, 'id2')]);
  });

  test("GraphQL lineage of a column answers the columns' datasets, as DataHub groups it; grouping by SCHEMA_FIELD keeps the columns", async () => {
    const src = ds('grpsrc');
    const [one, two] = [ds('grpone'), ds('grptwo', 'snowflake')];
    await upstreams(one, [src], [{ upstreamType: 'FIELD_SET', upstreams: [field(src, 'id')], downstreamType: 'FIELD', downstreams: [field(one, 'id'), field(one, 'key')] }]);
    await upstreams(two, [one], [{ upstreamType: 'FIELD_SET', upstreams: [field(one, 'id')], downstreamType: 'FIELD', downstreams: [field(two, 'id')] }]);
    await propose(two, 'datasetProperties', { description: 'second' });
    const query = `query($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { total searchResults { degree entity { urn type ... on Dataset { properties { description } } } paths { path { urn type } } } } }`;
    const scroll = async (input: Record<string, unknown>) => {
      const res = await svc.call('POST', '/api/graphql', { query, variables: { input: { urn: field(src, 'id'), direction: 'DOWNSTREAM', count: 10, ...input } } }, bearer(token));
      expect(res.body.errors).toBeUndefined();
      return res.body.data.scrollAcrossLineage;
    };
    // The SDK's own grouping (SCHEMA_FIELD → SCHEMA_FIELD) is what it sends; DataHub's scroll groups to datasets anyway.
    const sdk = { groupingSpec: { groupingCriteria: [{ baseEntityType: 'SCHEMA_FIELD', groupingEntityType: 'SCHEMA_FIELD' }] } };
    const all = await scroll({ searchFlags: sdk, orFilters: [{ and: [{ field: 'degree', values: ['1', '2', '3+'] }] }] });
    expect(all.total).toBe(2);
    expect(all.searchResults).toEqual([
      { degree: 1, entity: { urn: one, type: 'DATASET', properties: null }, paths: [{ path: [{ urn: field(src, 'id'), type: 'SCHEMA_FIELD' }, { urn: field(one, 'id'), type: 'SCHEMA_FIELD' }] }, { path: [{ urn: field(src, 'id'), type: 'SCHEMA_FIELD' }, { urn: field(one, 'key'), type: 'SCHEMA_FIELD' }] }] },
      { degree: 2, entity: { urn: two, type: 'DATASET', properties: { description: 'second' } }, paths: [{ path: [field(src, 'id'), field(one, 'id'), field(two, 'id')].map((urn) => ({ urn, type: 'SCHEMA_FIELD' })) }] },
    ]);
    // Types and platforms filter the datasets.
    const onSnowflake = await scroll({ types: ['DATASET'], orFilters: [{ and: [{ field: 'degree', values: ['1', '2', '3+'] }, { field: 'platform.keyword', values: [`urn:${ns}:dataPlatform:snowflake`] }] }] });
    expect(onSnowflake.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn)).toEqual([two]);
    // searchAcrossLineage keeps the columns when asked to group by SCHEMA_FIELD.
    const columns = await svc.call('POST', '/api/graphql', {
      query: `query($input: SearchAcrossLineageInput!) { searchAcrossLineage(input: $input) { searchResults { entity { urn type } } } }`,
      variables: { input: { urn: field(src, 'id'), direction: 'DOWNSTREAM', count: 10, searchFlags: sdk } },
    }, bearer(token));
    expect(columns.body.data.searchAcrossLineage.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn)).toEqual([field(one, 'id'), field(one, 'key'), field(two, 'id')]);
    // A soft-deleted dataset is hidden with its columns, as DataHub's index hides it, unless asked for.
    await propose(two, 'status', { removed: true });
    const shown = async (input: Record<string, unknown>) => (await scroll(input)).searchResults.map((r: { entity: { urn: string } }) => r.entity.urn);
    expect(await shown({})).toEqual([one]);
    expect(await shown({ orFilters: [{ and: [{ field: 'removed', values: ['true'], negated: false }] }] })).toEqual([one, two]);
    await propose(two, 'status', { removed: false });
    expect(await shown({})).toEqual([one, two]);
  });

  test("paths hold the nodes edges pass through, as DataHub's: an upstream's query, a job's column lineage (the job a result of its own)", async () => {
    const [src, mid, out] = [ds('viasrc'), ds('viamid'), ds('viaout')];
    const query = `urn:${ns}:query:${id}-q`;
    const job = `urn:${ns}:dataJob:(urn:${ns}:dataFlow:(airflow,${id}-flow,PROD),${id}-job)`;
    const withQuery = (q: string | null) =>
      propose(mid, 'upstreamLineage', {
        upstreams: [{ dataset: src, type: 'TRANSFORMED', auditStamp: { time: 0, actor: `urn:${ns}:corpuser:x` }, ...(q ? { query: q } : {}) }],
        fineGrainedLineages: [{ upstreamType: 'FIELD_SET', upstreams: [field(src, 'a')], downstreamType: 'FIELD', downstreams: [field(mid, 'a')], ...(q ? { query: q } : {}) }],
      });
    expect((await withQuery(query)).status).toBe(200);
    created.add(job);
    const jobWrite = await svc.call('POST', '/aspects?action=ingestProposal', {
      proposal: {
        entityType: 'dataJob', entityUrn: job, changeType: 'UPSERT', aspectName: 'dataJobInputOutput',
        aspect: { contentType: 'application/json', value: JSON.stringify({ inputDatasets: [mid], outputDatasets: [out], fineGrainedLineages: [{ upstreamType: 'FIELD_SET', upstreams: [field(mid, 'a')], downstreamType: 'FIELD', downstreams: [field(out, 'a')] }] }) },
      },
    });
    expect(jobWrite.status).toBe(200);
    const restPaths = async (urn: string) => {
      const res = await lineage({ urn: src, direction: 'DOWNSTREAM', maxHops: 3 });
      return (res.body.value.entities as { entity: string; paths: { path: string[] }[] }[]).find((e) => e.entity === urn)?.paths.map((p) => p.path);
    };
    // Dataset level: the query sits between the datasets; the job is a node of the walk as before.
    expect(await restPaths(mid)).toEqual([[src, query, mid]]);
    expect(await restPaths(out)).toEqual([[src, query, mid, job, out]]);

    const sal = `query($input: SearchAcrossLineageInput!) { searchAcrossLineage(input: $input) { searchResults { degree entity { urn } paths { path { urn } } } } }`;
    const grouped = { groupingSpec: { groupingCriteria: [{ baseEntityType: 'SCHEMA_FIELD', groupingEntityType: 'DATASET' }] } };
    const columnWalk = async (urn: string, direction: string, degree?: string) => {
      const res = await svc.call('POST', '/api/graphql', {
        query: sal,
        variables: { input: { urn, direction, query: '*', count: 20, searchFlags: grouped, ...(degree ? { orFilters: [{ and: [{ field: 'degree', condition: 'EQUAL', values: [degree] }] }] } : {}) } },
      }, bearer(token));
      expect(res.body.errors).toBeUndefined();
      return Object.fromEntries(
        (res.body.data.searchAcrossLineage.searchResults as { degree: number; entity: { urn: string }; paths: { path: { urn: string }[] }[] }[]).map((r) => [r.entity.urn, { degree: r.degree, paths: r.paths.map((p) => p.path.map((n) => n.urn)) }]),
      );
    };
    // Column level, downstream: the query is only passed through; the job is a result at the degree of the column it leads to.
    expect(await columnWalk(field(src, 'a'), 'DOWNSTREAM')).toEqual({
      [mid]: { degree: 1, paths: [[field(src, 'a'), query, field(mid, 'a')]] },
      [job]: { degree: 2, paths: [[field(src, 'a'), query, field(mid, 'a'), job]] },
      [out]: { degree: 2, paths: [[field(src, 'a'), query, field(mid, 'a'), job, field(out, 'a')]] },
    });
    expect(Object.keys(await columnWalk(field(src, 'a'), 'DOWNSTREAM', '1'))).toEqual([mid]);
    // Upstream, the same nodes in walk order.
    expect(await columnWalk(field(out, 'a'), 'UPSTREAM')).toEqual({
      [mid]: { degree: 1, paths: [[field(out, 'a'), job, field(mid, 'a')]] },
      [job]: { degree: 1, paths: [[field(out, 'a'), job]] },
      [src]: { degree: 2, paths: [[field(out, 'a'), job, field(mid, 'a'), query, field(src, 'a')]] },
    });
    // Another query replaces the edges' via; none leaves plain edges.
    const other = `${query}-2`;
    await withQuery(other);
    expect(await restPaths(mid)).toEqual([[src, other, mid]]);
    expect((await columnWalk(field(src, 'a'), 'DOWNSTREAM', '1'))[mid].paths).toEqual([[field(src, 'a'), other, field(mid, 'a')]]);
    await withQuery(null);
    expect(await restPaths(mid)).toEqual([[src, mid]]);
    expect((await columnWalk(field(src, 'a'), 'DOWNSTREAM', '1'))[mid].paths).toEqual([[field(src, 'a'), field(mid, 'a')]]);
  });

  test('GraphQL scrollAcrossLineage answers in DataHub shapes', async () => {
    const query = `query scrollAcrossLineage($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { nextScrollId total truncated truncatedBy
      searchResults { degree entity { urn type ... on Dataset { name platform { name } properties { description } } } paths { path { urn type } } } } }`;
    const res = await svc.call('POST', '/api/graphql', { query, variables: { input: { urn: ds('a'), direction: 'DOWNSTREAM', count: 10, types: ['DATASET'], orFilters: [{ and: [{ field: 'degree', condition: 'EQUAL', values: ['1'] }, { field: 'removed', condition: 'EQUAL', values: ['true'], negated: true }] }] } } }, bearer(token));
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const data = res.body.data.scrollAcrossLineage;
    expect(data.searchResults.map((r: any) => r.entity.urn).sort()).toEqual([ds('b'), ds('h')].sort());
    expect(data.searchResults[0]).toMatchObject({ degree: 1, entity: { type: 'DATASET', platform: { name: 'hive' } } });
    expect(data.searchResults[0].paths[0].path[0]).toEqual({ urn: ds('a'), type: 'DATASET' });
  });

  test('GraphQL lineage reads no aspect again that the walk read, whether the entity has it or not', async () => {
    const reads = jest.spyOn(EntityReads.prototype, 'aspectsOfMany');
    try {
      const query = `query($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { searchResults { entity { urn ... on Dataset { name platform { name } properties { description } } } } } }`;
      // a: no datasetProperties at all.
      const res = await svc.call('POST', '/api/graphql', { query, variables: { input: { urn: ds('b'), direction: 'UPSTREAM', count: 10 } } }, bearer(token));
      expect(res.body.data.scrollAcrossLineage.searchResults).toEqual([{ entity: { urn: ds('a'), name: `${id}.a`, platform: { name: 'hive' }, properties: null } }]);
      expect(reads).not.toHaveBeenCalled();
      // An aspect the walk does not read (tags) is read, once for the page.
      const tagged = `query($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { searchResults { entity { urn ... on Dataset { tags { tags { tag { urn } } } } } } } }`;
      const withTags = await svc.call('POST', '/api/graphql', { query: tagged, variables: { input: { urn: ds('a'), direction: 'DOWNSTREAM', count: 10 } } }, bearer(token));
      expect(withTags.body.errors).toBeUndefined();
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
  });

  test('GraphQL lineage shows each result with its own aspects, whether the walk fits its page (read in the hops) or not (read after)', async () => {
    const downstream = [ds('b'), ds('c', 'snowflake'), ds('d', 'snowflake'), ds('e'), ds('h'), ...[0, 1, 2, 3, 4].map((i) => ds(`h${i}`)), ds('h0child')];
    for (const urn of downstream) await propose(urn, 'datasetProperties', { description: `about ${urn}` });
    const query = `query($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { total searchResults { degree entity { urn ... on Dataset { properties { description } } } } } }`;
    for (const count of [100, 3, 7]) {
      const res = await svc.call('POST', '/api/graphql', { query, variables: { input: { urn: ds('a'), direction: 'DOWNSTREAM', count, orFilters: [{ and: [{ field: 'degree', values: ['1', '2', '3+'] }] }] } } }, bearer(token));
      expect(res.body.errors).toBeUndefined();
      const { total, searchResults: results } = res.body.data.scrollAcrossLineage as { total: number; searchResults: { entity: { urn: string; properties: { description: string } | null } }[] };
      // Tests before this one soft-delete some of them.
      expect(total).toBeGreaterThan(7);
      expect(results).toHaveLength(Math.min(count, total));
      for (const r of results) expect(r.entity.properties?.description).toBe(`about ${r.entity.urn}`);
    }
    // Pages further on (read in the hop the page starts in, or after), and a filter that passes over the rows a hop
    // read for the page: every row still has its own aspects, and the pages are the slices of the whole answer.
    const paged = `query($input: SearchAcrossLineageInput!) { searchAcrossLineage(input: $input) { total searchResults { degree entity { urn ... on Dataset { properties { description } } } } } }`;
    for (const filter of [['1', '2', '3+'], ['2', '3+'], ['3+']]) {
      const input = { urn: ds('a'), direction: 'DOWNSTREAM', orFilters: [{ and: [{ field: 'degree', values: filter }] }] };
      const all = await svc.call('POST', '/api/graphql', { query: paged, variables: { input: { ...input, start: 0, count: 100 } } }, bearer(token));
      const whole = (all.body.data.searchAcrossLineage.searchResults as { entity: { urn: string } }[]).map((r) => r.entity.urn);
      expect(whole.length).toBeGreaterThan(0);
      for (const [start, count] of [[0, 1], [1, 2], [2, 3], [4, 100], [whole.length - 1, 5]]) {
        const res = await svc.call('POST', '/api/graphql', { query: paged, variables: { input: { ...input, start, count } } }, bearer(token));
        expect(res.body.errors).toBeUndefined();
        const results = res.body.data.searchAcrossLineage.searchResults as { entity: { urn: string; properties: { description: string } | null } }[];
        expect(results.map((r) => r.entity.urn)).toEqual(whole.slice(start, start + count));
        for (const r of results) expect(r.entity.properties?.description).toBe(`about ${r.entity.urn}`);
      }
    }
  });

  test('GraphQL lineage asked again shows every write since, made through this process or another', async () => {
    // The page's rows are served from copies from the third time on (LineageStore.pageHints); a copy serves only while
    // its entity's rev is unchanged.
    // A hub of its own: tests before this one soft-delete some of h's.
    const kids = [0, 1, 2, 3, 4].map((i) => ds(`p${i}`));
    for (const urn of kids) await upstreams(urn, [ds('p')]);
    for (const urn of kids) await propose(urn, 'datasetProperties', { description: `first ${urn}` });
    const query = `query($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { searchResults { entity { urn ... on Dataset { properties { description } } } } } }`;
    const shown = async () => {
      const res = await svc.call('POST', '/api/graphql', { query, variables: { input: { urn: ds('p'), direction: 'DOWNSTREAM', count: 10 } } }, bearer(token));
      expect(res.body.errors).toBeUndefined();
      return Object.fromEntries((res.body.data.scrollAcrossLineage.searchResults as { entity: { urn: string; properties: { description: string } | null } }[]).map((r) => [r.entity.urn, r.entity.properties?.description]));
    };
    for (let i = 0; i < 3; i++) expect(await shown()).toEqual(Object.fromEntries(kids.map((urn) => [urn, `first ${urn}`])));
    // Another process's write leaves this process's copies in place (checked copies need no peer): the rev tells.
    const other = await startTestService(env);
    try {
      const res = await other.call('POST', '/aspects?action=ingestProposal', {
        proposal: { entityType: 'dataset', entityUrn: kids[3], changeType: 'UPSERT', aspectName: 'datasetProperties', aspect: { value: JSON.stringify({ description: 'second, through another process' }), contentType: 'application/json' } },
      });
      expect(res.status).toBe(200);
      const removed = await other.call('POST', '/aspects?action=ingestProposal', {
        proposal: { entityType: 'dataset', entityUrn: kids[4], changeType: 'UPSERT', aspectName: 'status', aspect: { value: JSON.stringify({ removed: true }), contentType: 'application/json' } },
      });
      expect(removed.status).toBe(200);
    } finally {
      await other.close();
    }
    const afterOther = { ...Object.fromEntries(kids.slice(0, 3).map((urn) => [urn, `first ${urn}`])), [kids[3]]: 'second, through another process' };
    for (let i = 0; i < 3; i++) expect(await shown()).toEqual(afterOther);
    await propose(kids[1], 'datasetProperties', { description: 'second, through this process' });
    for (let i = 0; i < 3; i++) expect(await shown()).toEqual({ ...afterOther, [kids[1]]: 'second, through this process' });
  });

  test('GraphQL lineage asked again: a new row, and what the answer shows of entities other than its rows, show at once', async () => {
    // An answer is kept for a query asked again (graphql-walk-answers.ts) and answered while its walk finds the same
    // rows at the same revs; a path's entities are not rows, so a query showing their properties is never kept.
    const hub = ds('q');
    const kids = [0, 1, 2].map((i) => ds(`q${i}`));
    for (const urn of kids) await upstreams(urn, [hub]);
    await propose(hub, 'datasetProperties', { description: 'the hub' });
    const ask = async (query: string) => {
      const res = await svc.call('POST', '/api/graphql', { query, variables: { input: { urn: hub, direction: 'DOWNSTREAM', count: 10 } } }, bearer(token));
      expect(res.body.errors).toBeUndefined();
      return res.body.data.scrollAcrossLineage.searchResults as { entity: { urn: string }; paths: { path: { urn: string; properties?: { description: string } | null }[] }[] }[];
    };
    const rowsOnly = `query($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { searchResults { entity { urn ... on Dataset { name platform { name } } } paths { path { urn } } } } }`;
    for (let i = 0; i < 3; i++) expect((await ask(rowsOnly)).map((r) => r.entity.urn)).toEqual(kids);
    await upstreams(ds('q3'), [hub]);
    for (let i = 0; i < 2; i++) expect((await ask(rowsOnly)).map((r) => r.entity.urn)).toEqual([...kids, ds('q3')]);

    const withStart = `query($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { searchResults { entity { urn } paths { path { urn ... on Dataset { properties { description } } } } } } }`;
    const startShown = async () => (await ask(withStart))[0].paths[0].path[0].properties?.description;
    for (let i = 0; i < 3; i++) expect(await startShown()).toBe('the hub');
    await propose(hub, 'datasetProperties', { description: 'the hub, described again' });
    expect(await startShown()).toBe('the hub, described again');
  });

  describe('PATCH: atomic read-modify-write, versioned like UPSERT, edges follow', () => {
    const target = ds('patched');
    const versions = async (aspect: string) => (await svc.call('GET', `/aspects/${enc(target)}?aspect=${aspect}&version=0`)).body;
    const rel = async (types: string) => (await svc.call('GET', `/relationships?urn=${enc(target)}&direction=OUTGOING&types=List(${types})`)).body.entities as string[];
    const history = async (aspect: string) => {
      const res = await svc.call('GET', `/aspects/${enc(target)}?aspect=${aspect}&version=1`);
      return res.status;
    };

    test('upstreamLineage: add and remove an upstream, on a missing aspect first', async () => {
      const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
      expect((await propose(target, 'upstreamLineage', [{ op: 'add', path: `/upstreams/${esc(ds('a'))}`, value: { dataset: ds('a'), type: 'COPY' } }], 'PATCH')).status).toBe(200);
      expect(await rel('DownstreamOf')).toEqual([ds('a')]);
      expect(await history('upstreamLineage')).toBe(404);
      await propose(target, 'upstreamLineage', [{ op: 'add', path: `/upstreams/${ds('b')}`, value: { dataset: ds('b'), type: 'COPY' } }], 'PATCH');
      expect((await rel('DownstreamOf')).sort()).toEqual([ds('a'), ds('b')].sort());
      expect(await history('upstreamLineage')).toBe(200);
      await propose(target, 'upstreamLineage', [{ op: 'remove', path: `/upstreams/${ds('a')}` }], 'PATCH');
      expect(await rel('DownstreamOf')).toEqual([ds('b')]);
      const latest = await versions('upstreamLineage');
      expect(latest.aspect['com.linkedin.dataset.UpstreamLineage'].upstreams.map((u: any) => u.dataset)).toEqual([ds('b')]);
    });

    test('globalTags: add/remove by tag (both DataHub forms)', async () => {
      await propose(target, 'globalTags', { arrayPrimaryKeys: { tags: ['attribution\u241fsource', 'tag'] }, patch: [{ op: 'add', path: `/tags//urn:${ns}:tag:${id}t1`, value: { tag: `urn:${ns}:tag:${id}t1` } }] }, 'PATCH');
      await propose(target, 'globalTags', [{ op: 'add', path: `/tags/urn:${ns}:tag:${id}t2`, value: { tag: `urn:${ns}:tag:${id}t2` } }], 'PATCH');
      expect((await rel('TaggedWith')).sort()).toEqual([`urn:${ns}:tag:${id}t1`, `urn:${ns}:tag:${id}t2`]);
      await propose(target, 'globalTags', [{ op: 'remove', path: `/tags/urn:${ns}:tag:${id}t1` }], 'PATCH');
      expect(await rel('TaggedWith')).toEqual([`urn:${ns}:tag:${id}t2`]);
    });

    test('ownership: add by owner + type, remove by owner', async () => {
      const u = (n: string) => `urn:${ns}:corpuser:${id}${n}`;
      await propose(target, 'ownership', [{ op: 'add', path: `/owners/${u('1')}/DATAOWNER`, value: { owner: u('1'), type: 'DATAOWNER' } }], 'PATCH');
      await propose(target, 'ownership', [{ op: 'add', path: `/owners/${u('1')}/TECHNICAL_OWNER`, value: { owner: u('1'), type: 'TECHNICAL_OWNER' } }], 'PATCH');
      await propose(target, 'ownership', [{ op: 'add', path: `/owners/${u('2')}/DATAOWNER`, value: { owner: u('2'), type: 'DATAOWNER' } }], 'PATCH');
      let owners = (await versions('ownership')).aspect['com.linkedin.common.Ownership'].owners;
      expect(owners).toHaveLength(3);
      await propose(target, 'ownership', [{ op: 'remove', path: `/owners/${u('1')}` }], 'PATCH');
      owners = (await versions('ownership')).aspect['com.linkedin.common.Ownership'].owners;
      expect(owners.map((o: any) => o.owner)).toEqual([u('2')]);
      expect(await rel('OwnedBy')).toEqual([u('2')]);
    });

    test('datasetProperties: custom property set and remove; a bad patch is a 400 and writes nothing', async () => {
      await propose(target, 'datasetProperties', [{ op: 'add', path: '/customProperties/k1', value: 'v1' }, { op: 'add', path: '/customProperties/k2', value: 'v2' }], 'PATCH');
      await propose(target, 'datasetProperties', [{ op: 'remove', path: '/customProperties/k1' }], 'PATCH');
      expect((await versions('datasetProperties')).aspect['com.linkedin.dataset.DatasetProperties'].customProperties).toEqual({ k2: 'v2' });
      expect((await propose(target, 'datasetProperties', [{ op: 'move', path: '/x' }], 'PATCH')).status).toBe(400);
      // A patch whose result breaks the schema is refused like an UPSERT would be.
      expect((await propose(target, 'datasetProperties', [{ op: 'add', path: '/customProperties/k3', value: 5 }], 'PATCH')).status).toBe(422);
      expect((await versions('datasetProperties')).aspect['com.linkedin.dataset.DatasetProperties'].customProperties).toEqual({ k2: 'v2' });
    });

    test('concurrent PATCHes of one aspect all land (the read-modify-write is atomic)', async () => {
      const n = 8;
      await Promise.all(Array.from({ length: n }, (_, i) => propose(target, 'datasetProperties', [{ op: 'add', path: `/customProperties/c${i}`, value: String(i) }], 'PATCH')));
      const props = (await versions('datasetProperties')).aspect['com.linkedin.dataset.DatasetProperties'].customProperties;
      for (let i = 0; i < n; i++) expect(props[`c${i}`]).toBe(String(i));
    });
  });
});
