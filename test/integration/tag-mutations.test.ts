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

  it('adds and removes owners (existing users and groups, by ownership type) and links, checking everything first', async () => {
    const id = uniqueId('owned').replace(/[^a-zA-Z0-9_]/g, '_');
    const [a, b] = ['a', 'b'].map((n) => `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_${n},PROD)`);
    for (const urn of [a, b]) await write(urn, 'status', { removed: false });
    const [ada, team] = [`urn:li:corpuser:${id}_ada`, `urn:li:corpGroup:${id}_team`];
    await write(ada, 'corpUserInfo', { active: true });
    await write(team, 'corpGroupInfo', { admins: [], members: [], groups: [] });
    const owners = async (urn: string) => ((await aspectOf(urn, 'ownership'))?.owners ?? []).map((o: Record<string, unknown>) => [o.owner, o.type, o.typeUrn]);

    expect((await graphql(`mutation { addOwner(input: {ownerUrn: "${ada}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER, resourceUrn: "${a}"}) }`)).data).toEqual({ addOwner: true });
    expect((await graphql(`mutation { addOwners(input: {owners: [{ownerUrn: "${team}", ownerEntityType: CORP_GROUP, ownershipTypeUrn: "urn:li:ownershipType:__system__business_owner"}, {ownerUrn: "${ada}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resourceUrn: "${a}"}) }`)).data).toEqual({ addOwners: true });
    expect(await owners(a)).toEqual([
      [ada, 'TECHNICAL_OWNER', 'urn:li:ownershipType:__system__technical_owner'],
      [team, 'BUSINESS_OWNER', 'urn:li:ownershipType:__system__business_owner'],
    ]);
    expect((await aspectOf(a, 'ownership'))?.lastModified.actor).toBe('urn:li:corpuser:test-bot');

    // A missing owner or resource, or a user urn named as a group, refuses the batch before any write.
    for (const [owner, type, error] of [
      [`urn:li:corpuser:${id}_nobody`, 'CORP_USER', /Owner with urn .* does not exist/],
      [ada, 'CORP_GROUP', /is not a group urn/],
    ] as const) {
      const refused = await graphql(`mutation { batchAddOwners(input: {owners: [{ownerUrn: "${owner}", ownerEntityType: ${type}}], resources: [{resourceUrn: "${b}"}]}) }`);
      expect(refused.errors?.[0]?.message).toMatch(error);
    }
    const ghost = `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_ghost,PROD)`;
    expect((await graphql(`mutation { batchAddOwners(input: {owners: [{ownerUrn: "${ada}", ownerEntityType: CORP_USER}], resources: [{resourceUrn: "${b}"}, {resourceUrn: "${ghost}"}]}) }`)).errors?.[0]?.message).toMatch(/Entity does not exist/);
    expect(await aspectOf(b, 'ownership')).toBeNull();

    // Without a type the owner is of type NONE; removal by type keeps the owner's other types.
    expect((await graphql(`mutation { batchAddOwners(input: {owners: [{ownerUrn: "${ada}", ownerEntityType: CORP_USER}], resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}]}) }`)).data).toEqual({ batchAddOwners: true });
    expect(await owners(b)).toEqual([[ada, 'NONE', 'urn:li:ownershipType:__system__none']]);
    expect((await graphql(`mutation { removeOwner(input: {ownerUrn: "${ada}", ownershipTypeUrn: "urn:li:ownershipType:__system__none", resourceUrn: "${a}"}) }`)).data).toEqual({ removeOwner: true });
    expect((await owners(a)).map((o: unknown[]) => o[1])).toEqual(['TECHNICAL_OWNER', 'BUSINESS_OWNER']);
    expect((await graphql(`mutation { batchRemoveOwners(input: {ownerUrns: ["${ada}", "${team}"], resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}]}) }`)).data).toEqual({ batchRemoveOwners: true });
    expect([await owners(a), await owners(b)]).toEqual([[], []]);

    // Links: added once per url and label, updated by their current url and label, removed by url.
    const link = (m: string, input: string) => graphql(`mutation { ${m}(input: ${input}) }`);
    expect((await link('addLink', `{linkUrl: "https://wiki/orders", label: "Runbook", resourceUrn: "${a}"}`)).data).toEqual({ addLink: true });
    await link('addLink', `{linkUrl: "https://wiki/orders", label: "Runbook", resourceUrn: "${a}"}`);
    await link('addLink', `{linkUrl: "https://wiki/schema", label: "Schema", resourceUrn: "${a}"}`);
    expect((await link('addLink', `{linkUrl: "not a url", label: "x", resourceUrn: "${a}"}`)).errors?.[0]?.message).toMatch(/absolute url/);
    expect((await link('updateLink', `{currentUrl: "https://wiki/none", currentLabel: "x", linkUrl: "https://wiki/y", label: "y", resourceUrn: "${a}"}`)).errors?.[0]?.message).toMatch(/has no link/);
    expect((await link('updateLink', `{currentUrl: "https://wiki/schema", currentLabel: "Schema", linkUrl: "https://wiki/schema/v2", label: "Schema v2", resourceUrn: "${a}"}`)).data).toEqual({ updateLink: true });
    const read = await graphql(`{ dataset(urn: "${a}") { institutionalMemory { elements { url label author { urn } created { actor } } } } }`);
    expect(read.data.dataset.institutionalMemory.elements).toEqual([
      { url: 'https://wiki/orders', label: 'Runbook', author: { urn: 'urn:li:corpuser:test-bot' }, created: { actor: 'urn:li:corpuser:test-bot' } },
      { url: 'https://wiki/schema/v2', label: 'Schema v2', author: { urn: 'urn:li:corpuser:test-bot' }, created: { actor: 'urn:li:corpuser:test-bot' } },
    ]);
    expect((await link('removeLink', `{linkUrl: "https://wiki/orders", resourceUrn: "${a}"}`)).data).toEqual({ removeLink: true });
    expect((await aspectOf(a, 'institutionalMemory'))?.elements.map((e: { url: string }) => e.url)).toEqual(['https://wiki/schema/v2']);
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

    // A container's edited description reads back as its editableProperties; tags also answer as the deprecated globalTags.
    const container = `urn:li:container:${id}`;
    await write(container, 'containerProperties', { name: id });
    await write(`urn:li:tag:${id}`, 'tagProperties', { name: id });
    expect((await update(`{description: "the schema", resourceUrn: "${container}"}`)).data).toEqual({ updateDescription: true });
    expect((await graphql(`mutation { addTag(input: {tagUrn: "urn:li:tag:${id}", resourceUrn: "${container}"}) }`)).data).toEqual({ addTag: true });
    const read = await graphql(`{ container(urn: "${container}") { editableProperties { description } tags { tags { tag { urn } } } globalTags { tags { tag { urn } } } } }`);
    expect(read.data.container).toEqual({ editableProperties: { description: 'the schema' }, tags: { tags: [{ tag: { urn: `urn:li:tag:${id}` } }] }, globalTags: { tags: [{ tag: { urn: `urn:li:tag:${id}` } }] } });

    // Refused, changing nothing: a field not in the schema, an entity not stored.
    expect((await update(`{description: "x", resourceUrn: "${dataset}", subResourceType: DATASET_FIELD, subResource: "phone"}`)).errors?.[0]?.message).toMatch(/Field phone does not exist/);
    expect((await update(`{description: "x", resourceUrn: "urn:li:dataset:(urn:li:dataPlatform:hive,${id}_none,PROD)"}`)).errors?.[0]?.message).toMatch(/does not exist/);
    expect((await aspectOf(dataset, 'editableSchemaMetadata'))?.editableSchemaFieldInfo).toEqual([{ fieldPath: 'email', description: 'who to mail' }]);
  });
});
