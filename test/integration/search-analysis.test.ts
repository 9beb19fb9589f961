import type { EngineName } from '../../src/stores/search/engine';
import { ENTITY_MAPPING_VERSION, entityIndexDefinition, SYSTEM_FIELDS } from '../../src/stores/search/mappings';
import { proposal } from '../support/samples';
import { enc, startTestService, type TestService } from '../support/service';

/**
 * Search as DataHub's analyzers make it (words split on case changes, digits and separators; prefixes; URN parts;
 * exact names first), browse at exact paths, and the rebuild of an index of an older mapping version, on both engines.
 * Each engine gets an index set (prefix) of its own, so names need not be unique.
 */
const runPrefix = `analysis${Date.now().toString(36)}`;
const ds = (platform: string, name: string, origin = 'PROD') => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},${origin})`;

describe.each<[EngineName, string]>([
  ['opensearch', `${runPrefix}_os_`],
  ['elasticsearch', `${runPrefix}_es_`],
])('text analysis, ranking and browse on %s', (engine, prefix) => {
  let svc: TestService;
  const covid = ds('bigquery', 'covid19_geotab_mobility_impact.us_border_wait_times');
  const sample = ds('kafka', 'SampleKafkaDataset');
  const logs = ds('hdfs', 'HTTPServerLogs2024');
  const orders = ds('hive', 'orders');
  const ordersArchive = ds('hive', 'orders_archive');
  const mentionsOrders = ds('hive', 'shipments');
  const kafka1 = [ds('kafka', 'k1_events'), ds('kafka', 'k1_clicks'), ds('kafka', 'k1_views')];
  const all = [covid, sample, logs, orders, ordersArchive, mentionsOrders, ...kafka1];

  async function ingest(urn: string, aspect: string, value: unknown) {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value));
    expect(res.status).toBe(200);
  }

  async function search(input: string): Promise<string[]> {
    const res = await svc.call('POST', '/entities?action=search', { input, entity: 'dataset', start: 0, count: 50 });
    expect(res.status).toBe(200);
    return res.body.value.entities;
  }

  async function browse(path: string, start = 0, limit = 10) {
    const res = await svc.call('POST', '/entities?action=browse', { path, entity: 'dataset', start, limit });
    expect(res.status).toBe(200);
    return res.body.value;
  }

  beforeAll(async () => {
    svc = await startTestService({ SEARCH_INDEX_PREFIX: prefix }, engine);
    const named = (urn: string) => urn.split(',')[1];
    for (const urn of [covid, sample, logs, orders, ordersArchive]) await ingest(urn, 'datasetProperties', { name: named(urn) });
    await ingest(mentionsOrders, 'datasetProperties', { name: 'shipments', description: 'orders orders orders, and the orders of orders' });
    for (const urn of kafka1) {
      await ingest(urn, 'datasetProperties', { name: named(urn) });
      await ingest(urn, 'browsePaths', { paths: ['/prod/kafka1'] });
    }
    await svc.indexer.waitUntilIndexed(all);
  });
  afterAll(async () => {
    for (const urn of all) await svc.call('POST', '/entities?action=delete', { urn });
    await svc.indexer.waitUntilIndexed(all);
    await svc.indexer.stop();
    await svc.search.deleteIndex(`${prefix}*`);
    await svc.close();
  });

  it.each([
    ['a word inside an underscored name', 'covid', covid],
    ['a word after a dot', 'border', covid],
    ['a word with its digits', 'covid19', covid],
    ['digits alone', '19', covid],
    ['a camel-case word', 'sample', sample],
    ['camel-case words together', 'SampleKafka', sample],
    ['the whole name in another case', 'samplekafkadataset', sample],
    ['upper-case runs and digits', 'server', logs],
    ['digits after letters', '2024', logs],
    ['a prefix of a word', 'geot', covid],
    ['a prefix of a camel-case word', 'kaf', sample],
    ['camel-case words, the last one partial', 'SampleKaf', sample],
    ['a platform, from the URN', 'bigquery', covid],
  ])('finds %s (%s)', async (_label, input, expected) => {
    expect(await search(input)).toContain(expected);
  });

  it('does not match words that are not there, nor the words of a term apart', async () => {
    expect(await search('covidx')).toEqual([]);
    expect(await search('border kafka')).toEqual([]);
    expect(await search('k1_events')).toEqual([kafka1[0]]);
  });

  it('autocompletes words inside names', async () => {
    for (const query of ['kafka', 'SampleKaf', 'geot']) {
      const res = await svc.call('POST', '/entities?action=autocomplete', { query, entity: 'dataset', limit: 5 });
      expect(res.body.value.suggestions).toEqual(expect.arrayContaining([query === 'geot' ? 'covid19_geotab_mobility_impact.us_border_wait_times' : 'SampleKafkaDataset']));
    }
  });

  it('finds an entity by its whole URN, that entity first', async () => {
    expect((await search(sample))[0]).toBe(sample);
  });

  it('ranks the exact name first, then names holding the word, then other text', async () => {
    const hits = await search('orders');
    expect(hits.slice(0, 3)).toEqual([orders, ordersArchive, mentionsOrders]);
    expect((await search('Orders_Archive'))[0]).toBe(ordersArchive);
  });

  it('lists an entity at exactly its browse path, counted in the groups above', async () => {
    const prod = await browse('/prod');
    expect(prod.groups).toContainEqual({ name: 'kafka1', count: 3 });
    expect(prod.entities.map((e: { urn: string }) => e.urn)).not.toEqual(expect.arrayContaining(kafka1));
    const at = await browse('/prod/kafka1');
    expect(at).toMatchObject({ numEntities: 3, numGroups: 0, numElements: 3, groups: [], metadata: { path: '/prod/kafka1', totalNumEntities: 0 } });
    // DataHub's totalNumEntities counts the entities in groups below the path, none at a leaf (ESBrowseDAO; its browse smoke test).
    expect(at.entities.map((e: { urn: string }) => e.urn)).toEqual([...kafka1].sort());
    expect((await browse('/prod/kafka1', 1, 1)).entities.map((e: { urn: string }) => e.urn)).toEqual([[...kafka1].sort()[1]]);
  });

  it('rebuilds an index of an older mapping version from Neo4j, keeping writes and deletes made meanwhile', async () => {
    const alias = svc.indexNames.entity('chart');
    const target = svc.indexNames.entityGeneration('chart', ENTITY_MAPPING_VERSION);
    const chart = (name: string) => `urn:li:chart:(looker,${name})`;
    const info = (title: string) => ({ title, description: '', lastModified: { created: { time: 0, actor: 'urn:li:corpuser:x' }, lastModified: { time: 0, actor: 'urn:li:corpuser:x' } } });
    const [before, gone, during, late] = [chart('WeeklyRevenueBoard'), chart('gone_chart'), chart('during_rebuild'), chart('LateArrivalChart')];
    await ingest(before, 'chartInfo', info('WeeklyRevenueBoard'));
    await ingest(gone, 'chartInfo', info('gone_chart'));
    await svc.indexer.waitUntilIndexed([before, gone]);

    // What an older version left: a concrete index under the name, without the version, mapped differently.
    const current = entityIndexDefinition(svc.registry, svc.registry.entity('chart'));
    const properties = { ...(current.mappings.properties as Record<string, Record<string, unknown>>) };
    delete properties.textParts;
    properties.autocomplete = { ...properties.autocomplete, index_prefixes: { min_chars: 1, max_chars: 19 } };
    await svc.search.deleteIndex(alias);
    await svc.search.createIndex(alias, { settings: current.settings, mappings: { dynamic: false, properties } });
    await svc.search.bulk([{ op: 'index', index: alias, id: before, doc: { urn: before, removed: false, title: 'WeeklyRevenueBoard' }, version: 1 }], true);
    expect((await svc.search.getMappings(alias)).has(alias)).toBe(true);

    const inTarget = async (urn: string) => {
      await svc.search.refresh(target);
      return (await svc.search.search(target, { query: { term: { urn } } })).total;
    };
    svc.indexer.migrations.options.onPhase = async (entityType, phase) => {
      if (entityType !== 'chart') return;
      if (phase === 'built') {
        // After the copy from Neo4j, before the swap: a new entity, and a delete of a copied one.
        await ingest(during, 'chartInfo', info('during_rebuild'));
        expect((await svc.call('POST', '/entities?action=delete', { urn: gone })).status).toBe(200);
        await svc.indexer.waitUntilIndexed([during, gone]);
        expect(await inTarget(during)).toBe(1);
        expect(await inTarget(gone)).toBe(0);
        // Searches still answer from the old index.
        expect((await svc.search.getMappings(alias)).has(alias)).toBe(true);
      }
      if (phase === 'swapped') await ingest(late, 'chartInfo', info('LateArrivalChart'));
    };
    try {
      await svc.indexer.ensureIndices(['chart'], { recheck: true });
      await svc.indexer.migrations.migrate('chart');
    } finally {
      svc.indexer.migrations.options.onPhase = undefined;
    }
    await svc.indexer.waitUntilIndexed([late]);

    const mappings = await svc.search.getMappings(alias);
    expect([...mappings.keys()]).toEqual([target]);
    expect(mappings.get(target)!._meta).toEqual({ mappingVersion: ENTITY_MAPPING_VERSION });
    expect(Object.keys(mappings.get(target)!.properties as object)).toEqual(expect.arrayContaining(Object.keys(SYSTEM_FIELDS)));
    const charts = async (input: string) => (await svc.call('POST', '/entities?action=search', { input, entity: 'chart', start: 0, count: 10 })).body.value.entities;
    expect(await charts('revenue')).toEqual([before]);
    expect(await charts('during')).toEqual([during]);
    expect(await charts('arrival')).toEqual([late]);
    expect(await charts('gone')).toEqual([]);
    for (const urn of [before, during, late]) await svc.call('POST', '/entities?action=delete', { urn });
    await svc.indexer.waitUntilIndexed([before, during, late]);
  });
});

describe('default browse paths of every entity type', () => {
  let svc: TestService;
  const prefix = `${runPrefix}_paths_`;
  const flow = 'urn:li:dataFlow:(airflow,daily_etl,PROD)';
  const job = `urn:li:dataJob:(${flow},load_orders)`;
  const container = 'urn:li:container:0a1b2c3d';
  const child = 'urn:li:container:4e5f6a7b';
  const instance = 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:mysql,east)';
  const dataset = ds('mysql', 'shop.public.orders');
  const plain = ds('hive', 'SampleHiveDataset');
  const chart = 'urn:li:chart:(looker,Revenue.Board)';
  const term = 'urn:li:glossaryTerm:Finance.Revenue';
  const model = 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn,PROD)';
  const explicit = ds('hive', 'explicit_paths');
  const urns = [flow, job, container, child, dataset, plain, chart, term, model, explicit];

  beforeAll(async () => {
    svc = await startTestService({ SEARCH_INDEX_PREFIX: prefix });
  });
  afterAll(async () => {
    for (const urn of urns) await svc.call('POST', '/entities?action=delete', { urn });
    await svc.indexer.waitUntilIndexed(urns);
    await svc.indexer.stop();
    await svc.search.deleteIndex(`${prefix}*`);
    await svc.close();
  });

  async function paths(urn: string) {
    const res = await svc.call('GET', `/entitiesV2/${enc(urn)}`);
    expect(res.status).toBe(200);
    return { v1: res.body.aspects.browsePaths?.value, v2: res.body.aspects.browsePathsV2?.value };
  }

  const status = { removed: false };

  it('gives every type a browsePaths list (never null) and a browsePathsV2, as DataHub does', async () => {
    for (const urn of [flow, job, plain, chart, term, model]) {
      expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'status', status))).status).toBe(200);
    }
    expect(await paths(plain)).toEqual({ v1: { paths: ['/prod/hive/samplehivedataset'] }, v2: { path: [{ id: 'Default' }] } });
    expect(await paths(chart)).toEqual({ v1: { paths: ['/looker/revenue.board'] }, v2: { path: [{ id: 'Default' }] } });
    expect(await paths(flow)).toEqual({ v1: { paths: ['/airflow/prod'] }, v2: { path: [{ id: 'Default' }] } });
    expect(await paths(job)).toEqual({ v1: { paths: ['/airflow/prod'] }, v2: { path: [{ id: flow, urn: flow }] } });
    expect(await paths(term)).toEqual({ v1: { paths: [''] }, v2: undefined });
    expect(await paths(model)).toEqual({ v1: { paths: [''] }, v2: { path: [{ id: 'Default' }] } });
  });

  it('puts the platform instance and the container chain the request names into browsePathsV2', async () => {
    const write = async (urn: string, items: [string, unknown][]) => {
      const res = await svc.call('POST', '/aspects?action=ingestProposalBatch', { proposals: items.map(([aspect, value]) => proposal(urn, aspect, value).proposal) });
      expect(res.status).toBe(200);
    };
    const dpi = { platform: 'urn:li:dataPlatform:mysql', instance };
    await write(container, [
      ['containerProperties', { name: 'shop' }],
      ['dataPlatformInstance', dpi],
    ]);
    await write(child, [
      ['containerProperties', { name: 'public' }],
      ['container', { container }],
      ['dataPlatformInstance', dpi],
    ]);
    await write(dataset, [
      ['datasetProperties', { name: 'orders' }],
      ['container', { container: child }],
      ['dataPlatformInstance', dpi],
    ]);
    expect((await paths(container)).v2).toEqual({ path: [{ id: instance, urn: instance }] });
    expect((await paths(child)).v2).toEqual({ path: [{ id: instance, urn: instance }, { id: container, urn: container }] });
    expect((await paths(dataset)).v2).toEqual({ path: [{ id: instance, urn: instance }, { id: container, urn: container }, { id: child, urn: child }] });
    // An aspect the request writes itself gets no default version before it.
    await write(explicit, [
      ['datasetProperties', { name: 'explicit' }],
      ['browsePathsV2', { path: [{ id: 'mine' }] }],
    ]);
    expect((await paths(explicit)).v2).toEqual({ path: [{ id: 'mine' }] });
    expect((await svc.call('GET', `/aspects/${enc(explicit)}?aspect=browsePathsV2&version=1`)).status).toBe(404);
  });
});
