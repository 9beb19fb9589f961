import { join } from 'node:path';
import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, runProcess, type DatahubClient } from '../support/datahub-client';
import { proposal } from '../support/samples';
import { mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * DataHub's tag mutations: the graph client's create_tag / remove_tag (GraphQL createTag and removeTag, which were
 * missing: both raised), addTag(s) / batchAddTags / batchRemoveTags and the glossary term twins (addTerm(s), removeTerm,
 * batchAddTerms, batchRemoveTerms) on entities and dataset fields.
 */
describe('tag mutations', () => {
  let svc: TestService;
  let client: DatahubClient;
  let token: string;

  beforeAll(async () => {
    svc = await startTestService();
    client = await datahubClient(svc.url);
    token = (await mintToken({ scopes: ['read', 'write'] })).token;
  }, CLIENT_SETUP_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  const graphql = async (query: string, variables: Record<string, unknown> = {}) =>
    (await svc.call('POST', '/api/graphql', { query, variables }, { authorization: `Bearer ${token}` })).body;
  const aspectOf = async (urn: string, aspect: string) => {
    const res = await svc.call('GET', `/aspects/${encodeURIComponent(urn)}?aspect=${aspect}&version=0`);
    return res.status === 200 ? (Object.values(res.body.aspect)[0] as Record<string, any>) : null;
  };
  const write = async (urn: string, aspect: string, value: unknown) => expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value))).status).toBe(200);

  it('the graph client creates a tag (its creator as owner) and removes it from a dataset, keeping the other tags', async () => {
    const id = uniqueId('tags').replace(/[^a-zA-Z0-9_]/g, '_');
    const dataset = `urn:li:dataset:(urn:li:dataPlatform:hive,${id},PROD)`;
    await write(dataset, 'datasetProperties', { name: id, customProperties: {} });
    const run = await runProcess(join(client.venv, 'bin', 'python'), [join(__dirname, '..', 'python', 'tags_check.py'), svc.url, token, `pii_${id}`, dataset], client.env(), { cwd: client.home });
    expect(run.stderr).not.toMatch(/Traceback/);
    const out = JSON.parse(run.stdout.trim().split('\n').pop()!);
    expect(out).toEqual({ tag: `urn:li:tag:pii_${id}`, removed: true, after: ['urn:li:tag:kept'] });
    expect(await aspectOf(out.tag, 'tagProperties')).toEqual({ name: `pii_${id}` });
    expect((await aspectOf(out.tag, 'ownership'))?.owners).toEqual([{ owner: 'urn:li:corpuser:test-bot', type: 'TECHNICAL_OWNER', typeUrn: 'urn:li:ownershipType:__system__technical_owner' }]);
    // The same id again is refused, and changes nothing.
    const again = await graphql('mutation($i: CreateTagInput!) { createTag(input: $i) }', { i: { id: `pii_${id}`, name: 'other' } });
    expect(again.errors?.[0]?.message).toMatch(/already exists/);
    expect(await aspectOf(out.tag, 'tagProperties')).toEqual({ name: `pii_${id}` });
  });

  it('adds and removes tags on entities and dataset fields, checking every resource, tag and field first', async () => {
    const id = uniqueId('tagged').replace(/[^a-zA-Z0-9_]/g, '_');
    const [a, b] = ['a', 'b'].map((n) => `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_${n},PROD)`);
    const field = { fieldPath: 'email', nativeDataType: 'string', type: { type: { 'com.linkedin.schema.StringType': {} } } };
    for (const urn of [a, b]) {
      await write(urn, 'schemaMetadata', { schemaName: id, platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } }, fields: [field] });
    }
    const created = await graphql('mutation { t1: createTag(input: {id: "' + id + '_t1", name: "t1"}) t2: createTag(input: {id: "' + id + '_t2", name: "t2"}) }');
    const [t1, t2] = [created.data.t1, created.data.t2];
    expect([t1, t2]).toEqual([`urn:li:tag:${id}_t1`, `urn:li:tag:${id}_t2`]);

    expect(await graphql(`mutation { addTags(input: {tagUrns: ["${t1}", "${t2}"], resourceUrn: "${a}"}) }`)).toEqual({ data: { addTags: true }, extensions: {} });
    expect(await graphql(`mutation { addTag(input: {tagUrn: "${t1}", resourceUrn: "${a}", subResourceType: DATASET_FIELD, subResource: "email"}) }`)).toEqual({ data: { addTag: true }, extensions: {} });
    expect((await aspectOf(a, 'globalTags'))?.tags).toEqual([{ tag: t1 }, { tag: t2 }]);
    expect((await aspectOf(a, 'editableSchemaMetadata'))?.editableSchemaFieldInfo).toEqual([{ fieldPath: 'email', globalTags: { tags: [{ tag: t1 }] } }]);

    // A missing tag, entity or field refuses the whole batch before any write.
    for (const [input, error] of [
      [`{tagUrns: ["urn:li:tag:${id}_missing"], resources: [{resourceUrn: "${b}"}]}`, /does not exist/],
      [`{tagUrns: ["${t1}"], resources: [{resourceUrn: "${b}"}, {resourceUrn: "urn:li:dataset:(urn:li:dataPlatform:hive,${id}_none,PROD)"}]}`, /Entity does not exist/],
      [`{tagUrns: ["${t1}"], resources: [{resourceUrn: "${b}"}, {resourceUrn: "${b}", subResourceType: DATASET_FIELD, subResource: "phone"}]}`, /Field phone does not exist/],
    ] as const) {
      const refused = await graphql(`mutation { batchAddTags(input: ${input}) }`);
      expect(refused.errors?.[0]?.message).toMatch(error);
    }
    expect(await aspectOf(b, 'globalTags')).toBeNull();

    expect((await graphql(`mutation { batchAddTags(input: {tagUrns: ["${t2}"], resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}]}) }`)).data).toEqual({ batchAddTags: true });
    expect((await aspectOf(b, 'globalTags'))?.tags).toEqual([{ tag: t2 }]);
    expect((await graphql(`mutation { batchRemoveTags(input: {tagUrns: ["${t2}"], resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}]}) }`)).data).toEqual({ batchRemoveTags: true });
    expect((await aspectOf(a, 'globalTags'))?.tags).toEqual([{ tag: t1 }]);
    expect((await aspectOf(b, 'globalTags'))?.tags).toEqual([]);
    expect((await graphql(`mutation { removeTag(input: {tagUrn: "${t1}", resourceUrn: "${a}", subResourceType: DATASET_FIELD, subResource: "email"}) }`)).data).toEqual({ removeTag: true });
    expect((await aspectOf(a, 'editableSchemaMetadata'))?.editableSchemaFieldInfo).toEqual([{ fieldPath: 'email', globalTags: { tags: [] } }]);
  });

  it('adds and removes glossary terms on entities and dataset fields, with the audit stamp the aspect requires', async () => {
    const id = uniqueId('termed').replace(/[^a-zA-Z0-9_]/g, '_');
    const [a, b] = ['a', 'b'].map((n) => `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_${n},PROD)`);
    const field = { fieldPath: 'email', nativeDataType: 'string', type: { type: { 'com.linkedin.schema.StringType': {} } } };
    for (const urn of [a, b]) {
      await write(urn, 'schemaMetadata', { schemaName: id, platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } }, fields: [field] });
    }
    const [pii, email] = [`urn:li:glossaryTerm:${id}.Pii`, `urn:li:glossaryTerm:${id}.Email`];
    for (const term of [pii, email]) await write(term, 'glossaryTermInfo', { definition: 'x', termSource: 'INTERNAL' });

    expect((await graphql(`mutation { addTerms(input: {termUrns: ["${pii}", "${email}"], resourceUrn: "${a}"}) }`)).data).toEqual({ addTerms: true });
    expect((await graphql(`mutation { addTerm(input: {termUrn: "${email}", resourceUrn: "${a}", subResourceType: DATASET_FIELD, subResource: "email"}) }`)).data).toEqual({ addTerm: true });
    const terms = await aspectOf(a, 'glossaryTerms');
    expect(terms?.terms).toEqual([{ urn: pii }, { urn: email }]);
    expect(terms?.auditStamp).toEqual({ time: expect.any(Number), actor: 'urn:li:corpuser:test-bot' });
    const fieldInfo = (await aspectOf(a, 'editableSchemaMetadata'))?.editableSchemaFieldInfo;
    expect(fieldInfo).toEqual([{ fieldPath: 'email', glossaryTerms: { terms: [{ urn: email }], auditStamp: { time: expect.any(Number), actor: 'urn:li:corpuser:test-bot' } } }]);

    // A tag urn where a term is expected, or a missing term, refuses the batch before any write.
    for (const [input, error] of [
      [`{termUrns: ["urn:li:tag:${id}"], resources: [{resourceUrn: "${b}"}]}`, /not a glossary term urn/],
      [`{termUrns: ["${pii}", "urn:li:glossaryTerm:${id}.Missing"], resources: [{resourceUrn: "${b}"}]}`, /glossary term .* does not exist/],
    ] as const) {
      expect((await graphql(`mutation { batchAddTerms(input: ${input}) }`)).errors?.[0]?.message).toMatch(error);
    }
    expect(await aspectOf(b, 'glossaryTerms')).toBeNull();

    expect((await graphql(`mutation { batchAddTerms(input: {termUrns: ["${pii}"], resources: [{resourceUrn: "${b}"}]}) }`)).data).toEqual({ batchAddTerms: true });
    expect((await graphql(`mutation { batchRemoveTerms(input: {termUrns: ["${pii}"], resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}]}) }`)).data).toEqual({ batchRemoveTerms: true });
    expect((await aspectOf(a, 'glossaryTerms'))?.terms).toEqual([{ urn: email }]);
    expect((await aspectOf(b, 'glossaryTerms'))?.terms).toEqual([]);
    expect((await graphql(`mutation { removeTerm(input: {termUrn: "${email}", resourceUrn: "${a}", subResourceType: DATASET_FIELD, subResource: "email"}) }`)).data).toEqual({ removeTerm: true });
    expect((await aspectOf(a, 'editableSchemaMetadata'))?.editableSchemaFieldInfo[0].glossaryTerms.terms).toEqual([]);
  });

  it('updates the edited description of an entity and of a dataset field, refusing a field not in the schema', async () => {
    const id = uniqueId('described').replace(/[^a-zA-Z0-9_]/g, '_');
    const dataset = `urn:li:dataset:(urn:li:dataPlatform:hive,${id},PROD)`;
    const chart = `urn:li:chart:(looker,${id})`;
    const field = { fieldPath: 'email', nativeDataType: 'string', type: { type: { 'com.linkedin.schema.StringType': {} } } };
    await write(dataset, 'schemaMetadata', { schemaName: id, platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } }, fields: [field] });
    await write(chart, 'chartInfo', { title: id, description: 'ingested', lastModified: { created: { time: 0, actor: 'urn:li:corpuser:a' }, lastModified: { time: 0, actor: 'urn:li:corpuser:a' } } });
    const update = (input: string) => graphql(`mutation { updateDescription(input: ${input}) }`);
    expect((await update(`{description: "the orders", resourceUrn: "${dataset}"}`)).data).toEqual({ updateDescription: true });
    expect((await update(`{description: "who to mail", resourceUrn: "${dataset}", subResourceType: DATASET_FIELD, subResource: "email"}`)).data).toEqual({ updateDescription: true });
    expect((await update(`{description: "edited", resourceUrn: "${chart}"}`)).data).toEqual({ updateDescription: true });
    expect((await aspectOf(dataset, 'editableDatasetProperties'))?.description).toBe('the orders');
    expect((await aspectOf(dataset, 'editableSchemaMetadata'))?.editableSchemaFieldInfo).toEqual([{ fieldPath: 'email', description: 'who to mail' }]);
    expect(await aspectOf(chart, 'editableChartProperties')).toMatchObject({ description: 'edited', lastModified: { actor: 'urn:li:corpuser:test-bot' } });
    expect((await aspectOf(chart, 'chartInfo'))?.description).toBe('ingested');

    // Refused, changing nothing: a field not in the schema, an entity not stored.
    expect((await update(`{description: "x", resourceUrn: "${dataset}", subResourceType: DATASET_FIELD, subResource: "phone"}`)).errors?.[0]?.message).toMatch(/Field phone does not exist/);
    expect((await update(`{description: "x", resourceUrn: "urn:li:dataset:(urn:li:dataPlatform:hive,${id}_none,PROD)"}`)).errors?.[0]?.message).toMatch(/does not exist/);
    expect((await aspectOf(dataset, 'editableSchemaMetadata'))?.editableSchemaFieldInfo).toEqual([{ fieldPath: 'email', description: 'who to mail' }]);
  });
});
