import { join } from 'node:path';
import { CLIENT_SETUP_TIMEOUT_MS, datahubClient, runProcess, type DatahubClient } from '../support/datahub-client';
import { enc, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * DataHub's OpenAPI v3 entity and aspect writes: batch create and patch (per type and through the `generic` façade),
 * one aspect's create / conditional write / patch / read by version, existence checks, deletes, time-series aspects,
 * and the official emitter in OpenAPI mode. A refused request writes nothing.
 */
describe('OpenAPI v3 writes', () => {
  let svc: TestService;
  let client: DatahubClient;
  const id = uniqueId('v3w');
  const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_${name},PROD)`;
  const entityPath = (urn: string) => `/openapi/v3/entity/dataset/${enc(urn)}`;

  beforeAll(async () => {
    svc = await startTestService();
    client = await datahubClient(svc.url);
  }, CLIENT_SETUP_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  it('creates entities in one batch, answering the stored aspects (200 sync, 202 async)', async () => {
    const [a, b] = [dataset('create_a'), dataset('create_b')];
    const sync = await svc.call('POST', '/openapi/v3/entity/dataset?async=false', [
      { urn: a, datasetProperties: { value: { name: 'a', customProperties: {} } }, status: { value: { removed: false } } },
    ]);
    expect(sync.status).toBe(200);
    expect(sync.body).toEqual([{ urn: a, datasetProperties: { value: { name: 'a', customProperties: {} } }, status: { value: { removed: false } } }]);
    // Python's str(False): any case is read as a boolean.
    const pythonFlag = await svc.call('POST', '/openapi/v3/entity/DATASET?async=False&systemMetadata=True', [{ urn: b, globalTags: { value: { tags: [{ tag: 'urn:li:tag:pii' }] } } }]);
    expect(pythonFlag.status).toBe(200);
    expect(pythonFlag.body[0].globalTags.systemMetadata.version).toBe('1');
    const async = await svc.call('POST', '/openapi/v3/entity/dataset', [{ urn: b, status: { value: { removed: false } } }]);
    expect(async.status).toBe(202);
    const read = await svc.call('GET', `${entityPath(b)}?aspects=globalTags&aspects=status`);
    expect(read.body).toEqual({ urn: b, globalTags: { value: { tags: [{ tag: 'urn:li:tag:pii' }] } }, status: { value: { removed: false } } });
  });

  it('refuses a whole batch for one bad item: unknown aspect, urn of another type, failed If-Version-Match', async () => {
    const [good, bad] = [dataset('refused_good'), dataset('refused_bad')];
    const goodItem = { urn: good, status: { value: { removed: false } } };
    const refusals = [
      { item: { urn: bad, notAnAspect: { value: {} } }, status: 400 },
      { item: { urn: 'urn:li:chart:(looker,x)', status: { value: { removed: false } } }, status: 400 },
      { item: { urn: 'urn:li:FOOBAR:(x)', status: { value: { removed: false } } }, status: 400 },
      { item: { urn: bad, status: { value: { removed: false }, headers: { 'If-Version-Match': '7' } } }, status: 412 },
      { item: { urn: bad, datasetProperties: { value: { name: 7 } } }, status: 400 },
    ];
    for (const { item, status } of refusals) {
      const res = await svc.call('POST', '/openapi/v3/entity/dataset?async=false', [goodItem, item]);
      expect([res.status, res.body.exceptionClass]).toEqual([status, expect.any(String)]);
    }
    for (const urn of [good, bad]) expect((await svc.call('GET', entityPath(urn))).status).toBe(404);
  });

  it('writes one aspect: create only if absent by default, upsert on request, versions by number', async () => {
    const urn = dataset('aspect');
    const path = `${entityPath(urn)}/globaltags`;
    const one = { value: { tags: [{ tag: 'urn:li:tag:one' }] } };
    const two = { value: { tags: [{ tag: 'urn:li:tag:one' }, { tag: 'urn:li:tag:two' }] } };
    const created = await svc.call('POST', path, one);
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ urn, globalTags: one });
    // createIfNotExists defaults to true: a second create is refused and changes nothing.
    expect((await svc.call('POST', path, two)).status).toBe(400);
    expect((await svc.call('GET', path)).body).toEqual(one);
    expect((await svc.call('POST', `${path}?createIfNotExists=false`, two)).body).toEqual({ urn, globalTags: two });
    expect((await svc.call('POST', `${path}?createIfNotExists=false`, { ...one, headers: { 'If-Version-Match': '1' } })).status).toBe(412);
    // Versions as DataHub numbers them: 1 the first value, 2 the second (now the latest), 0 the latest.
    expect((await svc.call('GET', `${path}?version=1`)).body).toEqual(one);
    expect((await svc.call('GET', `${path}?version=2`)).body).toEqual(two);
    expect((await svc.call('GET', `${path}?version=0`)).body).toEqual(two);
    expect((await svc.call('GET', `${path}?version=3`)).status).toBe(404);
    // createIfEntityNotExists: refused once the entity exists.
    expect((await svc.call('POST', `${entityPath(urn)}/status?createIfEntityNotExists=true`, { value: { removed: false } })).status).toBe(400);
    expect((await svc.call('HEAD', `${entityPath(urn)}/status`)).status).toBe(404);
  });

  it('patches entities and aspects, answering the patched values', async () => {
    const [a, b] = [dataset('patch_a'), dataset('patch_b')];
    const added = await svc.call('PATCH', '/openapi/v3/entity/dataset?async=false', [
      { urn: a, datasetProperties: { value: { patch: [{ op: 'add', path: '/description', value: 'Orders' }] } } },
    ]);
    expect(added.status).toBe(200);
    // A patch of a missing datasetProperties starts from DataHub's template: empty properties and tags.
    expect(added.body).toEqual([{ urn: a, datasetProperties: { value: { description: 'Orders', customProperties: {}, tags: [] } } }]);
    const removed = await svc.call('PATCH', `${entityPath(a)}/datasetProperties`, { patch: [{ op: 'remove', path: '/description' }] });
    expect(removed.body).toEqual({ urn: a, datasetProperties: { value: { customProperties: {}, tags: [] } } });
    // Values are checked against their properties' definitions.
    for (const [id, type] of [['retention', 'number'], ['owner', 'string']]) {
      const definition = { qualifiedName: id, valueType: `urn:li:dataType:datahub.${type}`, cardinality: 'SINGLE', entityTypes: ['urn:li:entityType:datahub.dataset'] };
      expect((await svc.call('POST', `/openapi/v3/entity/structuredproperty/${enc(`urn:li:structuredProperty:${id}`)}/propertyDefinition?createIfNotExists=false`, { value: definition })).status).toBe(200);
    }
    await svc.call('POST', `${entityPath(b)}/structuredProperties?createIfNotExists=false`, {
      value: { properties: [{ propertyUrn: 'urn:li:structuredProperty:retention', values: [{ double: 30 }] }] },
    });
    const keyed = await svc.call('PATCH', `${entityPath(b)}/structuredProperties`, {
      patch: [{ op: 'add', path: '/properties/urn:li:structuredProperty:owner', value: { propertyUrn: 'urn:li:structuredProperty:owner', values: [{ string: 'ops' }] } }],
      arrayPrimaryKeys: { properties: ['propertyUrn'] },
    });
    expect(keyed.body.structuredProperties.value.properties.map((p: { propertyUrn: string }) => p.propertyUrn)).toEqual([
      'urn:li:structuredProperty:retention',
      'urn:li:structuredProperty:owner',
    ]);
    const missingPatch = await svc.call('PATCH', '/openapi/v3/entity/dataset', [{ urn: a, datasetProperties: { value: { description: 'x' } } }]);
    expect(missingPatch.status).toBe(400);
    // forceGenericPatch (DataHub: bypass the aspect templates) is refused rather than ignored; nothing changes.
    const forced = await svc.call('PATCH', `${entityPath(a)}/datasetProperties`, { patch: [{ op: 'add', path: '/description', value: 'forced' }], forceGenericPatch: true });
    expect(forced.status).toBe(400);
    expect((await svc.call('GET', `${entityPath(a)}/datasetProperties`)).body.value).toEqual({ customProperties: {}, tags: [] });
  });

  it('serves the generic façade: several entity types in one request, any urn by its own type', async () => {
    const ds = dataset('generic');
    const chart = `urn:li:chart:(looker,${id}_generic)`;
    const written = await svc.call('POST', '/openapi/v3/entity/generic?async=false', {
      dataset: [{ urn: ds, status: { value: { removed: false } } }],
      chart: [{ urn: chart, chartInfo: { value: { title: 'Revenue', description: '', lastModified: { created: { time: 0, actor: 'urn:li:corpuser:x' }, lastModified: { time: 0, actor: 'urn:li:corpuser:x' } } } } }],
    });
    expect(written.status).toBe(200);
    expect(Object.keys(written.body)).toEqual(['dataset', 'chart']);
    await svc.call('PATCH', '/openapi/v3/entity/generic?async=false', { chart: [{ urn: chart, chartInfo: { value: { patch: [{ op: 'add', path: '/title', value: 'Revenue by day' }] } } }] });
    const got = await svc.call('POST', '/openapi/v3/entity/generic/batchGet', { dataset: [{ urn: ds, status: {} }], chart: [{ urn: chart, chartInfo: {} }] });
    expect(got.body.dataset).toEqual([{ urn: ds, status: { value: { removed: false } } }]);
    expect(got.body.chart[0].chartInfo.value.title).toBe('Revenue by day');
    expect((await svc.call('GET', `/openapi/v3/entity/generic/${enc(chart)}?aspects=chartInfo`)).body.chartInfo.value.title).toBe('Revenue by day');
    expect((await svc.call('DELETE', `/openapi/v3/entity/generic/${enc(chart)}`)).status).toBe(204);
    expect((await svc.call('HEAD', `/openapi/v3/entity/chart/${enc(chart)}`)).status).toBe(404);
  });

  it('answers HEAD for entities and aspects; a soft-deleted entity exists only with includeSoftDelete', async () => {
    const urn = dataset('head');
    await svc.call('POST', '/openapi/v3/entity/dataset?async=false', [{ urn, status: { value: { removed: true } }, globalTags: { value: { tags: [] } } }]);
    expect((await svc.call('HEAD', entityPath(urn))).status).toBe(404);
    expect((await svc.call('HEAD', `${entityPath(urn)}?includeSoftDelete=true`)).status).toBe(204);
    expect((await svc.call('HEAD', `${entityPath(urn)}/globalTags?includeSoftDelete=true`)).status).toBe(204);
    expect((await svc.call('HEAD', `${entityPath(urn)}/ownership?includeSoftDelete=true`)).status).toBe(404);
    expect((await svc.call('HEAD', entityPath(dataset('never')))).status).toBe(404);
  });

  it('deletes an aspect, named aspects, every aspect but the key (clear), or the entity', async () => {
    const urn = dataset('delete');
    const everything = { urn, status: { value: { removed: false } }, globalTags: { value: { tags: [] } }, datasetProperties: { value: { name: 'd', customProperties: {} } } };
    await svc.call('POST', '/openapi/v3/entity/dataset?async=false', [everything]);
    expect((await svc.call('DELETE', `${entityPath(urn)}/globalTags`)).status).toBe(204);
    expect((await svc.call('HEAD', `${entityPath(urn)}/globalTags`)).status).toBe(404);
    expect((await svc.call('DELETE', `${entityPath(urn)}?aspects=datasetProperties`)).status).toBe(204);
    expect(Object.keys((await svc.call('GET', entityPath(urn))).body).sort()).toEqual(['browsePaths', 'browsePathsV2', 'datasetKey', 'status', 'urn']);
    expect((await svc.call('DELETE', `${entityPath(urn)}?clear=true`)).status).toBe(204);
    expect(Object.keys((await svc.call('GET', entityPath(urn))).body).sort()).toEqual(['datasetKey', 'urn']);
    expect((await svc.call('DELETE', entityPath(urn))).status).toBe(204);
    expect((await svc.call('GET', entityPath(urn))).status).toBe(404);
  });

  it('writes, reads and deletes time-series events: a version is a time, a delete removes the latest event', async () => {
    const urn = dataset('profile');
    const path = `${entityPath(urn)}/datasetProfile`;
    const old = { rowCount: 100, messageId: 'old', timestampMillis: 100 };
    const recent = { rowCount: 200, messageId: 'new', timestampMillis: 200 };
    expect((await svc.call('POST', `${path}?createIfNotExists=false`, { value: old })).body).toEqual({ urn, datasetProfile: { value: old } });
    await svc.call('POST', `${path}?createIfNotExists=false`, { value: recent });
    expect((await svc.call('GET', path)).body.value).toMatchObject(recent);
    expect((await svc.call('GET', `${path}?version=150`)).body.value).toMatchObject(old);
    expect((await svc.call('DELETE', path)).status).toBe(204);
    expect((await svc.call('GET', path)).body.value).toMatchObject(old);
    await svc.call('DELETE', path);
    expect((await svc.call('GET', path)).status).toBe(404);
  });

  it('lowers a scroll count above 10,000 instead of refusing it, as DataHub does', async () => {
    expect((await svc.call('POST', '/openapi/v3/entity/scroll?query=*&count=99999', { entities: ['dataset'] })).status).toBe(200);
  });

  it('takes the official emitter in OpenAPI mode: upserts, a batch, client-built patches and the key-aspect delete', async () => {
    const urn = dataset('emitter');
    const { token } = await mintToken();
    const run = await runProcess(join(client.venv, 'bin', 'python'), [join(__dirname, '..', 'python', 'openapi_emitter_check.py'), svc.url, token, urn], client.env(), { cwd: client.home });
    expect(run.stderr).not.toMatch(/Traceback/);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toEqual({
      openapi: true,
      name: 'orders',
      description: 'patched',
      tags: ['urn:li:tag:gold', 'urn:li:tag:pii'],
      existed: true,
      exists_after_delete: false,
    });
  });
});
