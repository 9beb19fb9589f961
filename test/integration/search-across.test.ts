import type { EngineName } from '../../src/stores/search/engine';
import { proposal } from '../support/samples';
import { bearer, enc, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * Search over several entity types (rest.li and GraphQL searchAcrossEntities / scrollAcrossEntities,
 * aggregateAcrossEntities), the rest.li batch get and the OpenAPI v3 reads, with DataHub's answer shapes, on both
 * engines. Each run has an index set (prefix) of its own, so totals and facet counts see only this file's entities.
 */
const runPrefix = `across${Date.now().toString(36)}`;
describe.each<[EngineName, Record<string, string>]>([
  ['opensearch', { SEARCH_INDEX_PREFIX: `${runPrefix}_os_` }],
  ['elasticsearch', { SEARCH_INDEX_PREFIX: `${runPrefix}_es_` }],
])('search across entity types on %s', (engine, env) => {
  let svc: TestService;
  let auth: Record<string, string>;
  const id = uniqueId().toLowerCase();
  const ds = (name: string, platform = 'hive', origin = 'PROD') => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name}_${id},${origin})`;
  const orders = ds('orders');
  const customers = ds('customers', 'hive', 'DEV');
  const events = ds('events', 'kafka');
  const legacy = ds('legacy');
  const chart = `urn:li:chart:(looker,revenue_${id})`;
  const tag = `urn:li:tag:pii_${id}`;
  const owner = `urn:li:corpuser:alice_${id}`;
  const domain = `urn:li:domain:sales_${id}`;
  const container = `urn:li:container:db_${id}`;
  // Tags and users are searched by default too.
  const visible = [chart, customers, events, orders, owner, tag].sort();
  const all = [...visible, legacy];
  /** Python's quote(s, safe=''), as the client's Urn.url_encode: parentheses too. */
  const quote = (s: string) => encodeURIComponent(s).replace(/[()!'*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

  async function ingest(urn: string, aspect: string, value: unknown) {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value));
    expect(res.status).toBe(200);
  }

  async function graphql(query: string, variables: Record<string, unknown> = {}) {
    const res = await svc.call('POST', '/api/graphql', { query, variables }, auth);
    expect(res.status).toBe(200);
    return res.body;
  }

  /** urns of a GraphQL scrollAcrossEntities over every type, with these orFilters and flags. */
  async function scrollUrns(orFilters: unknown, searchFlags: Record<string, unknown> = {}, query = '*') {
    const body = await graphql('query($f: [AndFilterInput!], $s: SearchFlags, $q: String!) { scrollAcrossEntities(input: {query: $q, count: 100, orFilters: $f, searchFlags: $s}) { searchResults { entity { urn } } } }', {
      f: orFilters,
      s: searchFlags,
      q: query,
    });
    expect(body.errors).toBeUndefined();
    return (body.data.scrollAcrossEntities.searchResults as { entity: { urn: string } }[]).map((r) => r.entity.urn).sort();
  }

  const rule = (field: string, values: string[], condition = 'EQUAL', negated = false) => ({ field, values, condition, ...(negated ? { negated } : {}) });

  beforeAll(async () => {
    svc = await startTestService(env, engine);
    auth = bearer((await mintToken()).token);
    await ingest(orders, 'datasetProperties', { name: `orders_${id}`, description: 'orders placed', customProperties: { team: 'sales' }, created: { time: 1000 } });
    await ingest(orders, 'globalTags', { tags: [{ tag }] });
    await ingest(orders, 'ownership', { owners: [{ owner, type: 'DATAOWNER' }] });
    await ingest(orders, 'domains', { domains: [domain] });
    await ingest(orders, 'container', { container });
    await ingest(orders, 'subTypes', { typeNames: ['Table'] });
    await ingest(customers, 'datasetProperties', { description: 'customer list', created: { time: 3000 } });
    await ingest(events, 'datasetProperties', { name: `events_${id}`, description: 'stream of events' });
    await ingest(legacy, 'status', { removed: true });
    await ingest(chart, 'chartInfo', { title: `Revenue_${id}`, description: 'revenue by month', lastModified: { created: { time: 0, actor: owner }, lastModified: { time: 0, actor: owner } } });
    await ingest(chart, 'dataPlatformInstance', { platform: 'urn:li:dataPlatform:looker' });
    await ingest(tag, 'tagProperties', { name: 'PII', description: 'personal data', colorHex: '#ff0000' });
    await ingest(owner, 'corpUserInfo', { active: true, displayName: 'Alice', email: 'alice@example.com' });
    await svc.indexer.waitUntilIndexed(all);
  });
  afterAll(async () => {
    for (const urn of all) await svc.call('POST', '/entities?action=delete', { urn });
    await svc.indexer.waitUntilIndexed(all);
    await svc.indexer.stop();
    await svc.search.deleteIndex(`${env.SEARCH_INDEX_PREFIX}*`);
    await svc.close();
  });

  describe('rest.li', () => {
    it('searchAcrossEntities answers DataHub SearchResult: entities, aggregations with filterValues, from/pageSize/numEntities', async () => {
      const res = await svc.call('POST', '/entities?action=searchAcrossEntities', {
        input: '*',
        entities: ['dataset', 'chart'],
        filter: { or: [{ and: [{ field: 'platform', value: 'urn:li:dataPlatform:hive' }] }] },
        start: 0,
        count: 10,
      });
      expect(res.status).toBe(200);
      const value = res.body.value;
      expect(Object.keys(value).sort()).toEqual(['entities', 'from', 'metadata', 'numEntities', 'pageSize']);
      expect(value).toMatchObject({ from: 0, pageSize: 10, numEntities: 2 });
      expect(value.entities).toEqual([customers, orders].sort().map((entity) => ({ entity, matchedFields: [], score: expect.any(Number) })));
      const byName = Object.fromEntries(value.metadata.aggregations.map((a: { name: string }) => [a.name, a]));
      expect(value.metadata.suggestions).toEqual([]);
      // A facet counts under the filter without its own criteria; filterValues say which values are filtered on.
      expect(byName.platform).toEqual({
        name: 'platform',
        displayName: 'Platform',
        aggregations: { 'urn:li:dataPlatform:hive': 2, 'urn:li:dataPlatform:kafka': 1, 'urn:li:dataPlatform:looker': 1 },
        filterValues: [
          { value: 'urn:li:dataPlatform:hive', facetCount: 2, filtered: true },
          { value: 'urn:li:dataPlatform:kafka', facetCount: 1, filtered: false },
          { value: 'urn:li:dataPlatform:looker', facetCount: 1, filtered: false },
        ],
      });
      expect(byName._entityType.aggregations).toEqual({ dataset: 2 });
      expect(byName.origin.aggregations).toEqual({ PROD: 1, DEV: 1 });
      expect(byName.tags.aggregations).toEqual({ [tag]: 1 });
    });

    it('searchAcrossEntities matches text across types and reports matched fields', async () => {
      const res = await svc.call('POST', '/entities?action=searchAcrossEntities', { input: 'revenue', start: 0, count: 10, searchFlags: { skipAggregates: true } });
      expect(res.status).toBe(200);
      expect(res.body.value.entities.map((e: { entity: string }) => e.entity)).toEqual([chart]);
      expect(res.body.value.entities[0].matchedFields.length).toBeGreaterThan(0);
      expect(res.body.value.metadata.aggregations).toEqual([]);
    });

    it('searchAcrossEntities counts only the facets asked for', async () => {
      const res = await svc.call('POST', '/entities?action=searchAcrossEntities', { input: '*', facets: ['origin', '_entityType'], count: 0, searchFlags: { maxAggValues: 1 } });
      expect(res.status).toBe(200);
      expect(res.body.value.entities).toEqual([]);
      expect(res.body.value.numEntities).toBe(6);
      expect(res.body.value.metadata.aggregations).toEqual([
        { name: 'origin', displayName: 'Environment', aggregations: { PROD: 2 }, filterValues: [{ value: 'PROD', facetCount: 2, filtered: false }] },
        { name: '_entityType', displayName: 'Type', aggregations: { dataset: 3 }, filterValues: [{ value: 'dataset', facetCount: 3, filtered: false }] },
      ]);
    });

    it('scrollAcrossEntities pages by scrollId until the last page, which has none; soft-deleted ones only when asked', async () => {
      const seen: string[] = [];
      let scrollId: string | undefined;
      let pages = 0;
      do {
        const res = await svc.call('POST', '/entities?action=scrollAcrossEntities', { input: '*', entities: ['dataset'], count: 2, keepAlive: '5m', ...(scrollId ? { scrollId } : {}) });
        expect(res.status).toBe(200);
        expect(res.body.value).toMatchObject({ pageSize: 2, numEntities: 3 });
        seen.push(...res.body.value.entities.map((e: { entity: string }) => e.entity));
        scrollId = res.body.value.scrollId;
        pages++;
      } while (scrollId);
      expect(pages).toBe(2);
      expect(seen).toEqual([customers, events, orders].sort());
      const withRemoved = await svc.call('POST', '/entities?action=scrollAcrossEntities', { input: '*', entities: ['dataset'], count: 10, searchFlags: { includeSoftDeleted: true } });
      expect(withRemoved.body.value.entities.map((e: { entity: string }) => e.entity)).toEqual([customers, events, legacy, orders].sort());
      expect(withRemoved.body.value.scrollId).toBeUndefined();
    });

    it('refuses bad scroll ids, keep-alives, unknown flags and pages past the window', async () => {
      const bad = await svc.call('POST', '/entities?action=scrollAcrossEntities', { input: '*', scrollId: 'not-a-scroll-id', count: 1 });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ status: 400, message: 'scrollId is not a scroll id this service issued', exceptionClass: 'InvalidInputError' });
      expect((await svc.call('POST', '/entities?action=scrollAcrossEntities', { input: '*', keepAlive: 'forever' })).status).toBe(400);
      const flag = await svc.call('POST', '/entities?action=searchAcrossEntities', { input: '*', searchFlags: { rewriteQuery: true } });
      expect(flag.status).toBe(400);
      expect(flag.body.message).toContain("unknown field 'rewriteQuery'");
      expect((await svc.call('POST', '/entities?action=searchAcrossEntities', { input: '*', start: 9995, count: 10 })).status).toBe(400);
      expect((await svc.call('POST', '/entities?action=searchAcrossEntities', { input: '*', entities: ['noSuchType'] })).status).toBe(400);
    });

    it('GET /entitiesV2?ids=List(...) answers a rest.li batch: found entities under results, missing ones as 404 errors', async () => {
      const missing = ds('missing');
      const res = await svc.call('GET', `/entitiesV2?ids=List(${quote(orders)},${quote(missing)})&aspects=List(globalTags,domains)`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['errors', 'results', 'statuses']);
      expect(Object.keys(res.body.results)).toEqual([orders]);
      const entity = res.body.results[orders];
      expect(entity.urn).toBe(orders);
      expect(entity.entityName).toBe('dataset');
      expect(Object.keys(entity.aspects).sort()).toEqual(['datasetKey', 'domains', 'globalTags']);
      expect(entity.aspects.globalTags).toMatchObject({ name: 'globalTags', type: 'VERSIONED', version: 0, value: { tags: [{ tag }] } });
      expect(res.body.errors).toEqual({ [missing]: { status: 404, message: `No entity ${missing}`, exceptionClass: 'com.linkedin.restli.server.RestLiServiceException' } });
      // Repeated ids (rest.li protocol 1) and a whole-value-encoded list.
      const repeated = await svc.call('GET', `/entitiesV2?ids=${enc(orders)}&ids=${enc(customers)}`);
      expect(Object.keys(repeated.body.results).sort()).toEqual([customers, orders].sort());
      const encoded = await svc.call('GET', `/entitiesV2?ids=${quote(`List(${quote(chart)})`)}`);
      expect(Object.keys(encoded.body.results)).toEqual([chart]);
      expect((await svc.call('GET', '/entitiesV2?ids=List(not-an-urn)')).status).toBe(400);
    });
  });

  describe('GraphQL', () => {
    const ENTITY_FIELDS = `
      urn type
      ... on Dataset {
        name origin
        platform { urn type name }
        properties { name description customProperties { key value associatedUrn } }
        tags { tags { associatedUrn tag { urn type name properties { name description colorHex } } } }
        ownership { owners { type associatedUrn owner { ... on CorpUser { urn type username properties { displayName email active } } } } }
        domain { associatedUrn domain { urn type id } }
        container { urn type }
        subTypes { typeNames }
      }
      ... on Chart { properties { name description } platform { name } }`;

    it('searchAcrossEntities: results with the entity fields the client selects, totals and facets', async () => {
      // Tags and users are other types: only datasets and charts are asked for here.
      const body = await graphql(`query($q: String!) { searchAcrossEntities(input: {query: $q, start: 0, count: 10, types: [DATASET, CHART]}) {
          start count total
          searchResults { entity { ${ENTITY_FIELDS} } matchedFields { name value } insights { text } extraProperties { name value } }
          facets { field displayName aggregations { value count entity { urn type } } }
          suggestions { text } } }`, { q: '*' });
      expect(body.errors).toBeUndefined();
      const result = body.data.searchAcrossEntities;
      expect(result).toMatchObject({ start: 0, count: 4, total: 4, suggestions: [] });
      expect(result.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn)).toEqual([chart, customers, events, orders].sort());
      const found = Object.fromEntries(result.searchResults.map((r: { entity: { urn: string } }) => [r.entity.urn, r]));
      expect(found[orders]).toEqual({
        entity: {
          urn: orders,
          type: 'DATASET',
          name: `orders_${id}`,
          origin: 'PROD',
          platform: { urn: 'urn:li:dataPlatform:hive', type: 'DATA_PLATFORM', name: 'hive' },
          properties: { name: `orders_${id}`, description: 'orders placed', customProperties: [{ key: 'team', value: 'sales', associatedUrn: orders }] },
          tags: { tags: [{ associatedUrn: orders, tag: { urn: tag, type: 'TAG', name: `pii_${id}`, properties: { name: 'PII', description: 'personal data', colorHex: '#ff0000' } } }] },
          ownership: { owners: [{ type: 'DATAOWNER', associatedUrn: orders, owner: { urn: owner, type: 'CORP_USER', username: `alice_${id}`, properties: { displayName: 'Alice', email: 'alice@example.com', active: true } } }] },
          domain: { associatedUrn: orders, domain: { urn: domain, type: 'DOMAIN', id: `sales_${id}` } },
          container: { urn: container, type: 'CONTAINER' },
          subTypes: { typeNames: ['Table'] },
        },
        matchedFields: [],
        insights: [],
        extraProperties: [],
      });
      // Without a name in its properties, a dataset's properties name is its urn's.
      expect(found[customers].entity.properties).toEqual({ name: `customers_${id}`, description: 'customer list', customProperties: [] });
      expect(found[events].entity.tags).toBeNull();
      expect(found[chart].entity).toEqual({ urn: chart, type: 'CHART', properties: { name: `Revenue_${id}`, description: 'revenue by month' }, platform: { name: 'looker' } });
      const facets = Object.fromEntries(result.facets.map((f: { field: string }) => [f.field, f]));
      expect(facets._entityType).toEqual({ field: '_entityType', displayName: 'Type', aggregations: [{ value: 'DATASET', count: 3, entity: null }, { value: 'CHART', count: 1, entity: null }] });
      expect(facets.platform.aggregations).toEqual([
        { value: 'urn:li:dataPlatform:hive', count: 2, entity: { urn: 'urn:li:dataPlatform:hive', type: 'DATA_PLATFORM' } },
        { value: 'urn:li:dataPlatform:kafka', count: 1, entity: { urn: 'urn:li:dataPlatform:kafka', type: 'DATA_PLATFORM' } },
        { value: 'urn:li:dataPlatform:looker', count: 1, entity: { urn: 'urn:li:dataPlatform:looker', type: 'DATA_PLATFORM' } },
      ]);
      expect(facets.owners.aggregations).toEqual([{ value: owner, count: 1, entity: { urn: owner, type: 'CORP_USER' } }]);
    });

    it('filters as DataHub does: OR of AND groups, conditions, negation, _entityType, twins of tags', async () => {
      expect(await scrollUrns([{ and: [rule('platform', ['urn:li:dataPlatform:hive'])] }])).toEqual([customers, orders].sort());
      expect(await scrollUrns([{ and: [rule('platform.keyword', ['urn:li:dataPlatform:hive']), rule('origin', ['PROD'])] }, { and: [rule('_entityType', ['CHART'])] }])).toEqual([chart, orders].sort());
      expect(await scrollUrns([{ and: [rule('_entityType', ['DATASET']), rule('platform', ['urn:li:dataPlatform:hive'], 'EQUAL', true)] }])).toEqual([events]);
      expect(await scrollUrns([{ and: [rule('urn', [`customers_${id}`], 'CONTAIN')] }])).toEqual([customers]);
      expect(await scrollUrns([{ and: [rule('urn', ['urn:li:chart:'], 'START_WITH')] }])).toEqual([chart]);
      expect(await scrollUrns([{ and: [rule('urn', [`_${id},DEV)`], 'END_WITH')] }])).toEqual([customers]);
      expect(await scrollUrns([{ and: [rule('origin', ['DEV', 'QA'], 'IN')] }])).toEqual([customers]);
      expect(await scrollUrns([{ and: [rule('origin', ['dev'], 'IEQUAL')] }])).toEqual([customers]);
      expect(await scrollUrns([{ and: [rule('domains', [], 'EXISTS')] }])).toEqual([orders]);
      expect(await scrollUrns([{ and: [rule('createdAt', ['2000'], 'GREATER_THAN')] }])).toEqual([customers]);
      expect(await scrollUrns([{ and: [rule('tags', [tag])] }])).toEqual([orders]);
      expect(await scrollUrns([{ and: [rule('customProperties', ['team=sales'])] }])).toEqual([orders]);
      // A field a type does not index matches none of its entities; negated, all of them.
      expect(await scrollUrns([{ and: [rule('origin', ['PROD'], 'EQUAL', true)] }])).toEqual([chart, customers, owner, tag].sort());
      // The SDK's "true": urn EXISTS with no values.
      expect(await scrollUrns([{ and: [rule('urn', [], 'EXISTS')] }])).toEqual(visible);
    });

    it('hides soft-deleted entities unless the filter names removed or includeSoftDeleted is set', async () => {
      const hidden = [{ and: [rule('removed', ['true'], 'EQUAL', true)] }];
      const only = [{ and: [rule('removed', ['true'])] }];
      expect(await scrollUrns(null)).toEqual(visible);
      expect(await scrollUrns(hidden, { includeSoftDeleted: true })).toEqual(visible);
      expect(await scrollUrns(null, { includeSoftDeleted: true })).toEqual([...visible, legacy].sort());
      expect(await scrollUrns(only, { includeSoftDeleted: true })).toEqual([legacy]);
      expect(await scrollUrns(only)).toEqual([legacy]);
    });

    it('scrollAcrossEntities pages with nextScrollId, sorted as asked', async () => {
      const q = `query($id: String) { scrollAcrossEntities(input: {query: "*", count: 4, scrollId: $id, keepAlive: "1m", sortInput: {sortCriteria: [{field: "urn", sortOrder: DESCENDING}]}}) {
        nextScrollId count total searchResults { entity { urn } } } }`;
      const first = (await graphql(q)).data.scrollAcrossEntities;
      expect(first).toMatchObject({ count: 4, total: 6, nextScrollId: expect.any(String) });
      const second = (await graphql(q, { id: first.nextScrollId })).data.scrollAcrossEntities;
      expect(second).toMatchObject({ count: 2, total: 6, nextScrollId: null });
      const order = [...first.searchResults, ...second.searchResults].map((r: { entity: { urn: string } }) => r.entity.urn);
      expect(order).toEqual([...visible].reverse());
    });

    it('aggregateAcrossEntities counts the facets asked for', async () => {
      const body = await graphql(`{ aggregateAcrossEntities(input: {query: "*", facets: ["_entityType", "origin"], orFilters: [{and: [{field: "platform", values: ["urn:li:dataPlatform:hive"]}]}]}) {
        facets { field displayName aggregations { value count } } } }`);
      expect(body.errors).toBeUndefined();
      expect(body.data.aggregateAcrossEntities.facets).toEqual([
        { field: '_entityType', displayName: 'Type', aggregations: [{ value: 'DATASET', count: 2 }] },
        { field: 'origin', displayName: 'Environment', aggregations: [{ value: 'DEV', count: 1 }, { value: 'PROD', count: 1 }] },
      ]);
    });

    it('returns requested document fields as extraProperties (fetchExtraFields)', async () => {
      const body = await graphql(`{ searchAcrossEntities(input: {query: "*", types: [DATASET], orFilters: [{and: [{field: "urn", values: ["${orders}"]}]}], searchFlags: {skipAggregates: true, fetchExtraFields: ["origin", "platform"]}}) {
        facets { field } searchResults { extraProperties { name value } } } }`);
      expect(body.data.searchAcrossEntities.facets).toEqual([]);
      expect(body.data.searchAcrossEntities.searchResults).toEqual([{ extraProperties: [{ name: 'origin', value: '"PROD"' }, { name: 'platform', value: '"urn:li:dataPlatform:hive"' }] }]);
    });

    it('reads a variable\'s "true" / "false" where a Boolean goes as the Boolean, as DataHub\'s GraphQL does', async () => {
      const query = 'query s($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { total } }';
      const total = async (negated: unknown) =>
        (await graphql(query, { input: { query: '*', types: ['DATASET'], orFilters: [{ and: [{ field: 'urn', values: [id], condition: 'CONTAIN' }, { field: 'platform', values: ['urn:li:dataPlatform:kafka'], negated }] }] } })).data
          .searchAcrossEntities.total;
      expect([await total('false'), await total('TRUE'), await total(false), await total(true)]).toEqual([1, 2, 1, 2]);
      const refused = await svc.call('POST', '/api/graphql', { query, variables: { input: { query: '*', orFilters: [{ and: [{ field: 'platform', values: ['x'], negated: 'maybe' }] }] } } }, auth);
      expect([refused.status, refused.body.message]).toEqual([400, expect.stringContaining('Boolean cannot represent')]);
    });

    it("finds every type's matches when the input makes a long query: each index counts only its own type's clauses", async () => {
      // DataHub's search smoke test's namespace: across every default type, its words expand past the engine's 1,024
      // clauses when a dataset shard counts every type's query; the shard failed and the datasets were silently missing.
      const named = `urn:li:dataset:(urn:li:dataPlatform:hive,long_${id},PROD)`;
      await ingest(named, 'datasetProperties', { name: 'sstd80_x-12345678', description: 'a smoke-test namespace' });
      await svc.indexer.waitUntilIndexed([named]);
      const body = await graphql('query s($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { total searchResults { entity { urn } } } }', {
        input: { query: 'sstd80_x-12345678', orFilters: [{ and: [rule('urn', [`long_${id}`], 'CONTAIN')] }], count: 10 },
      });
      expect(body.errors).toBeUndefined();
      expect(body.data.searchAcrossEntities.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn)).toEqual([named]);
      await svc.call('POST', '/entities?action=delete', { urn: named });
      await svc.indexer.waitUntilIndexed([named]);
    });

    it("filters and counts structured property values under DataHub's field names", async () => {
      // Entities of their own (no `id` in their names, another platform), deleted at the end: no other test here sees them.
      const gid = uniqueId().toLowerCase();
      const [gold, silver] = [`urn:li:dataset:(urn:li:dataPlatform:grading,gold_${gid},PROD)`, `urn:li:dataset:(urn:li:dataPlatform:grading,silver_${gid},PROD)`];
      const [tier, sla] = [`io.${gid}.tier`, `io.${gid}.sla`];
      await ingest(`urn:li:structuredProperty:${tier}`, 'propertyDefinition', { qualifiedName: tier, valueType: 'urn:li:dataType:datahub.string', entityTypes: ['urn:li:entityType:datahub.dataset'] });
      await ingest(`urn:li:structuredProperty:${sla}`, 'propertyDefinition', { qualifiedName: sla, valueType: 'urn:li:dataType:datahub.number', entityTypes: ['urn:li:entityType:datahub.dataset'] });
      const assign = (level: string, days: number) => ({ properties: [
        { propertyUrn: `urn:li:structuredProperty:${tier}`, values: [{ string: level }] },
        { propertyUrn: `urn:li:structuredProperty:${sla}`, values: [{ double: days }] },
      ] });
      await ingest(gold, 'structuredProperties', assign('gold', 30));
      await ingest(silver, 'structuredProperties', assign('silver', 7.5));
      await svc.indexer.waitUntilIndexed([gold, silver]);
      const ours = rule('urn', [gid], 'CONTAIN');
      const facets = await graphql(`query a($input: AggregateAcrossEntitiesInput!) { aggregateAcrossEntities(input: $input) { facets { field aggregations { value count } } } }`, {
        input: { query: '*', orFilters: [{ and: [ours] }], facets: [`structuredProperties.${tier}`, `structuredProperties.io_${gid}_sla`] },
      });
      expect(facets.errors).toBeUndefined();
      expect(facets.data.aggregateAcrossEntities.facets).toEqual([
        { field: `structuredProperties.io_${gid}_tier`, aggregations: expect.arrayContaining([{ value: 'gold', count: 1 }, { value: 'silver', count: 1 }]) },
        { field: `structuredProperties.io_${gid}_sla`, aggregations: expect.arrayContaining([{ value: '30.0', count: 1 }, { value: '7.5', count: 1 }]) },
      ]);
      expect(await scrollUrns([{ and: [ours, rule(`structuredProperties.io_${gid}_sla`, ['10'], 'GREATER_THAN')] }])).toEqual([gold]);
      expect(await scrollUrns([{ and: [ours, rule(`structuredProperties.${tier}.keyword`, ['silver'])] }])).toEqual([silver]);
      expect(await scrollUrns([{ and: [ours, rule(`structuredProperties.${tier}`, [], 'EXISTS', true)] }])).toEqual([]);
      for (const urn of [gold, silver, `urn:li:structuredProperty:${tier}`, `urn:li:structuredProperty:${sla}`]) await svc.call('POST', '/entities?action=delete', { urn });
      await svc.indexer.waitUntilIndexed([gold, silver]);
    });

    it('refuses unknown views, unsupported conditions and bad scroll ids with BAD_REQUEST', async () => {
      for (const query of [
        '{ searchAcrossEntities(input: {query: "*", viewUrn: "urn:li:dataHubView:x"}) { total } }',
        '{ searchAcrossEntities(input: {query: "*", orFilters: [{and: [{field: "urn", values: ["x"], condition: DESCENDANTS_INCL}]}]}) { total } }',
        '{ scrollAcrossEntities(input: {query: "*", scrollId: "bad"}) { total } }',
        '{ scrollAcrossEntities(input: {query: "*", keepAlive: "soon"}) { total } }',
      ]) {
        const body = await graphql(query);
        expect(body.data).toEqual({ [query.includes('scroll') ? 'scrollAcrossEntities' : 'searchAcrossEntities']: null });
        expect(body.errors[0].extensions).toEqual({ code: 400, type: 'BAD_REQUEST' });
      }
    });
  });

  describe('OpenAPI v3', () => {
    it('batchGet answers [{urn, <aspect>: {value, systemMetadata}}] for existing entities only', async () => {
      const res = await svc.call('POST', '/openapi/v3/entity/dataset/batchGet?systemMetadata=true', [{ urn: orders, globalTags: {}, status: {} }, { urn: ds('missing') }, { urn: customers }]);
      expect(res.status).toBe(200);
      expect(res.body.map((e: { urn: string }) => e.urn)).toEqual([orders, customers]);
      expect(Object.keys(res.body[0]).sort()).toEqual(['globalTags', 'urn']);
      expect(res.body[0].globalTags).toEqual({ value: { tags: [{ tag }] }, systemMetadata: expect.objectContaining({ runId: expect.any(String) }) });
      // No aspect named: all of them (the stored ones, default aspects such as browsePaths included).
      expect(Object.keys(res.body[1])).toEqual(expect.arrayContaining(['urn', 'datasetKey', 'datasetProperties']));
      expect(res.body[1].datasetProperties).toEqual({ value: { description: 'customer list', created: { time: 3000 } }, systemMetadata: expect.objectContaining({ runId: 'no-run-id-provided' }) });
      expect((await svc.call('POST', '/openapi/v3/entity/dataset/batchGet', [{ urn: chart }])).status).toBe(400);
      expect((await svc.call('POST', '/openapi/v3/entity/dataset/batchGet', { urn: orders })).status).toBe(400);
    });

    it('gets one entity, 404 when it does not exist', async () => {
      const res = await svc.call('GET', `/openapi/v3/entity/dataset/${enc(orders)}?aspects=domains`);
      expect(res.body).toEqual({ urn: orders, domains: { value: { domains: [domain], domainAssociations: [{ domain }] } } });
      const missing = await svc.call('GET', `/openapi/v3/entity/dataset/${enc(ds('missing'))}`);
      expect(missing.status).toBe(404);
    });

    it('scrolls entities by type with a v3 filter, and of one type by GET', async () => {
      const res = await svc.call('POST', '/openapi/v3/entity/scroll?count=1', {
        entities: ['dataset'],
        aspects: ['datasetKey'],
        filter: { and: [{ criteria: [rule('platform', ['urn:li:dataPlatform:hive'])] }] },
      });
      expect(res.status).toBe(200);
      // DataHub's `entity` facet: the hits per entity type, on every page unless skipAggregation.
      const facets = [{ field: 'entity', aggregations: { dataset: 2 } }];
      expect(res.body).toEqual({ scrollId: expect.any(String), totalCount: 2, entities: [{ urn: customers, datasetKey: { value: { platform: 'urn:li:dataPlatform:hive', name: `customers_${id}`, origin: 'DEV' } } }], facets });
      const next = await svc.call('POST', `/openapi/v3/entity/scroll?count=1&scrollId=${res.body.scrollId}`, { entities: ['dataset'], filter: { and: [{ criteria: [rule('platform', ['urn:li:dataPlatform:hive'])] }] } });
      expect(next.body).toEqual({ scrollId: null, totalCount: 2, entities: [{ urn: orders }], facets });
      const across = await svc.call('POST', '/openapi/v3/entity/scroll?count=1', { entities: ['dataset', 'chart', 'tag'], filter: { and: [{ criteria: [rule('urn', [`_${id}`], 'CONTAIN')] }] } });
      expect(across.body.facets).toEqual([{ field: 'entity', aggregations: { dataset: 3, chart: 1, tag: 1 } }]);
      expect((await svc.call('POST', '/openapi/v3/entity/scroll?count=1&skipAggregation=true', { entities: ['dataset'] })).body.facets).toEqual([]);
      // A query's backslash escapes are read as the engine's query syntax reads them (DataHub's smoke tests escape dots).
      const escaped = await svc.call('POST', `/openapi/v3/entity/scroll?count=5&query=${encodeURIComponent(`name:orders\\_${id}`)}`, { entities: ['dataset'] });
      expect(escaped.body.entities).toEqual([{ urn: orders }]);
      const byGet = await svc.call('GET', '/openapi/v3/entity/chart?aspects=chartInfo&count=5');
      expect(byGet.body.entities).toEqual([{ urn: chart, chartInfo: { value: expect.objectContaining({ title: `Revenue_${id}` }) } }]);
      expect(byGet.body.facets).toEqual([]);
      expect((await svc.call('POST', '/openapi/v3/entity/scroll?sliceId=0&sliceMax=2', {})).status).toBe(400);
    });

    it('scrolls relationships by source or destination, and lineage edges with their upstream and downstream ends', async () => {
      const tagged = await svc.call('POST', '/openapi/v3/relationship/scroll?relationshipTypes=TaggedWith', { sourceFilter: { and: [{ criteria: [rule('urn', [orders])] }] } });
      expect(tagged.body).toEqual({ results: [{ relationshipType: 'TaggedWith', source: { urn: orders, entityType: 'dataset' }, destination: { urn: tag, entityType: 'tag' } }], scrollId: null });
      const owned = await svc.call('POST', '/openapi/v3/relationship/scroll?direction=INCOMING', { sourceFilter: { and: [{ criteria: [rule('urn', [owner])] }] } });
      expect(owned.body.results).toEqual([{ relationshipType: 'OwnedBy', source: { urn: orders, entityType: 'dataset' }, destination: { urn: owner, entityType: 'corpuser' } }]);
      const edge = await svc.call('POST', '/openapi/v3/relationship/scroll', { edgeFilter: { and: [{ criteria: [rule('createdOn', ['1'])] }] } });
      expect(edge.status).toBe(400);
      await ingest(customers, 'upstreamLineage', { upstreams: [{ dataset: orders, type: 'TRANSFORMED', auditStamp: { time: 0, actor: owner } }] });
      const lineage = await svc.call('POST', '/openapi/v3/lineage/scroll', { urns: [orders] });
      expect(lineage.body).toEqual({
        results: [{ relationshipType: 'DownstreamOf', source: { urn: customers, entityType: 'dataset' }, destination: { urn: orders, entityType: 'dataset' }, upstream: orders, downstream: customers }],
        scrollId: null,
      });
      expect((await svc.call('POST', '/openapi/v3/lineage/scroll?direction=UPSTREAM', { urns: [orders] })).body.results).toEqual([]);
      expect((await svc.call('POST', '/openapi/v3/lineage/scroll?relationshipTypes=OwnedBy', { urns: [orders] })).status).toBe(400);
    });
  });
});
