import { proposal } from '../support/samples';
import { enc, mintToken, bearer, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * Reads as of a moment: aspects (entitiesV2, the rest.li aspect get) and lineage (rest.li and GraphQL) as they were
 * then, from the kept versions; a moment before the kept history is refused, never answered with a guess.
 */
describe('reads as of a moment', () => {
  let svc: TestService;
  let token: string;

  beforeAll(async () => {
    svc = await startTestService();
    token = (await mintToken({ scopes: ['read'] })).token;
  }, 60_000);

  afterAll(async () => {
    await svc?.close();
  });

  const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
  const tick = () => new Promise((r) => setTimeout(r, 15));

  async function put(s: TestService, urn: string, aspect: string, value: unknown) {
    const res = await s.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value));
    expect(res.status).toBe(200);
  }

  /** Writes, then returns a moment after the write and before the next one. */
  async function putThen(s: TestService, urn: string, aspect: string, value: unknown): Promise<number> {
    await put(s, urn, aspect, value);
    await tick();
    const t = Date.now();
    await tick();
    return t;
  }

  const tags = (...t: string[]) => ({ tags: t.map((x) => ({ tag: `urn:li:tag:${x}` })) });

  describe('aspects', () => {
    it('entitiesV2 and the aspect get answer each aspect as it was then', async () => {
      const urn = dataset(`asof_${uniqueId()}`);
      const before = Date.now() - 1;
      await tick();
      const t1 = await putThen(svc, urn, 'globalTags', tags('A'));
      const t2 = await putThen(svc, urn, 'datasetProperties', { name: 'first', customProperties: {} });
      const t3 = await putThen(svc, urn, 'globalTags', tags('A', 'B'));
      await putThen(svc, urn, 'datasetProperties', { name: 'second', customProperties: {} });

      const at = async (t: number) => {
        const res = await svc.call('GET', `/entitiesV2/${enc(urn)}?asOfTime=${t}`);
        expect(res.status).toBe(200);
        return res.body.aspects as Record<string, { version: number; value: Record<string, unknown>; created: { time: number } }>;
      };
      const a1 = await at(t1);
      expect(a1.globalTags.value).toEqual(tags('A'));
      expect(a1.datasetProperties).toBeUndefined();
      const a2 = await at(t2);
      expect([a2.globalTags.value, a2.datasetProperties.value.name]).toEqual([tags('A'), 'first']);
      // A history version says which one it is; the latest is version 0.
      expect(a2.globalTags.version).toBe(1);
      const a3 = await at(t3);
      expect([a3.globalTags.value, a3.globalTags.version, a3.datasetProperties.value.name]).toEqual([tags('A', 'B'), 0, 'first']);
      const now = await at(Date.now());
      expect(now.datasetProperties.value.name).toBe('second');
      // Before the entity existed: only its key aspect, derived from the urn (as for an entity never written).
      expect(Object.keys(await at(before))).toEqual(['datasetKey']);
      // Only the aspects asked for.
      const some = await svc.call('GET', `/entitiesV2/${enc(urn)}?aspects=List(globalTags)&asOfTime=${t2}`);
      expect(Object.keys(some.body.aspects).sort()).toEqual(['datasetKey', 'globalTags']);

      const aspect = (query: string) => svc.call('GET', `/aspects/${enc(urn)}?aspect=datasetProperties&${query}`);
      const got = await aspect(`asOfTime=${t2}`);
      expect([got.status, got.body]).toEqual([200, { version: 1, aspect: { 'com.linkedin.dataset.DatasetProperties': { name: 'first', customProperties: {} } } }]);
      expect((await aspect(`asOfTime=${t1}`)).status).toBe(404);
      expect((await aspect(`asOfTime=${t2}&version=1`)).status).toBe(400);
      expect((await svc.call('GET', `/entitiesV2/${enc(urn)}?asOfTime=-5`)).status).toBe(400);
    });

    it('refuses a moment before retention trimmed (by count), and the timeline says from when history is kept', async () => {
      const trimming = await startTestService({ RETENTION_MAX_VERSIONS: '2' });
      try {
        const urn = dataset(`trim_${uniqueId()}`);
        const moments: number[] = [];
        for (const t of ['A', 'B', 'C', 'D', 'E']) moments.push(await putThen(trimming, urn, 'globalTags', tags(t)));
        // Kept: C and D (history) and E (latest). As of D's time: D; as of B's time: trimmed.
        const read = (t: number) => trimming.call('GET', `/entitiesV2/${enc(urn)}?aspects=List(globalTags)&asOfTime=${t}`);
        expect((await read(moments[3])).body.aspects.globalTags.value).toEqual(tags('D'));
        expect((await read(moments[2])).body.aspects.globalTags.value).toEqual(tags('C'));
        const refused = await read(moments[1]);
        expect(refused.status).toBe(410);
        expect(refused.body).toEqual({ status: 410, exceptionClass: 'HistoryTrimmedError', message: expect.stringContaining("History of aspect 'globalTags'") });
        expect((await trimming.call('GET', `/aspects/${enc(urn)}?aspect=globalTags&asOfTime=${moments[0]}`)).status).toBe(410);

        const timeline = await trimming.call('GET', `/openapi/v2/timeline/v1/${enc(urn)}?categories=TAG`);
        expect(timeline.status).toBe(200);
        const kept = timeline.headers.get('x-history-trimmed');
        expect(kept).toMatch(/^globalTags=\d+$/);
        // C is where kept history starts: not a creation, only D and E are changes.
        expect((timeline.body as { changeEvents: { operation: string; modifier: string }[] }[]).map((t) => t.changeEvents.map((e) => `${e.operation} ${e.modifier}`))).toEqual([
          ['REMOVE urn:li:tag:C', 'ADD urn:li:tag:D'],
          ['REMOVE urn:li:tag:D', 'ADD urn:li:tag:E'],
        ]);
        expect(Number(kept!.split('=')[1])).toBeLessThan(moments[2]);
        expect(Number(kept!.split('=')[1])).toBeGreaterThan(moments[1]);
      } finally {
        await trimming.close();
      }
    });

    it('retention by age keeps the version current at the horizon and drops older ones', async () => {
      const aging = await startTestService({ RETENTION_MAX_AGE: '1s', RETENTION_MAX_VERSIONS: '100' });
      try {
        const urn = dataset(`age_${uniqueId()}`);
        const tA = await putThen(aging, urn, 'globalTags', tags('A'));
        const tB = await putThen(aging, urn, 'globalTags', tags('B'));
        const tC = await putThen(aging, urn, 'globalTags', tags('C'));
        await new Promise((r) => setTimeout(r, 1200));
        const horizon = Date.now() - 1000;
        await put(aging, urn, 'globalTags', tags('D'));
        const read = (t: number) => aging.call('GET', `/entitiesV2/${enc(urn)}?aspects=List(globalTags)&asOfTime=${t}`);
        // C was current a second ago: kept. A and B had been superseded before then: trimmed.
        expect((await read(horizon)).body.aspects.globalTags.value).toEqual(tags('C'));
        expect((await read(tC)).body.aspects.globalTags.value).toEqual(tags('C'));
        expect((await read(tB)).status).toBe(410);
        expect((await read(tA)).status).toBe(410);
      } finally {
        await aging.close();
      }
    });
  });

  describe('lineage, 3 hops, after edges were added and removed over time', () => {
    const id = uniqueId();
    const d = (n: string) => dataset(`lin_${id}_${n}`);
    const job = `urn:li:dataJob:(urn:li:dataFlow:(airflow,flow_${id},prod),job)`;
    const upstreams = (...u: string[]) => ({ upstreams: u.map((dataset) => ({ dataset, type: 'TRANSFORMED' })) });
    const io = (inputs: string[], outputs: string[]) => ({ inputDatasets: inputs, outputDatasets: outputs });
    let before = 0;
    let t0 = 0;
    let t1 = 0;
    let t2 = 0;

    beforeAll(async () => {
      before = Date.now();
      await tick();
      // t0: A <- B <- C <- D, and job J reads A and writes G.
      await put(svc, d('B'), 'upstreamLineage', upstreams(d('A')));
      await put(svc, d('C'), 'upstreamLineage', upstreams(d('B')));
      await put(svc, d('D'), 'upstreamLineage', upstreams(d('C')));
      await put(svc, d('D'), 'datasetProperties', { name: 'D at first', customProperties: {} });
      t0 = await putThen(svc, job, 'dataJobInputOutput', io([d('A')], [d('G')]));
      // t1: C reads E instead of B; J writes H instead of G; D renamed.
      await put(svc, d('C'), 'upstreamLineage', upstreams(d('E')));
      await put(svc, job, 'dataJobInputOutput', io([d('A')], [d('H')]));
      t1 = await putThen(svc, d('D'), 'datasetProperties', { name: 'D later', customProperties: {} });
      // t2: D soft-deleted.
      t2 = await putThen(svc, d('D'), 'status', { removed: true });
    });

    const search = async (body: Record<string, unknown>) => {
      const res = await svc.call('POST', '/entities?action=searchAcrossLineage', { maxHops: 3, count: 100, ...body });
      expect(res.status).toBe(200);
      return res.body.value as { numEntities: number; entities: { entity: string; degree: number; paths: { path: string[] }[] }[]; truncated: boolean; truncatedBy: string[] };
    };
    const names = (v: { entities: { entity: string; degree: number }[] }) => v.entities.map((e) => `${e.degree} ${e.entity.replace(/^.*_(\w+),PROD\)$/, '$1').replace(job, 'J')}`);

    it('downstream of A: as of t0 through C and D (edges since removed), today without them', async () => {
      const then = await search({ urn: d('A'), direction: 'DOWNSTREAM', asOfTime: t0 });
      // Ordered by degree, then urn (urn:li:dataJob… before urn:li:dataset…).
      expect(names(then)).toEqual(['1 J', '1 B', '2 C', '2 G', '3 D']);
      expect(then.entities.find((e) => e.entity === d('D'))!.paths[0].path).toEqual([d('A'), d('B'), d('C'), d('D')]);
      const today = await search({ urn: d('A'), direction: 'DOWNSTREAM' });
      expect(names(today)).toEqual(['1 J', '1 B', '2 H']);
      // As of t1: C already reads E; J writes H.
      expect(names(await search({ urn: d('A'), direction: 'DOWNSTREAM', asOfTime: t1 }))).toEqual(['1 J', '1 B', '2 H']);
    });

    it('upstream of D: as of t0 C, B, A; as of t1 C, E', async () => {
      expect(names(await search({ urn: d('D'), direction: 'UPSTREAM', asOfTime: t0 }))).toEqual(['1 C', '2 B', '3 A']);
      expect(names(await search({ urn: d('D'), direction: 'UPSTREAM', asOfTime: t1 }))).toEqual(['1 C', '2 E']);
      // Before anything was written: nothing.
      expect((await search({ urn: d('D'), direction: 'UPSTREAM', asOfTime: before })).numEntities).toBe(0);
      // Hops bound the walk as today: 2 hops as of t0 stop at B, and say so.
      const two = await search({ urn: d('D'), direction: 'UPSTREAM', asOfTime: t0, maxHops: 2 });
      expect([names(two), two.truncatedBy]).toEqual([['1 C', '2 B'], ['maxHops']]);
    });

    it('soft deletes as of the moment: D is hidden after t2 only', async () => {
      const downstreamOfC = (t: number) => search({ urn: d('C'), direction: 'DOWNSTREAM', asOfTime: t });
      expect(names(await downstreamOfC(t1))).toEqual(['1 D']);
      expect(names(await downstreamOfC(t2))).toEqual([]);
      expect(names(await search({ urn: d('C'), direction: 'DOWNSTREAM', asOfTime: t2, includeSoftDeleted: true }))).toEqual(['1 D']);
    });

    it('GraphQL scrollAcrossLineage and searchAcrossLineage with asOfTime, entities as they were then', async () => {
      const query = `query($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { total searchResults { degree entity { urn ... on Dataset { properties { name } } } } } }`;
      const gql = async (input: Record<string, unknown>) => {
        const res = await svc.call('POST', '/api/graphql', { query, variables: { input } }, bearer(token));
        expect(res.status).toBe(200);
        return res.body;
      };
      const then = await gql({ urn: d('A'), direction: 'DOWNSTREAM', count: 100, orFilters: [{ and: [{ field: 'degree', values: ['1', '2', '3+'] }] }], asOfTime: String(t0) });
      const results = then.data.scrollAcrossLineage.searchResults as { degree: number; entity: { urn: string; properties?: { name: string } | null } }[];
      expect(results.map((r) => `${r.degree} ${r.entity.urn}`)).toEqual([`1 ${job}`, `1 ${d('B')}`, `2 ${d('C')}`, `2 ${d('G')}`, `3 ${d('D')}`]);
      expect(results.find((r) => r.entity.urn === d('D'))!.entity.properties!.name).toBe('D at first');
      // C had no properties then: it has some now, which an answer as of t0 must not show.
      await put(svc, d('C'), 'datasetProperties', { name: 'C today', customProperties: {} });
      const again = (await gql({ urn: d('A'), direction: 'DOWNSTREAM', count: 100, asOfTime: String(t0) })).data.scrollAcrossLineage.searchResults as typeof results;
      expect(again.find((r) => r.entity.urn === d('C'))!.entity.properties).toBeNull();
      expect(again.find((r) => r.entity.urn === d('D'))!.entity.properties!.name).toBe('D at first');
      const search = await svc.call(
        'POST',
        '/api/graphql',
        { query: `{ searchAcrossLineage(input: {urn: "${d('D')}", direction: UPSTREAM, count: 10, asOfTime: ${t1}}) { total searchResults { entity { urn } } } }` },
        bearer(token),
      );
      expect(search.body.data.searchAcrossLineage.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn)).toEqual([d('C'), d('E')]);
    });

    it('finds edges removed before their records existed: a database without the history index gets it built from the kept versions', async () => {
      const x = d('X');
      await put(svc, x, 'upstreamLineage', upstreams(d('A')));
      const linked = await putThen(svc, x, 'datasetProperties', { name: 'x', customProperties: {} });
      await putThen(svc, x, 'upstreamLineage', upstreams(d('B')));
      // As written by a version without :LineagePast records: x's removed edge to A is only in its kept versions.
      const run = (text: string, params: Record<string, unknown> = {}) => svc.graph.driver.executeQuery(text, params, { database: 'neo4j' });
      await run('MATCH (p:LineagePast {target: $a, type: "DownstreamOf", source: $x, aspect: "upstreamLineage"}) DELETE p', { a: d('A'), x });
      await run("MATCH (m:HistoryMeta {name: 'lineagePast'}) DELETE m");
      const fresh = await startTestService();
      try {
        const res = await fresh.call('POST', '/entities?action=searchAcrossLineage', { urn: d('A'), direction: 'DOWNSTREAM', maxHops: 1, count: 100, asOfTime: linked });
        expect(res.status).toBe(200);
        expect(res.body.value.entities.map((e: { entity: string }) => e.entity)).toContain(x);
        const meta = await run("MATCH (m:HistoryMeta {name: 'lineagePast'}) RETURN m.complete AS complete");
        expect(meta.records[0].get('complete')).toBe(true);
      } finally {
        await fresh.close();
      }
    });

    it('refuses a moment before trimmed lineage history, and column-level lineage as of a moment', async () => {
      const trimming = await startTestService({ RETENTION_MAX_VERSIONS: '1' });
      try {
        const x = dataset(`trimlin_${uniqueId()}`);
        const first = await putThen(trimming, x, 'upstreamLineage', upstreams(d('A')));
        await putThen(trimming, x, 'upstreamLineage', upstreams(d('B')));
        await putThen(trimming, x, 'upstreamLineage', upstreams(d('C')));
        const refused = await trimming.call('POST', '/entities?action=searchAcrossLineage', { urn: x, direction: 'UPSTREAM', maxHops: 1, asOfTime: first });
        expect([refused.status, refused.body.exceptionClass]).toEqual([410, 'HistoryTrimmedError']);
        // Found through the edge it once had: the downstream walk from A reaches x's trimmed aspect too.
        const fromA = await trimming.call('POST', '/entities?action=searchAcrossLineage', { urn: d('A'), direction: 'DOWNSTREAM', maxHops: 1, asOfTime: first });
        expect(fromA.status).toBe(410);
      } finally {
        await trimming.close();
      }
      const column = await svc.call('POST', '/entities?action=searchAcrossLineage', { urn: `urn:li:schemaField:(${d('A')},id)`, direction: 'UPSTREAM', asOfTime: t0 });
      expect(column.status).toBe(400);
    });
  });
});
