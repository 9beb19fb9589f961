import type { EngineName } from '../../src/stores/search/engine';
import { proposal } from '../support/samples';
import { enc, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * The same behaviour on both engines. Each run gets an index set (prefix) of its own over the one Neo4j, so facet
 * counts see only this file's entities, and drops it at the end.
 */
const runPrefix = `search${Date.now().toString(36)}`;
describe.each<[EngineName, Record<string, string>]>([
  ['opensearch', { SEARCH_INDEX_PREFIX: `${runPrefix}_os_` }],
  ['elasticsearch', { SEARCH_INDEX_PREFIX: `${runPrefix}_es_` }],
])('search, browse and autocomplete on %s', (engine, env) => {
  let svc: TestService;
  const id = uniqueId().toLowerCase();
  const tag = `urn:li:tag:Legacy_${id}`;
  const otherTag = `urn:li:tag:Other_${id}`;
  const owner = `urn:li:corpuser:owner_${id}`;
  const ds = (name: string, platform = 'hive', origin = 'PROD') => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},${origin})`;
  const exact = ds(`exact_${id}`);
  const noisy = ds(`noisy_${id}`);
  const kafka = ds(`events_${id}`, 'kafka', 'DEV');
  const browsed = [ds(`b1_${id}`), ds(`b2_${id}`), ds(`b3_${id}`), ds(`b4_${id}`)];
  const all = [exact, noisy, kafka, ...browsed];

  async function ingest(urn: string, aspect: string, value: unknown) {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value));
    expect(res.status).toBe(200);
  }

  async function search(input: string, filter?: unknown, extra: Record<string, unknown> = {}) {
    const res = await svc.call('POST', '/entities?action=search', { input, entity: 'dataset', start: 0, count: 20, ...(filter ? { filter } : {}), ...extra });
    expect(res.status).toBe(200);
    return res.body.value;
  }

  const ours = { field: 'tags', value: tag, condition: 'EQUAL' };

  beforeAll(async () => {
    svc = await startTestService(env, engine);
    await ingest(exact, 'datasetProperties', { name: `exact_${id}`, description: 'the one', created: { time: 1000 } });
    await ingest(noisy, 'datasetProperties', { name: `noisy_${id}`, description: `mentions exact_${id} and exact_${id} again`, created: { time: 2000 } });
    await ingest(kafka, 'datasetProperties', { name: `events_${id}`, description: 'stream of events', created: { time: 3000 } });
    for (const urn of [exact, noisy, kafka]) await ingest(urn, 'globalTags', { tags: [{ tag }] });
    await ingest(kafka, 'ownership', { owners: [{ owner, type: 'DATAOWNER' }] });
    await ingest(noisy, 'globalTags', { tags: [{ tag }, { tag: otherTag }] });
    await ingest(exact, 'schemaMetadata', {
      schemaName: 's',
      platform: 'urn:li:dataPlatform:hive',
      version: 0,
      hash: '',
      platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
      fields: [{ fieldPath: `customer_email_${id}`, nativeDataType: 'string', type: { type: { 'com.linkedin.schema.StringType': {} } }, description: 'an address' }],
    });
    const paths = [`/t_${id}/a`, `/t_${id}/a/`, `t_${id}/c/d`, `/t_${id}`];
    for (const [i, urn] of browsed.entries()) await ingest(urn, 'browsePaths', { paths: [paths[i]] });
    await svc.indexer.waitUntilIndexed(all);
  });
  afterAll(async () => {
    for (const urn of all) await svc.call('POST', '/entities?action=delete', { urn });
    await svc.indexer.waitUntilIndexed(all);
    await svc.indexer.stop();
    await svc.search.deleteIndex(`${env.SEARCH_INDEX_PREFIX}*`);
    await svc.close();
  });

  it('finds a dataset by tags:<name>', async () => {
    const result = await search(`tags:Legacy_${id}`);
    expect(result.entities.sort()).toEqual([exact, noisy, kafka].sort());
    expect(result.numEntities).toBe(3);
    expect(result.metadata.urns).toEqual(result.entities);
    expect(result.metadata.matches).toHaveLength(3);
  });

  it('matches owners and platform by field, and field paths by free text', async () => {
    expect((await search(`owners:${owner}`)).entities).toEqual([kafka]);
    expect((await search(`platform:kafka AND tags:Legacy_${id}`)).entities).toEqual([kafka]);
    expect((await search(`customer_email_${id}`)).entities).toEqual([exact]);
  });

  it('supports wildcards and OR', async () => {
    expect((await search(`name:exact_${id.slice(0, 6)}*`)).entities).toContain(exact);
    expect((await search(`name:exact_${id} OR name:events_${id}`)).entities.sort()).toEqual([exact, kafka].sort());
  });

  it('ranks the exact name first', async () => {
    const result = await search(`exact_${id}`);
    expect(result.entities[0]).toBe(exact);
    expect(result.entities).toContain(noisy);
  });

  it('answers facets that count under the other filters', async () => {
    const result = await search('*', { or: [{ and: [ours, { field: 'platform', value: 'urn:li:dataPlatform:hive', condition: 'EQUAL' }] }] });
    expect(result.entities.sort()).toEqual([exact, noisy].sort());
    const facets = Object.fromEntries(result.metadata.searchResultMetadatas.map((m: { name: string; aggregations: object }) => [m.name, m.aggregations]));
    // platform counts ignore the platform filter but honour the tag filter
    expect(facets.platform).toEqual({ 'urn:li:dataPlatform:hive': 2, 'urn:li:dataPlatform:kafka': 1 });
    // tag counts honour the platform filter
    expect(facets.tags).toEqual({ [tag]: 2, [otherTag]: 1 });
    expect(facets.origin).toEqual({ PROD: 2 });
  });

  const conditions: [string, Record<string, unknown>, string[]][] = [
    ['EQUAL', { field: 'origin', value: 'DEV', condition: 'EQUAL' }, ['kafka']],
    ['EQUAL with a comma list', { field: 'name', value: `exact_${id},events_${id}`, condition: 'EQUAL' }, ['exact', 'kafka']],
    ['EQUAL with values', { field: 'name', values: [`noisy_${id}`], condition: 'EQUAL' }, ['noisy']],
    ['CONTAIN', { field: 'description', value: 'of EVENTS', condition: 'CONTAIN' }, ['kafka']],
    ['START_WITH', { field: 'name', value: 'nois', condition: 'START_WITH' }, ['noisy']],
    ['END_WITH', { field: 'name', value: `ts_${id}`, condition: 'END_WITH' }, ['kafka']],
    ['GREATER_THAN', { field: 'createdAt', value: '2000', condition: 'GREATER_THAN' }, ['kafka']],
    ['GREATER_THAN_OR_EQUAL_TO', { field: 'createdAt', value: '2000', condition: 'GREATER_THAN_OR_EQUAL_TO' }, ['noisy', 'kafka']],
    ['LESS_THAN', { field: 'createdAt', value: '2000', condition: 'LESS_THAN' }, ['exact']],
    ['LESS_THAN_OR_EQUAL_TO', { field: 'createdAt', value: '2000', condition: 'LESS_THAN_OR_EQUAL_TO' }, ['exact', 'noisy']],
    ['negated', { field: 'platform', value: 'urn:li:dataPlatform:hive', condition: 'EQUAL', negated: true }, ['kafka']],
  ];
  it.each(conditions)('filters with %s', async (_label, criterion, expected) => {
    const byName: Record<string, string> = { exact, noisy, kafka };
    const result = await search('*', { or: [{ and: [ours, criterion] }] });
    expect(result.entities.sort()).toEqual(expected.map((n) => byName[n]).sort());
  });

  it('ORs the and-groups, and accepts the legacy criteria form', async () => {
    const or = await search('*', { or: [{ and: [ours, { field: 'origin', value: 'DEV' }] }, { and: [ours, { field: 'name', value: `exact_${id}` }] }] });
    expect(or.entities.sort()).toEqual([exact, kafka].sort());
    const legacy = await search('*', { criteria: [ours, { field: 'origin', value: 'DEV', condition: 'EQUAL' }] });
    expect(legacy.entities).toEqual([kafka]);
  });

  it('browses groups with counts and the entities at exactly the path', async () => {
    const res = await svc.call('POST', '/entities?action=browse', { path: `/t_${id}`, entity: 'dataset', start: 0, limit: 10 });
    expect(res.status).toBe(200);
    const groups = [{ name: 'a', count: 2 }, { name: 'c', count: 1 }];
    expect(res.body.value).toEqual({
      numEntities: 1,
      numGroups: 2,
      numElements: 3,
      pageSize: 10,
      from: 0,
      metadata: { path: `/t_${id}`, totalNumEntities: 3, groups },
      groups,
      entities: [{ name: browsed[3], urn: browsed[3] }],
    });
    const deeper = await svc.call('POST', '/entities?action=browse', { path: `/t_${id}/a/`, entity: 'dataset', start: 0, limit: 10 });
    expect(deeper.body.value.entities.map((e: { urn: string }) => e.urn).sort()).toEqual([browsed[0], browsed[1]].sort());
    expect(deeper.body.value.groups).toEqual([]);
    const folder = await svc.call('POST', '/entities?action=browse', { path: `/t_${id}/c`, entity: 'dataset', start: 0, limit: 10 });
    expect(folder.body.value).toMatchObject({ numEntities: 0, groups: [{ name: 'd', count: 1 }], entities: [] });
  });

  it('pages groups first, then the entities', async () => {
    const page = async (start: number, limit: number) => (await svc.call('POST', '/entities?action=browse', { path: `/t_${id}`, entity: 'dataset', start, limit })).body.value;
    expect(await page(0, 1)).toMatchObject({ groups: [{ name: 'a' }], entities: [], numElements: 3 });
    expect(await page(1, 2)).toMatchObject({ groups: [{ name: 'c' }], entities: [{ urn: browsed[3] }] });
    expect(await page(2, 5)).toMatchObject({ groups: [], entities: [{ urn: browsed[3] }] });
    expect(await page(3, 5)).toMatchObject({ groups: [], entities: [] });
  });

  it('generates default browse paths for datasets without any, the legacy form ending with the name, listed by that name in its parent', async () => {
    const stored = await svc.call('GET', `/aspects/${enc(kafka)}?aspect=browsePaths&version=0`);
    expect(stored.body.aspect['com.linkedin.common.BrowsePaths'].paths).toEqual([`/dev/kafka/events_${id}`]);
    const res = await svc.call('POST', '/entities?action=browse', { path: '/dev/kafka', entity: 'dataset', start: 0, limit: 1000 });
    expect(res.body.value.entities).toContainEqual({ name: `events_${id}`, urn: kafka });
    expect(res.body.value.groups).not.toContainEqual(expect.objectContaining({ name: `events_${id}` }));
    const at = await svc.call('POST', '/entities?action=browse', { path: `/dev/kafka/events_${id}`, entity: 'dataset', start: 0, limit: 10 });
    expect(at.body.value.entities).toEqual([]);
  });

  it('autocompletes names by prefix', async () => {
    const res = await svc.call('POST', '/entities?action=autocomplete', { query: `exact_${id.slice(0, 5)}`, entity: 'dataset', limit: 5 });
    expect(res.status).toBe(200);
    expect(res.body.value.suggestions).toContain(`exact_${id}`);
    expect(res.body.value.query).toBe(`exact_${id.slice(0, 5)}`);
  });

  it('hides a soft-deleted entity from search, browse and autocomplete, keeps it readable, and brings it back', async () => {
    const target = browsed[3];
    await ingest(target, 'status', { removed: true });
    await svc.indexer.waitUntilIndexed([target]);
    expect((await search(`b4_${id}`)).entities).toEqual([]);
    // As in DataHub, a filter that says what `removed` must be replaces the default: it finds the soft-deleted one.
    const removed = (value: string, negated = false) => ({ or: [{ and: [{ field: 'removed', value, condition: 'EQUAL', negated }] }] });
    expect((await search(`b4_${id}`, removed('true'))).entities).toEqual([target]);
    expect((await search(`b4_${id}`, removed('true', true))).entities).toEqual([]);
    const browse = await svc.call('POST', '/entities?action=browse', { path: `/t_${id}`, entity: 'dataset', start: 0, limit: 10 });
    expect(browse.body.value.entities).toEqual([]);
    expect(browse.body.value.metadata.totalNumEntities).toBe(3);
    const ac = await svc.call('POST', '/entities?action=autocomplete', { query: `b4_${id}`, entity: 'dataset', limit: 5 });
    expect(ac.body.value.suggestions).toEqual([]);
    expect((await svc.call('GET', `/entitiesV2/${enc(target)}`)).status).toBe(200);
    await ingest(target, 'status', { removed: false });
    await svc.indexer.waitUntilIndexed([target]);
    expect((await search(`b4_${id}`)).entities).toEqual([target]);
  });

  it('never returns a hit whose entity was hard-deleted, while the index still has its document', async () => {
    const ghost = ds(`ghost_${id}`);
    await ingest(ghost, 'datasetProperties', { name: `ghost_${id}` });
    await svc.indexer.waitUntilIndexed([ghost]);
    await svc.indexer.stop(); // the document stays in the index for now
    expect((await svc.call('POST', '/entities?action=delete', { urn: ghost })).status).toBe(200);
    expect((await svc.search.search(svc.indexNames.entity('dataset'), { query: { term: { urn: ghost } } })).total).toBe(1);
    expect((await search(`ghost_${id}`)).entities).toEqual([]);
    svc.indexer.start();
    await svc.indexer.waitUntilIndexed([ghost]);
  });

  it('rejects count above 10,000 and an unparsable query with 400', async () => {
    const big = await svc.call('POST', '/entities?action=search', { input: '*', entity: 'dataset', start: 0, count: 10001 });
    expect(big.status).toBe(400);
    const broken = await svc.call('POST', '/entities?action=search', { input: 'name:(a AND', entity: 'dataset', start: 0, count: 10 });
    expect(broken.status).toBe(400);
    expect(broken.body.message).not.toMatch(/index|exception/i);
    const unknown = await svc.call('POST', '/entities?action=search', { input: '*', entity: 'spaceship', start: 0, count: 10 });
    expect(unknown.status).toBe(400);
  });
});
