import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, runProcess, type DatahubClient } from '../support/datahub-client';
import { proposal } from '../support/samples';
import { mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * GraphQL the official client sends beyond search and lineage: the SQL parser's bulk schema load (Dataset.schemaMetadata,
 * which the SQL parsing aggregator of Snowflake, BigQuery, sql-queries and other sources calls), a dataset's editable
 * documentation, operations (the client's Operation API, Airflow's circuit breaker), and what the CLI's `datahub search
 * diagnose`, `datahub graphql` and `datahub ingest deploy` / `list-source-runs` ask.
 */
describe('GraphQL the official client sends', () => {
  let svc: TestService;
  let client: DatahubClient;
  let token: string;

  beforeAll(async () => {
    svc = await startTestService();
    client = await datahubClient(svc.url);
    token = (await mintToken({ scopes: ['admin'] })).token;
  }, CLIENT_SETUP_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  const graphql = async (query: string, variables: Record<string, unknown> = {}) =>
    (await svc.call('POST', '/api/graphql', { query, variables }, { authorization: `Bearer ${token}` })).body;
  const write = async (urn: string, aspect: string, value: unknown) => expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value))).status).toBe(200);
  const schema = (name: string, fields: [string, string, string][]) => ({
    schemaName: name,
    platform: 'urn:li:dataPlatform:x',
    version: 0,
    hash: '',
    platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
    fields: fields.map(([fieldPath, nativeDataType, type]) => ({ fieldPath, nativeDataType, type: { type: { [`com.linkedin.schema.${type}`]: {} } }, nullable: false, recursive: false })),
  });

  it("loads a platform's schemas for SQL lineage through the client's bulk fetch, and resolves a SELECT * against them", async () => {
    // The platform names the SQL dialect: a real one, with a database of this test's own.
    const db = uniqueId('db').replace(/[^a-zA-Z0-9]/g, '');
    const urn = (name: string, platform = 'postgres') => `urn:li:dataset:(urn:li:dataPlatform:${platform},${db}.${name},PROD)`;
    await write(urn('sales.orders'), 'schemaMetadata', schema('orders', [['id', 'INT', 'NumberType'], ['amount', 'FLOAT', 'NumberType']]));
    await write(urn('sales.customers'), 'schemaMetadata', schema('customers', [['id', 'INT', 'NumberType'], ['email', 'VARCHAR', 'StringType']]));
    await write(urn('hr.people'), 'schemaMetadata', schema('people', [['name', 'VARCHAR', 'StringType']]));
    // Neither a soft-deleted dataset nor another platform's is loaded.
    await write(urn('sales.gone'), 'schemaMetadata', schema('gone', [['x', 'INT', 'NumberType']]));
    await write(urn('sales.gone'), 'status', { removed: true });
    await write(urn('sales.orders', 'mysql'), 'schemaMetadata', schema('orders', [['other', 'INT', 'NumberType']]));
    await svc.indexer.waitUntilIndexed();

    const check = async (prefix: string) => {
      const script = join(__dirname, '..', 'python', 'schema_resolver_check.py');
      const sql = `insert into ${db}.sales.summary select * from ${db}.sales.orders`;
      const result = await runProcess(join(client.venv, 'bin', 'python'), [script, svc.url, token, 'postgres', prefix, sql], client.env(), { cwd: client.home });
      expect(result.stderr).not.toMatch(/Traceback|Failed to bulk-load/);
      return JSON.parse(result.stdout.trim().split('\n').pop()!);
    };
    expect(await check(`${db}.`)).toEqual({
      loaded: { [urn('hr.people')]: ['name'], [urn('sales.customers')]: ['email', 'id'], [urn('sales.orders')]: ['amount', 'id'] },
      error: null,
      columns: [
        ['amount', [`${urn('sales.orders')}.amount`]],
        ['id', [`${urn('sales.orders')}.id`]],
      ],
    });
    // Narrowed to names starting with a prefix, as the aggregator does for one database.
    expect(Object.keys((await check(`${db}.sales.`)).loaded)).toEqual([urn('sales.customers'), urn('sales.orders')]);
  });

  it("answers a dataset's schema (latest or a version), its editable properties and its edited fields", async () => {
    const id = uniqueId('schema').replace(/[^a-zA-Z0-9_]/g, '_');
    const dataset = `urn:li:dataset:(urn:li:dataPlatform:hive,${id},PROD)`;
    await write(dataset, 'schemaMetadata', schema(id, [['id', 'BIGINT', 'NumberType']]));
    await write(dataset, 'schemaMetadata', schema(id, [['id', 'BIGINT', 'NumberType'], ['tags', 'ARRAY<STRING>', 'ArrayType'], ['address', 'STRUCT', 'RecordType']]));
    await write(dataset, 'editableDatasetProperties', { description: 'edited in the UI', created: { time: 0, actor: 'urn:li:corpuser:a' }, lastModified: { time: 0, actor: 'urn:li:corpuser:a' } });
    await write(dataset, 'editableSchemaMetadata', {
      created: { time: 0, actor: 'urn:li:corpuser:a' },
      lastModified: { time: 0, actor: 'urn:li:corpuser:a' },
      editableSchemaFieldInfo: [{ fieldPath: 'id', description: 'the key', globalTags: { tags: [{ tag: 'urn:li:tag:pk' }] } }],
    });
    const answer = await graphql(`{ dataset(urn: "${dataset}") {
      latest: schemaMetadata { aspectVersion name platformUrn fields { fieldPath nativeDataType type nullable recursive } }
      first: schemaMetadata(version: 1) { aspectVersion fields { fieldPath type } }
      none: schemaMetadata(version: 5) { name }
      editableProperties { description }
      editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description tags { tags { tag { urn name } } } } } } }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data.dataset).toEqual({
      latest: {
        aspectVersion: 0,
        name: id,
        platformUrn: 'urn:li:dataPlatform:x',
        fields: [
          { fieldPath: 'id', nativeDataType: 'BIGINT', type: 'NUMBER', nullable: false, recursive: false },
          { fieldPath: 'tags', nativeDataType: 'ARRAY<STRING>', type: 'ARRAY', nullable: false, recursive: false },
          { fieldPath: 'address', nativeDataType: 'STRUCT', type: 'STRUCT', nullable: false, recursive: false },
        ],
      },
      first: { aspectVersion: 1, fields: [{ fieldPath: 'id', type: 'NUMBER' }] },
      none: null,
      editableProperties: { description: 'edited in the UI' },
      editableSchemaMetadata: { editableSchemaFieldInfo: [{ fieldPath: 'id', description: 'the key', tags: { tags: [{ tag: { urn: 'urn:li:tag:pk', name: 'pk' } }] } }] },
    });
  });

  it("finds a run and shows it as DataHub's data process instance smoke test reads it: properties, platform, sub types, container, training run", async () => {
    const id = uniqueId('dpi');
    const run = `urn:li:dataProcessInstance:${id}`;
    const container = `urn:li:container:${id}-group`;
    await write(run, 'dataProcessInstanceProperties', { name: 'Test Pipeline Run', type: 'BATCH_SCHEDULED', created: { time: 1640692800000, actor: 'urn:li:corpuser:datahub' }, customProperties: {} });
    await write(run, 'dataPlatformInstance', { platform: 'urn:li:dataPlatform:airflow', instance: `urn:li:dataPlatformInstance:(urn:li:dataPlatform:airflow,${id})` });
    await write(run, 'subTypes', { typeNames: ['TEST', 'BATCH_JOB'] });
    await write(run, 'container', { container });
    await write(run, 'mlTrainingRunProperties', {
      id: 'test-training-run-123',
      trainingMetrics: [{ name: 'accuracy', description: 'accuracy of the model', value: '0.95' }, { name: 'loss', value: '0.05' }],
      hyperParams: [{ name: 'learningRate', value: '0.001' }],
      outputUrls: ['s3://my-bucket/ml/output'],
      customProperties: {},
    });
    await svc.indexer.waitUntilIndexed([run]);
    const body = await graphql(`query q($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { searchResults { entity { ... on DataProcessInstance {
      urn name created { time actor } properties { name externalUrl created { time } } dataPlatformInstance { platform { urn name } } subTypes { typeNames } container { urn }
      platform { urn name } mlTrainingRunProperties { id trainingMetrics { name value } hyperParams { name value } outputUrls } } } } } }`, { input: { types: ['DATA_PROCESS_INSTANCE'], query: id, count: 10 } });
    expect(body.errors).toBeUndefined();
    expect(body.data.scrollAcrossEntities.searchResults).toEqual([{ entity: {
      urn: run,
      name: 'Test Pipeline Run',
      created: { time: 1640692800000, actor: 'urn:li:corpuser:datahub' },
      properties: { name: 'Test Pipeline Run', externalUrl: null, created: { time: 1640692800000 } },
      dataPlatformInstance: { platform: { urn: 'urn:li:dataPlatform:airflow', name: 'airflow' } },
      subTypes: { typeNames: ['TEST', 'BATCH_JOB'] },
      container: { urn: container },
      platform: { urn: 'urn:li:dataPlatform:airflow', name: 'airflow' },
      mlTrainingRunProperties: {
        id: 'test-training-run-123',
        trainingMetrics: [{ name: 'accuracy', value: '0.95' }, { name: 'loss', value: '0.05' }],
        hyperParams: [{ name: 'learningRate', value: '0.001' }],
        outputUrls: ['s3://my-bucket/ml/output'],
      },
    } }]);
  });

  it("answers a chart's input fields with each column as an entity and its documentation, as DataHub's schema field smoke test reads them", async () => {
    const id = uniqueId('inputs');
    const column = `urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:snowflake,table_${id},PROD),field1)`;
    const chart = `urn:li:chart:(looker,chart_${id})`;
    await write(column, 'documentation', { documentations: [{ documentation: 'test documentation', attribution: { time: 1700000000000, actor: 'urn:li:corpuser:datahub', source: 'urn:li:dataHubAction:documentation_propagation' } }] });
    await write(chart, 'inputFields', { fields: [{ schemaFieldUrn: column, schemaField: { fieldPath: 'field1', type: { type: { 'com.linkedin.schema.StringType': {} } }, nativeDataType: 'STRING', nullable: false, recursive: false } }] });
    const body = await graphql(`query ($urn: String!) { chart(urn: $urn) { inputFields { fields { schemaFieldUrn schemaField { fieldPath schemaFieldEntity { urn fieldPath documentation { documentations { documentation } } } } } } } }`, { urn: chart });
    expect(body.errors).toBeUndefined();
    expect(body.data.chart.inputFields.fields).toEqual([
      { schemaFieldUrn: column, schemaField: { fieldPath: 'field1', schemaFieldEntity: { urn: column, fieldPath: 'field1', documentation: { documentations: [{ documentation: 'test documentation' }] } } } },
    ]);
  });

  it('answers entities by urn, generic and typed, with null for what is not stored or of another type', async () => {
    const id = uniqueId('byurn').replace(/[^a-zA-Z0-9_]/g, '_');
    const [chart, tag, user] = [`urn:li:chart:(looker,${id})`, `urn:li:tag:${id}`, `urn:li:corpuser:${id}`];
    await write(chart, 'chartInfo', { title: id, description: '', lastModified: { created: { time: 0, actor: 'urn:li:corpuser:a' }, lastModified: { time: 0, actor: 'urn:li:corpuser:a' } } });
    await write(tag, 'tagProperties', { name: `${id} tag` });
    await write(user, 'corpUserInfo', { active: true, displayName: 'Ada', email: 'ada@example.com' });
    const missing = `urn:li:tag:${id}_missing`;
    const answer = await graphql(`{
      entity(urn: "${chart}") { urn type ... on Chart { properties { name } } }
      entities(urns: ["${tag}", "${missing}", "${user}", "not a urn"]) { urn type ... on Tag { exists } }
      tag(urn: "${tag}") { name properties { name } exists }
      notATag: tag(urn: "${chart}") { urn }
      corpUser(urn: "${user}") { username properties { displayName email active } }
      chart(urn: "${chart}") { platform { urn } }
      nothing: entity(urn: "${missing}") { urn ... on Tag { exists properties { name } } } }`);
    expect(answer).toEqual({
      data: {
        entity: { urn: chart, type: 'CHART', properties: { name: id } },
        // As DataHub: a urn of a known type resolves whether stored or not, and `exists` tells which.
        entities: [{ urn: tag, type: 'TAG', exists: true }, { urn: missing, type: 'TAG', exists: false }, { urn: user, type: 'CORP_USER' }, null],
        tag: { name: id, properties: { name: `${id} tag` }, exists: true },
        notATag: null,
        corpUser: { username: id, properties: { displayName: 'Ada', email: 'ada@example.com', active: true } },
        chart: { platform: { urn: 'urn:li:dataPlatform:looker' } },
        nothing: { urn: missing, exists: false, properties: null },
      },
      extensions: {},
    });
  });

  it('answers DataHub\'s original search (one entity type) and browse (groups, then the entities at a path)', async () => {
    const id = uniqueId('browse').replace(/[^a-zA-Z0-9]/g, '');
    const urns = ['orders', 'customers', 'sub.items'].map((n) => `urn:li:dataset:(urn:li:dataPlatform:${id},${n},PROD)`);
    for (const [i, urn] of urns.entries()) {
      await write(urn, 'datasetProperties', { name: `${id}_${i}`, customProperties: {} });
      await write(urn, 'browsePaths', { paths: [i === 2 ? `/prod/${id}/sub` : `/prod/${id}`] });
    }
    await svc.indexer.waitUntilIndexed();
    const found = await graphql(`{ search(input: {type: DATASET, query: "${id}_1", start: 0, count: 5}) { start count total searchResults { entity { urn type } } } }`);
    expect(found.data.search).toEqual({ start: 0, count: 1, total: 1, searchResults: [{ entity: { urn: urns[1], type: 'DATASET' } }] });
    const filtered = await graphql(`{ search(input: {type: DATASET, query: "*", orFilters: [{and: [{field: "platform", values: ["urn:li:dataPlatform:${id}"]}]}]}) { total } }`);
    expect(filtered.data.search.total).toBe(3);
    const level = await graphql(`{ browse(input: {type: DATASET, path: ["prod", "${id}"], start: 0, count: 10}) { entities { urn } groups { name count } start count total metadata { path totalNumEntities } } }`);
    expect(level.data.browse).toEqual({
      entities: [{ urn: urns[1] }, { urn: urns[0] }],
      groups: [{ name: 'sub', count: 1 }],
      start: 0,
      count: 3,
      total: 3,
      metadata: { path: ['prod', id], totalNumEntities: 1 },
    });
    expect((await graphql('{ browse(input: {type: DATASET, path: ["prod"]}) { groups { name } } }')).data.browse.groups).toContainEqual({ name: id });
  });

  it('answers where entities sit: parent containers, domains and glossary nodes nearest first, and what a container or domain holds', async () => {
    const id = uniqueId('tree').replace(/[^a-zA-Z0-9]/g, '');
    const [outer, inner] = [`urn:li:container:${id}outer`, `urn:li:container:${id}inner`];
    const dataset = `urn:li:dataset:(urn:li:dataPlatform:hive,${id}.orders,PROD)`;
    await write(outer, 'containerProperties', { name: 'warehouse', customProperties: {} });
    await write(inner, 'containerProperties', { name: 'sales', customProperties: {} });
    await write(inner, 'container', { container: outer });
    await write(dataset, 'container', { container: inner });
    const [root, child] = [`urn:li:domain:${id}root`, `urn:li:domain:${id}child`];
    await write(root, 'domainProperties', { name: 'Finance' });
    await write(child, 'domainProperties', { name: 'Billing', parentDomain: root });
    await write(dataset, 'domains', { domains: [child] });
    const [top, mid, term] = [`urn:li:glossaryNode:${id}top`, `urn:li:glossaryNode:${id}mid`, `urn:li:glossaryTerm:${id}.Revenue`];
    await write(top, 'glossaryNodeInfo', { definition: 'top', name: 'Top' });
    await write(mid, 'glossaryNodeInfo', { definition: 'mid', name: 'Mid', parentNode: top });
    await write(term, 'glossaryTermInfo', { definition: 'money', termSource: 'INTERNAL', parentNode: mid });
    await svc.indexer.waitUntilIndexed();

    const answer = await graphql(`{
      dataset(urn: "${dataset}") { parentContainers { count containers { urn properties { name } } } }
      container(urn: "${inner}") { parentContainers { count containers { urn } } entities(input: {start: 0, count: 10}) { total searchResults { entity { urn } } } }
      outer: container(urn: "${outer}") { parentContainers { count } entities { total searchResults { entity { urn } } } }
      domain(urn: "${child}") { parentDomains { count domains { urn properties { name } } } entities { total searchResults { entity { urn } } } }
      glossaryTerm(urn: "${term}") { parentNodes { count nodes { urn properties { name } } } }
      glossaryNode(urn: "${mid}") { properties { name description } exists parentNodes { nodes { urn } } } }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      dataset: { parentContainers: { count: 2, containers: [{ urn: inner, properties: { name: 'sales' } }, { urn: outer, properties: { name: 'warehouse' } }] } },
      container: { parentContainers: { count: 1, containers: [{ urn: outer }] }, entities: { total: 1, searchResults: [{ entity: { urn: dataset } }] } },
      outer: { parentContainers: { count: 0 }, entities: { total: 1, searchResults: [{ entity: { urn: inner } }] } },
      domain: { parentDomains: { count: 1, domains: [{ urn: root, properties: { name: 'Finance' } }] }, entities: { total: 1, searchResults: [{ entity: { urn: dataset } }] } },
      glossaryTerm: { parentNodes: { count: 2, nodes: [{ urn: mid, properties: { name: 'Mid' } }, { urn: top, properties: { name: 'Top' } }] } },
      glossaryNode: { properties: { name: 'Mid', description: 'mid' }, exists: true, parentNodes: { nodes: [{ urn: top }] } },
    });

    // Edges of one entity, in either direction, on every entity (DataHub's Entity.relationships).
    const edges = await graphql(`{
      container(urn: "${inner}") { relationships(input: {types: ["IsPartOf"], direction: INCOMING, start: 0, count: 10}) { start count total relationships { type direction entity { urn type } } } }
      entity(urn: "${dataset}") { relationships(input: {types: ["IsPartOf", "AssociatedWith"], direction: OUTGOING}) { total relationships { type entity { urn } } } } }`);
    expect(edges.data.container.relationships).toEqual({ start: 0, count: 1, total: 1, relationships: [{ type: 'IsPartOf', direction: 'INCOMING', entity: { urn: dataset, type: 'DATASET' } }] });
    expect(edges.data.entity.relationships.relationships).toEqual(expect.arrayContaining([{ type: 'IsPartOf', entity: { urn: inner } }, { type: 'AssociatedWith', entity: { urn: child } }]));
  });

  it('manages the glossary and domains: create, move (never into a cycle), rename, and delete a domain with its references', async () => {
    const id = uniqueId('gloss').replace(/[^a-zA-Z0-9]/g, '');
    const ok = async (mutation: string) => {
      const res = await graphql(`mutation { ${mutation} }`);
      expect(res.errors).toBeUndefined();
      return Object.values(res.data)[0] as string;
    };
    const refused = async (mutation: string) => (await graphql(`mutation { ${mutation} }`)).errors?.[0]?.message;

    const top = await ok(`createGlossaryNode(input: {id: "${id}top", name: "Top", description: "top node"})`);
    const mid = await ok(`createGlossaryNode(input: {id: "${id}mid", name: "Mid", parentNode: "${top}"})`);
    const term = await ok(`createGlossaryTerm(input: {id: "${id}.Revenue", name: "Revenue", description: "money in", parentNode: "${mid}"})`);
    expect([top, mid, term]).toEqual([`urn:li:glossaryNode:${id}top`, `urn:li:glossaryNode:${id}mid`, `urn:li:glossaryTerm:${id}.Revenue`]);
    expect(await refused(`createGlossaryTerm(input: {id: "${id}.Revenue", name: "again"})`)).toMatch(/already exists/);
    expect(await refused(`createGlossaryTerm(input: {name: "orphan", parentNode: "urn:li:glossaryNode:${id}none"})`)).toMatch(/does not exist/);
    expect(await refused(`updateParentNode(input: {resourceUrn: "${top}", parentNode: "${mid}"})`)).toMatch(/itself or under it/);
    await ok(`updateParentNode(input: {resourceUrn: "${term}", parentNode: "${top}"})`);
    await ok(`updateName(input: {urn: "${term}", name: "Revenue (net)"})`);
    const read = await graphql(`{ glossaryTerm(urn: "${term}") { properties { name definition termSource } parentNodes { nodes { urn } } } }`);
    expect(read.data.glossaryTerm).toEqual({ properties: { name: 'Revenue (net)', definition: 'money in', termSource: 'INTERNAL' }, parentNodes: { nodes: [{ urn: top }] } });
    const owned = await svc.call('GET', `/aspects/${encodeURIComponent(term)}?aspect=ownership&version=0`);
    expect(owned.body.aspect['com.linkedin.common.Ownership'].owners.map((o: { owner: string }) => o.owner)).toEqual(['urn:li:corpuser:test-bot']);

    const finance = await ok(`createDomain(input: {id: "${id}finance", name: "Finance"})`);
    const billing = await ok(`createDomain(input: {id: "${id}billing", name: "Billing", parentDomain: "${finance}"})`);
    expect(await refused(`moveDomain(input: {resourceUrn: "${finance}", parentDomain: "${billing}"})`)).toMatch(/itself or under it/);
    expect(await refused(`deleteDomain(urn: "${finance}")`)).toMatch(/has child domains/);
    const dataset = `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_orders,PROD)`;
    await write(dataset, 'status', { removed: false });
    await ok(`setDomain(entityUrn: "${dataset}", domainUrn: "${billing}")`);
    await ok(`moveDomain(input: {resourceUrn: "${billing}"})`);
    expect((await graphql(`{ domain(urn: "${billing}") { parentDomains { count } } }`)).data.domain.parentDomains.count).toBe(0);
    await ok(`deleteDomain(urn: "${billing}")`);
    expect((await graphql(`{ domain(urn: "${billing}") { exists } }`)).data.domain.exists).toBe(false);
    const domains = await svc.call('GET', `/aspects/${encodeURIComponent(dataset)}?aspect=domains&version=0`);
    expect(domains.body.aspect['com.linkedin.domain.Domains'].domains).toEqual([]);
    await ok(`deleteDomain(urn: "${finance}")`);
  });

  it('manages data products: create in a domain, set assets (an asset in one product at a time), search them, update, delete', async () => {
    const id = uniqueId('dp').replace(/[^a-zA-Z0-9]/g, '');
    const mutate = async (mutation: string) => graphql(`mutation { ${mutation} }`);
    const domain = (await mutate(`createDomain(input: {id: "${id}sales", name: "Sales"})`)).data.createDomain as string;
    const [orders, customers] = ['orders', 'customers'].map((n) => `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_${n},PROD)`);
    for (const urn of [orders, customers]) await write(urn, 'datasetProperties', { name: `${id} ${urn.includes('orders') ? 'orders' : 'customers'}`, customProperties: {} });
    const created = await mutate(`first: createDataProduct(input: {id: "${id}first", domainUrn: "${domain}", properties: {name: "First", description: "one"}}) { urn } second: createDataProduct(input: {id: "${id}second", domainUrn: "${domain}", properties: {name: "Second"}}) { urn }`);
    const [first, second] = [created.data.first.urn, created.data.second.urn];
    expect(first).toBe(`urn:li:dataProduct:${id}first`);
    expect((await mutate(`createDataProduct(input: {id: "${id}first", domainUrn: "${domain}", properties: {name: "again"}}) { urn }`)).errors?.[0]?.message).toMatch(/already exists/);
    expect((await mutate(`createDataProduct(input: {domainUrn: "urn:li:domain:${id}none", properties: {name: "x"}}) { urn }`)).errors?.[0]?.message).toMatch(/does not exist/);

    expect((await mutate(`batchSetDataProduct(input: {dataProductUrn: "${first}", resourceUrns: ["${orders}", "${customers}"]})`)).data).toEqual({ batchSetDataProduct: true });
    // Setting another product moves the asset out of the first.
    await mutate(`batchSetDataProduct(input: {dataProductUrn: "${second}", resourceUrns: ["${customers}"]})`);
    await svc.indexer.waitUntilIndexed();
    const read = await graphql(`{
      dataProduct(urn: "${first}") { properties { name description numAssets } domain { domain { urn } } entities { total searchResults { entity { urn } } } }
      listDataProductAssets(urn: "${second}", input: {query: "*"}) { total searchResults { entity { urn } } } }`);
    expect(read.data).toEqual({
      dataProduct: { properties: { name: 'First', description: 'one', numAssets: 1 }, domain: { domain: { urn: domain } }, entities: { total: 1, searchResults: [{ entity: { urn: orders } }] } },
      listDataProductAssets: { total: 1, searchResults: [{ entity: { urn: customers } }] },
    });
    await mutate(`batchSetDataProduct(input: {resourceUrns: ["${orders}"]})`);
    await mutate(`updateDataProduct(urn: "${first}", input: {name: "First (renamed)"}) { urn }`);
    expect((await graphql(`{ dataProduct(urn: "${first}") { properties { name numAssets } } }`)).data.dataProduct.properties).toEqual({ name: 'First (renamed)', numAssets: 0 });
    expect((await mutate(`deleteDataProduct(urn: "${second}")`)).data).toEqual({ deleteDataProduct: true });
    expect((await graphql(`{ dataProduct(urn: "${second}") { exists } }`)).data.dataProduct.exists).toBe(false);
  });

  it('manages users and groups: create a native group, add and remove members, list, remove (admin scope)', async () => {
    const id = uniqueId('grp').replace(/[^a-zA-Z0-9]/g, '');
    const [ada, bob] = [`urn:li:corpuser:${id}ada`, `urn:li:corpuser:${id}bob`];
    for (const user of [ada, bob]) await write(user, 'corpUserInfo', { active: true, displayName: user.slice(-3) });
    const mutate = async (mutation: string, as = token) => (await svc.call('POST', '/api/graphql', { query: `mutation { ${mutation} }` }, { authorization: `Bearer ${as}` })).body;
    const group = (await mutate(`createGroup(input: {id: "${id}team", name: "Team", description: "the team"})`)).data.createGroup as string;
    expect(group).toBe(`urn:li:corpGroup:${id}team`);
    expect((await mutate(`createGroup(input: {id: "${id}team", name: "again"})`)).errors?.[0]?.message).toMatch(/already exists/);
    expect((await mutate(`addGroupMembers(input: {groupUrn: "${group}", userUrns: ["${ada}", "urn:li:corpuser:${id}nobody"]})`)).errors?.[0]?.message).toMatch(/does not exist/);
    const writer = (await mintToken({ scopes: ['read', 'write'] })).token;
    expect((await mutate(`addGroupMembers(input: {groupUrn: "${group}", userUrns: ["${ada}"]})`, writer)).errors?.[0]?.extensions?.code).toBe(403);
    expect((await mutate(`addGroupMembers(input: {groupUrn: "${group}", userUrns: ["${ada}", "${bob}"]})`)).data).toEqual({ addGroupMembers: true });
    const members = async () =>
      (await graphql(`{ corpGroup(urn: "${group}") { relationships(input: {types: ["IsMemberOfNativeGroup", "IsMemberOfGroup"], direction: INCOMING}) { total relationships { entity { urn } } } } }`)).data.corpGroup.relationships;
    expect((await members()).relationships.map((r: { entity: { urn: string } }) => r.entity.urn).sort()).toEqual([ada, bob]);
    await mutate(`removeGroupMembers(input: {groupUrn: "${group}", userUrns: ["${bob}"]})`);
    expect((await members()).relationships).toEqual([{ entity: { urn: ada } }]);
    await svc.indexer.waitUntilIndexed();
    const listed = await graphql(`{ listGroups(input: {query: "${id}team"}) { total groups { urn } } listUsers(input: {query: "${id}ada", count: 5}) { total users { urn } } }`);
    expect(listed.data).toEqual({ listGroups: { total: 1, groups: [{ urn: group }] }, listUsers: { total: 1, users: [{ urn: ada }] } });
    expect((await mutate(`removeGroup(urn: "${group}")`)).data).toEqual({ removeGroup: true });
    const membership = await svc.call('GET', `/aspects/${encodeURIComponent(ada)}?aspect=nativeGroupMembership&version=0`);
    expect(membership.body.aspect['com.linkedin.identity.NativeGroupMembership'].nativeGroups).toEqual([]);
    expect((await mutate(`removeUser(urn: "${bob}")`)).data).toEqual({ removeUser: true });
    expect((await graphql(`{ corpUser(urn: "${bob}") { exists } }`)).data.corpUser.exists).toBe(false);
  });

  it('answers siblingsSearch from either side of the siblings aspect, batched per request, paged by cursor', async () => {
    const id = uniqueId('sib').replace(/[^a-zA-Z0-9]/g, '');
    const dbt = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:dbt,${id}.${n},PROD)`;
    const wh = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:snowflake,${id}.${n},PROD)`;
    for (const urn of [dbt('orders'), dbt('orphan'), dbt('multi'), wh('orders'), wh('m0'), wh('m1'), wh('m2'), dbt('sym'), wh('sym')]) await write(urn, 'status', { removed: false });
    // Written on the warehouse side only, as DataHub's dbt source does; the symmetric pair on both sides.
    await write(wh('orders'), 'siblings', { siblings: [dbt('orders')], primary: true });
    for (const m of ['m0', 'm1', 'm2']) await write(wh(m), 'siblings', { siblings: [dbt('multi')], primary: true });
    await write(dbt('sym'), 'siblings', { siblings: [wh('sym')], primary: false });
    await write(wh('sym'), 'siblings', { siblings: [dbt('sym')], primary: true });
    const page = `total count nextScrollId searchResults { entity { urn } }`;
    const answer = await graphql(`{
      a: dataset(urn: "${dbt('orders')}") { siblingsSearch(input: {query: "*", count: 5}) { ${page} } }
      b: dataset(urn: "${dbt('orphan')}") { siblingsSearch(input: {query: "*", count: 5}) { ${page} } }
      c: dataset(urn: "${dbt('multi')}") { siblingsSearch(input: {query: "*", count: 2}) { ${page} } }
      d: dataset(urn: "${dbt('sym')}") { siblingsSearch(input: {query: "*", count: 5}) { ${page} } }
      e: dataset(urn: "${wh('sym')}") { siblingsSearch(input: {query: "*", count: 0}) { ${page} } } }`);
    const urns = (p: { searchResults: { entity: { urn: string } }[] }) => p.searchResults.map((r) => r.entity.urn);
    const d = answer.data;
    expect([urns(d.a.siblingsSearch), d.a.siblingsSearch.total, d.a.siblingsSearch.nextScrollId]).toEqual([[wh('orders')], 1, null]);
    expect(d.b.siblingsSearch).toEqual({ total: 0, count: 0, nextScrollId: null, searchResults: [] });
    expect([urns(d.c.siblingsSearch), d.c.siblingsSearch.total]).toEqual([[wh('m0'), wh('m1')], 3]);
    expect(urns(d.d.siblingsSearch)).toEqual([wh('sym')]);
    expect(d.e.siblingsSearch).toEqual({ total: 1, count: 0, nextScrollId: null, searchResults: [] });
    // Deprecated fields DataHub still answers: Dataset.description, CorpUser.info.
    await write(dbt('orders'), 'datasetProperties', { name: 'orders', description: 'all orders', customProperties: {} });
    await write(`urn:li:corpuser:${id}ada`, 'corpUserInfo', { active: true, displayName: 'Ada' });
    const legacy = await graphql(`{ dataset(urn: "${dbt('orders')}") { description } corpUser(urn: "urn:li:corpuser:${id}ada") { info { displayName active } } }`);
    expect(legacy.data).toEqual({ dataset: { description: 'all orders' }, corpUser: { info: { displayName: 'Ada', active: true } } });
    const rest = await graphql(`{ dataset(urn: "${dbt('multi')}") { siblingsSearch(input: {query: "*", count: 2, scrollId: "${d.c.siblingsSearch.nextScrollId}"}) { ${page} } } }`);
    expect([urns(rest.data.dataset.siblingsSearch), rest.data.dataset.siblingsSearch.nextScrollId]).toEqual([[wh('m2')], null]);
    expect((await graphql(`{ dataset(urn: "${dbt('multi')}") { siblingsSearch(input: {query: "*", scrollId: "nonsense"}) { total } } }`)).errors?.[0]?.message).toMatch(/Invalid scrollId/);
  });

  it("answers the caller's privileges by its token's scopes, and the CLI's `datahub graphql` and `datahub search diagnose` work", async () => {
    const reader = (await mintToken({ actor: 'urn:li:corpuser:reader', scopes: ['read'] })).token;
    const query = '{ me { corpUser { urn username } platformPrivileges { manageTokens manageTags createTags } } }';
    const asReader = await svc.call('POST', '/api/graphql', { query }, { authorization: `Bearer ${reader}` });
    expect(asReader.body.data.me).toEqual({ corpUser: { urn: 'urn:li:corpuser:reader', username: 'reader' }, platformPrivileges: { manageTokens: false, manageTags: false, createTags: false } });

    const env = { env: { DATAHUB_GMS_TOKEN: token } };
    const me = await client.cli(['graphql', '--query', query, '--format', 'json'], env);
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout.slice(me.stdout.indexOf('{'))).me).toEqual({ corpUser: { urn: 'urn:li:corpuser:test-bot', username: 'test-bot' }, platformPrivileges: { manageTokens: true, manageTags: true, createTags: true } });

    const diagnose = await client.cli(['search', 'diagnose'], env);
    expect(diagnose.stdout).toMatch(/✓ Connected to DataHub/);
    expect(diagnose.stdout).toMatch(/✓ Search is working \(\d+ entities indexed\)/);
    expect(diagnose.stdout).toMatch(/Semantic search is NOT available/);
  });

  it('deploys a recipe with `datahub ingest deploy`, lists its runs with `datahub ingest list-source-runs`, redeploys and deletes it', async () => {
    const name = uniqueId('nightly').replace(/[^a-zA-Z0-9_-]/g, '-');
    const recipe = join(client.home, `${name}.yml`);
    await writeFile(recipe, ['source:', '  type: file', '  config: {path: /data/mces.json}', 'sink:', '  type: datahub-rest', '  config: {server: "http://gms:8080"}', ''].join('\n'));
    const env = { env: { DATAHUB_GMS_TOKEN: token } };
    const deploy = await client.cli(['ingest', 'deploy', '--name', name, '-c', recipe, '--schedule', '0 5 * * *', '--time-zone', 'Europe/Paris'], env);
    expect(deploy.code).toBe(0);
    const urn = /'updateIngestionSource': '([^']+)'/.exec(deploy.stdout)?.[1];
    expect(urn).toMatch(/^urn:li:dataHubIngestionSource:deploy-/);
    const sourceQuery = `{ ingestionSource(urn: "${urn}") { name type schedule { interval timezone } config { executorId recipe } } }`;
    const stored = (await graphql(sourceQuery)).data.ingestionSource;
    expect({ ...stored, config: { ...stored.config, recipe: JSON.parse(stored.config.recipe) } }).toEqual({
      name,
      type: 'file',
      schedule: { interval: '0 5 * * *', timezone: 'Europe/Paris' },
      config: { executorId: 'default', recipe: { source: { type: 'file', config: { path: '/data/mces.json' } }, sink: { type: 'datahub-rest', config: { server: 'http://gms:8080' } } } },
    });

    // A schedule that is not a cron schedule is refused, and the source stays as it was.
    const refused = await client.cli(['ingest', 'deploy', '--name', name, '-c', recipe, '--schedule', '0 25 * * *'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/is not a cron schedule/);
    expect((await graphql(sourceQuery)).data.ingestionSource.schedule).toEqual({ interval: '0 5 * * *', timezone: 'Europe/Paris' });

    // Two runs an executor recorded; the newest is listed first.
    for (const [i, status] of [[1, 'FAILURE'], [2, 'SUCCESS']] as const) {
      const request = `urn:li:dataHubExecutionRequest:${name}-run${i}`;
      await write(request, 'dataHubExecutionRequestInput', { task: 'RUN_INGEST', args: {}, executorId: 'default', source: { type: 'SCHEDULED_INGESTION_SOURCE', ingestionSource: urn }, requestedAt: 1_764_500_000_000 + i * 60_000 });
      await write(request, 'dataHubExecutionRequestResult', { status, startTimeMs: 1_764_500_000_000 + i * 60_000, durationMs: 1000 });
    }
    await svc.indexer.waitUntilIndexed();
    const runs = await client.cli(['ingest', 'list-source-runs', '--source', name], env);
    expect(runs.code).toBe(0);
    const rows = runs.stdout.split('\n').filter((l) => l.includes(`${name}-run`));
    expect(rows.map((r) => r.split('|').map((c) => c.trim()).filter(Boolean))).toEqual([
      [`${name}-run2`, name, expect.any(String), 'SUCCESS', urn],
      [`${name}-run1`, name, expect.any(String), 'FAILURE', urn],
    ]);

    // Redeployed under the same name: the same source, replaced.
    expect((await client.cli(['ingest', 'deploy', '--name', name, '-c', recipe], env)).code).toBe(0);
    expect((await graphql(sourceQuery)).data.ingestionSource.schedule).toBeNull();

    // A reader may not see sources; an admin deletes one.
    const reader = (await mintToken({ scopes: ['read', 'write'] })).token;
    const asWriter = await svc.call('POST', '/api/graphql', { query: sourceQuery }, { authorization: `Bearer ${reader}` });
    expect(asWriter.body.errors?.[0]?.extensions).toEqual({ code: 403, type: 'UNAUTHORIZED' });
    expect((await graphql(`mutation { deleteIngestionSource(urn: "${urn}") }`)).data).toEqual({ deleteIngestionSource: urn });
    expect((await graphql(sourceQuery)).data.ingestionSource).toBeNull();
  });

  it("reports operations and reads them back through the client's Operation API, and Airflow's operation circuit breaker reads them", async () => {
    const id = uniqueId('ops').replace(/[^a-zA-Z0-9_]/g, '_');
    const dataset = `urn:li:dataset:(urn:li:dataPlatform:hive,${id},PROD)`;
    await write(dataset, 'datasetProperties', { name: id, customProperties: {} });
    const run = await runProcess(join(client.venv, 'bin', 'python'), [join(__dirname, '..', 'python', 'operations_check.py'), svc.url, token, dataset], client.env(), { cwd: client.home });
    expect(run.stderr).not.toMatch(/Traceback/);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toEqual({
      reported: [true, true],
      all: [
        { operationType: 'UPDATE', sourceType: 'DATA_PLATFORM', numAffectedRows: 0, partition: null, customProperties: null },
        { operationType: 'INSERT', sourceType: 'DATA_PROCESS', numAffectedRows: 120, partition: '2026-11-30', customProperties: null },
      ],
      actors: ['urn:li:corpuser:test-bot'],
      inserts: ['INSERT'],
      partition: ['INSERT'],
      platform: ['UPDATE'],
      future: [],
      breaker_active: false,
      breaker_active_for_a_drop: true,
    });

    // Custom operations with properties, at a given time; limited to the newest.
    const report = (input: string) => graphql(`mutation { reportOperation(input: ${input}) }`);
    expect((await report(`{urn: "${dataset}", operationType: CUSTOM, customOperationType: "VACUUM", sourceType: DATA_PROCESS, timestampMillis: 4102444800000, customProperties: [{key: "job", value: "nightly"}]}`)).data).toEqual({ reportOperation: true });
    const newest = await graphql(`{ dataset(urn: "${dataset}") { operations(limit: 1) { operationType customOperationType timestampMillis lastUpdatedTimestamp customProperties { key value } } } }`);
    expect(newest.data.dataset.operations).toEqual([{ operationType: 'CUSTOM', customOperationType: 'VACUUM', timestampMillis: 4102444800000, lastUpdatedTimestamp: 4102444800000, customProperties: [{ key: 'job', value: 'nightly' }] }]);

    // Refused, writing nothing: a dataset that is not stored, a custom operation without its name.
    const missing = `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_missing,PROD)`;
    expect((await report(`{urn: "${missing}", operationType: INSERT, sourceType: DATA_PROCESS}`)).errors?.[0]?.message).toMatch(/does not exist/);
    expect((await report(`{urn: "${dataset}", operationType: CUSTOM, sourceType: DATA_PROCESS}`)).errors?.[0]?.message).toMatch(/customOperationType is required/);
    const after = await graphql(`{ dataset(urn: "${dataset}") { operations { operationType } } missing: dataset(urn: "${missing}") { urn } }`);
    expect(after.data).toEqual({ dataset: { operations: [{ operationType: 'CUSTOM' }, { operationType: 'UPDATE' }, { operationType: 'INSERT' }] }, missing: { urn: missing } });
  });

  it("keeps custom assertions and their results as the graph client writes them, and Airflow's assertion circuit breaker reads them", async () => {
    const id = uniqueId('asserted').replace(/[^a-zA-Z0-9_]/g, '_');
    const dataset = `urn:li:dataset:(urn:li:dataPlatform:hive,${id},PROD)`;
    await write(dataset, 'datasetProperties', { name: id, customProperties: {} });
    const run = await runProcess(join(client.venv, 'bin', 'python'), [join(__dirname, '..', 'python', 'assertions_check.py'), svc.url, token, dataset], client.env(), { cwd: client.home });
    expect(run.stderr).not.toMatch(/Traceback/);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toEqual({
      same_urn: true,
      // The second upsert replaced the first: no field or logic any more, another platform.
      info: { type: 'CUSTOM', description: 'rows > 10', externalUrl: 'https://ci.example.com/checks/1', customType: 'Row count', field: null, logic: null, source: 'EXTERNAL' },
      platform: 'urn:li:dataPlatform:dbt',
      reported: true,
      assertions: [{ total: 3, succeeded: 1, failed: 1, results: [['SUCCESS', ['42'], true], ['ERROR', [], true], ['FAILURE', ['0'], true]] }],
      breaker_active: false,
      breaker_active_after_a_failure: true,
    });

    // A field path becomes the field's schemaField urn; the assertion is an entity GraphQL answers by urn.
    const upsert = await graphql(`mutation { upsertCustomAssertion(input: {entityUrn: "${dataset}", type: "Nulls", description: "no nulls", fieldPath: "email", platform: {name: "dbt"}, operator: NOT_NULL}) { urn } }`);
    const assertion = upsert.data.upsertCustomAssertion.urn;
    const read = await graphql(`{ assertion(urn: "${assertion}") { type platform { urn } info { type customAssertion { type entityUrn field { urn path } } } runEvents { total } } }`);
    expect(read.data.assertion).toEqual({
      type: 'ASSERTION',
      platform: { urn: 'urn:li:dataPlatform:dbt' },
      info: { type: 'CUSTOM', customAssertion: { type: 'Nulls', entityUrn: dataset, field: { urn: `urn:li:schemaField:(${dataset},email)`, path: 'email' } } },
      runEvents: { total: 0 },
    });
    // Refused, writing nothing: an entity that is not stored, a platform not named, a result for no assertion.
    const missing = `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_missing,PROD)`;
    for (const [mutation, error] of [
      [`upsertCustomAssertion(input: {entityUrn: "${missing}", type: "t", description: "d", platform: {name: "dbt"}}) { urn }`, /does not exist/],
      [`upsertCustomAssertion(input: {entityUrn: "${dataset}", type: "t", description: "d", platform: {}}) { urn }`, /Platform Name or Platform Urn must be specified/],
      [`reportAssertionResult(urn: "urn:li:assertion:${id}_none", result: {type: SUCCESS})`, /does not exist or is not associated/],
    ] as const) {
      expect((await graphql(`mutation { ${mutation} }`)).errors?.[0]?.message).toMatch(error);
    }
    expect((await graphql(`{ dataset(urn: "${dataset}") { assertions { total } } }`)).data.dataset.assertions.total).toBe(2);
  });

  it('creates a personal token that works, is listed and is revoked; a token for another actor only with admin scope', async () => {
    const writer = (await mintToken({ actor: 'urn:li:corpuser:writer', scopes: ['write'] })).token;
    const asWriter = async (query: string) => (await svc.call('POST', '/api/graphql', { query }, { authorization: `Bearer ${writer}` })).body;
    const name = uniqueId('pat');
    const create = (actor: string, extra = '') =>
      `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${actor}", duration: ONE_DAY, name: "${name}"${extra}}) { accessToken metadata { id urn actorUrn ownerUrn name description createdAt expiresAt } } }`;
    const created = (await asWriter(create('urn:li:corpuser:writer', ', description: "for the CI"'))).data.createAccessToken;
    expect(created.metadata).toEqual({ id: expect.any(String), urn: `urn:li:dataHubAccessToken:${created.metadata.id}`, actorUrn: 'urn:li:corpuser:writer', ownerUrn: 'urn:li:corpuser:writer', name, description: 'for the CI', createdAt: expect.any(Number), expiresAt: created.metadata.createdAt + 86_400_000 });
    // The new token is the writer's: its actor and scopes.
    const me = '{ me { corpUser { urn } platformPrivileges { manageTags manageTokens } } }';
    const asNew = await svc.call('POST', '/api/graphql', { query: me }, { authorization: `Bearer ${created.accessToken}` });
    expect(asNew.body.data.me).toEqual({ corpUser: { urn: 'urn:li:corpuser:writer' }, platformPrivileges: { manageTags: true, manageTokens: false } });

    // Only an admin makes tokens for others, which never carry admin scope.
    expect((await asWriter(create('urn:li:corpuser:someone'))).errors?.[0]?.extensions).toEqual({ code: 403, type: 'UNAUTHORIZED' });
    const forOther = (await graphql(create('urn:li:corpuser:someone'))).data.createAccessToken;
    const asOther = await svc.call('POST', '/api/graphql', { query: me }, { authorization: `Bearer ${forOther.accessToken}` });
    expect(asOther.body.data.me).toEqual({ corpUser: { urn: 'urn:li:corpuser:someone' }, platformPrivileges: { manageTags: true, manageTokens: false } });

    // Listed, then revoked: refused from then on.
    await svc.indexer.waitUntilIndexed();
    const listed = await graphql(`{ listAccessTokens(input: {start: 0, count: 10, filters: [{field: "name", values: ["${name}"]}]}) { total tokens { id actorUrn } } }`);
    expect(listed.data.listAccessTokens.tokens).toEqual(expect.arrayContaining([{ id: created.metadata.id, actorUrn: 'urn:li:corpuser:writer' }, { id: forOther.metadata.id, actorUrn: 'urn:li:corpuser:someone' }]));
    expect((await graphql(`mutation { revokeAccessToken(tokenId: "${created.metadata.id}") }`)).data).toEqual({ revokeAccessToken: true });
    expect((await svc.call('POST', '/api/graphql', { query: me }, { authorization: `Bearer ${created.accessToken}` })).status).toBe(401);
  });

  it('creates domains (a child under its parent), sets, lists and unsets them, refusing what names nothing stored', async () => {
    const id = uniqueId('dom').replace(/[^a-zA-Z0-9_]/g, '_');
    const [a, b] = ['a', 'b'].map((n) => `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_${n},PROD)`);
    for (const urn of [a, b]) await write(urn, 'datasetProperties', { name: urn, customProperties: {} });
    const created = await graphql(`mutation { parent: createDomain(input: {id: "${id}", name: "Finance", description: "money"}) }`);
    const parent = created.data.parent;
    expect(parent).toBe(`urn:li:domain:${id}`);
    const child = (await graphql(`mutation { createDomain(input: {name: "Billing", parentDomain: "${parent}"}) }`)).data.createDomain;
    expect(child).toMatch(/^urn:li:domain:[0-9a-f-]{36}$/);
    expect((await graphql(`mutation { createDomain(input: {id: "${id}", name: "again"}) }`)).errors?.[0]?.message).toMatch(/already exists/);
    expect((await graphql(`mutation { createDomain(input: {name: "orphan", parentDomain: "urn:li:domain:${id}_none"}) }`)).errors?.[0]?.message).toMatch(/does not exist/);

    expect((await graphql(`mutation { setDomain(entityUrn: "${a}", domainUrn: "${child}") }`)).data).toEqual({ setDomain: true });
    // A batch naming an entity that is not stored changes nothing.
    const refused = await graphql(`mutation { batchSetDomain(input: {domainUrn: "${parent}", resources: [{resourceUrn: "${b}"}, {resourceUrn: "urn:li:dataset:(urn:li:dataPlatform:hive,${id}_none,PROD)"}]}) }`);
    expect(refused.errors?.[0]?.message).toMatch(/does not exist/);
    const domainsOf = async () => (await graphql(`{ a: dataset(urn: "${a}") { domain { domain { urn properties { name } } } } b: dataset(urn: "${b}") { domain { domain { urn } } } }`)).data;
    expect(await domainsOf()).toEqual({ a: { domain: { domain: { urn: child, properties: { name: 'Billing' } } } }, b: { domain: null } });
    expect((await graphql(`mutation { batchSetDomain(input: {domainUrn: "${parent}", resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}]}) }`)).data).toEqual({ batchSetDomain: true });
    expect(await domainsOf()).toEqual({ a: { domain: { domain: { urn: parent, properties: { name: 'Finance' } } } }, b: { domain: { domain: { urn: parent } } } });
    expect((await graphql(`mutation { unsetDomain(entityUrn: "${b}") }`)).data).toEqual({ unsetDomain: true });
    expect((await domainsOf()).b).toEqual({ domain: null });

    // The creator owns what it created; the child is listed under its parent.
    const owners = await svc.call('GET', `/aspects/${encodeURIComponent(child)}?aspect=ownership&version=0`);
    expect(owners.body.aspect['com.linkedin.common.Ownership'].owners.map((o: { owner: string }) => o.owner)).toEqual(['urn:li:corpuser:test-bot']);
    await svc.indexer.waitUntilIndexed();
    const listed = await graphql(`{ listDomains(input: {start: 0, count: 10, parentDomain: "${parent}"}) { total domains { urn properties { name description } } } }`);
    expect(listed.data.listDomains).toEqual({ total: 1, domains: [{ urn: child, properties: { name: 'Billing', description: null } }] });
  });
});
