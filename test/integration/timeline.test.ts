import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, type DatahubClient } from '../support/datahub-client';
import { proposal } from '../support/samples';
import { enc, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * The timeline API (`GET /openapi/v2/timeline/v1/{urn}`, `datahub timeline`): change transactions computed from the kept
 * aspect versions, event by event as DataHub's change-event generators define them (metadata-io .../timeline/
 * eventgenerator), with DataHub's transaction grouping and semantic versions.
 */
describe('timeline', () => {
  let svc: TestService;
  let client: DatahubClient;

  beforeAll(async () => {
    svc = await startTestService();
    client = await datahubClient(svc.url);
  }, CLIENT_SETUP_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:kafka,${name},PROD)`;
  const field = (urn: string, path: string) => `urn:li:schemaField:(${urn},${path})`;
  const pause = () => new Promise((r) => setTimeout(r, 5));

  async function put(urn: string, aspect: string, value: unknown) {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value));
    expect(res.status).toBe(200);
    await pause();
  }

  async function timeline(urn: string, categories: string, extra = '') {
    const res = await svc.call('GET', `/openapi/v2/timeline/v1/${enc(urn)}?categories=${categories}${extra}`);
    expect(res.status).toBe(200);
    return res.body as Transaction[];
  }

  interface Event {
    entityUrn: string;
    category: string;
    operation: string;
    modifier?: string;
    parameters?: Record<string, unknown>;
    semVerChange: string;
    description?: string;
  }
  interface Transaction {
    timestamp: number;
    actor: string;
    semVer: string;
    semVerChange: string;
    versionStamp: string;
    changeEvents: Event[];
    rawDiff?: unknown[];
  }

  /** An event as `category operation target semVerChange` (target: modifier, else the entity), sorted per transaction. */
  const summary = (t: Transaction) => t.changeEvents.map((e) => `${e.category} ${e.operation} ${e.modifier ?? e.entityUrn} ${e.semVerChange}`).sort();

  describe("DataHub's smoke test: a dataset re-ingested three times by `datahub ingest` (file source)", () => {
    const urn = dataset(`timeline_${uniqueId()}`);
    const stamp = { time: 1581407189000, actor: 'urn:li:corpuser:jdoe', impersonator: null };
    const schemaField = (path: string, nativeDataType: string, description: string, tags: string[] = []) => ({
      fieldPath: path,
      jsonPath: null,
      nullable: false,
      description: { string: description },
      type: { type: { 'com.linkedin.pegasus2avro.schema.BooleanType': {} } },
      nativeDataType,
      ...(tags.length > 0 ? { globalTags: { tags: tags.map((tag) => ({ tag })) } } : {}),
      recursive: false,
    });
    const foo2 = '[version=2.0].[type=boolean].field_foo_2';
    const foo3 = '[version=2.0].[type=boolean].field_foo_3';
    const bar = '[version=2.0].[type=boolean].field_bar';
    const id = '[version=2.0].[key=True].[type=int].id';
    const snapshot = (v: { description: string | null; tags?: string[]; owners: string[]; docs: [string, string][]; fields: unknown[] }) => [
      {
        auditHeader: null,
        proposedSnapshot: {
          'com.linkedin.pegasus2avro.metadata.snapshot.DatasetSnapshot': {
            urn,
            aspects: [
              { 'com.linkedin.pegasus2avro.dataset.DatasetProperties': { description: v.description, uri: null, tags: [], customProperties: { prop1: 'fakeprop', prop2: 'yoshi' } } },
              ...(v.tags ? [{ 'com.linkedin.pegasus2avro.common.GlobalTags': { tags: v.tags.map((tag) => ({ tag })) } }] : []),
              { 'com.linkedin.pegasus2avro.common.Ownership': { owners: v.owners.map((owner) => ({ owner, type: 'DATAOWNER', source: null })), lastModified: stamp } },
              { 'com.linkedin.pegasus2avro.common.InstitutionalMemory': { elements: v.docs.map(([url, description]) => ({ url, description, createStamp: stamp })) } },
              {
                'com.linkedin.pegasus2avro.schema.SchemaMetadata': {
                  schemaName: 'SampleKafkaSchema',
                  platform: 'urn:li:dataPlatform:kafka',
                  version: 0,
                  created: stamp,
                  lastModified: stamp,
                  deleted: null,
                  dataset: null,
                  cluster: null,
                  hash: '',
                  platformSchema: { 'com.linkedin.pegasus2avro.schema.KafkaSchema': { documentSchema: '{"type":"record","name":"SampleKafkaSchema"}' } },
                  fields: v.fields,
                  primaryKeys: null,
                  foreignKeysSpecs: null,
                },
              },
            ],
          },
        },
        proposedDelta: null,
      },
    ];
    const versions = [
      snapshot({
        description: null,
        owners: ['urn:li:corpuser:jdoe', 'urn:li:corpuser:datahub'],
        docs: [['https://www.linkedin.com', 'Sample doc']],
        fields: [
          schemaField(foo2, 'varchar(100)', 'Foo field description', ['urn:li:tag:NeedsDocumentation']),
          schemaField(bar, 'boolean', 'Bar field description'),
          schemaField(id, 'boolean', 'Id specifying which partition the message should go to'),
        ],
      }),
      snapshot({
        description: 'A description',
        tags: ['urn:li:tag:Legacy'],
        owners: ['urn:li:corpuser:jdoe'],
        docs: [['https://www.linkedin.com', 'Sample doc'], ['https://www.google.com', 'Google']],
        fields: [
          schemaField(foo2, 'varchar(100)', 'Foo field description', ['urn:li:tag:NeedsDocumentation']),
          schemaField(foo3, 'varchar(100)', 'Foo field description', ['urn:li:tag:NeedsDocumentation']),
          schemaField(bar, 'boolean', 'Bar field description'),
        ],
      }),
      snapshot({
        description: 'A description 2',
        tags: ['urn:li:tag:Legacy', 'urn:li:tag:NeedsDocumentation'],
        owners: ['urn:li:corpuser:jdoe', 'urn:li:corpuser:datahub'],
        docs: [['https://www.google.com', 'Google']],
        fields: [
          schemaField(foo2, 'varchar(100)', 'Foo field description', ['urn:li:tag:NeedsDocumentation']),
          schemaField(foo3, 'varchar(100)', 'Foo field description', ['urn:li:tag:NeedsDocumentation']),
        ],
      }),
    ];

    it("answers what DataHub's test asserts, through the official client's timeline_cli.get_timeline", async () => {
      for (const [i, mces] of versions.entries()) {
        const file = join(client.home, `timeline_v${i + 1}.json`);
        await writeFile(file, JSON.stringify(mces));
        const recipe = join(client.home, `timeline_v${i + 1}.yml`);
        await writeFile(recipe, `source:\n  type: file\n  config:\n    filename: ${file}\nsink:\n  type: datahub-rest\n  config:\n    server: ${svc.url}\n`);
        const run = await client.cli(['ingest', '-c', recipe]);
        expect({ code: run.code, stderr: run.code === 0 ? '' : run.stderr.slice(-3000) }).toEqual({ code: 0, stderr: '' });
      }
      // DataHub's smoke test (smoke-test/tests/timeline/timeline_test.py test_all), through the client's own function.
      const script = [
        'import json, sys',
        'from datahub.cli import timeline_cli',
        'from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig',
        'import os',
        'graph = DataHubGraph(DatahubClientConfig(server=os.environ["DATAHUB_GMS_URL"]))',
        'res = timeline_cli.get_timeline(sys.argv[1], ["TAG", "DOCUMENTATION", "TECHNICAL_SCHEMA", "GLOSSARY_TERM", "OWNER"], None, None, False, graph=graph)',
        'print("RESULT " + json.dumps(res))',
      ].join('\n');
      const out = await client.python(script, [urn]);
      expect(out.code).toBe(0);
      const res = JSON.parse(out.stdout.split('\n').find((l) => l.startsWith('RESULT '))!.slice(7)) as Transaction[];
      expect(res).toHaveLength(3);
      expect(res.map((t) => t.semVerChange)).toEqual(['MINOR', 'MAJOR', 'MAJOR']);
      expect(res.map((t) => t.changeEvents.length)).toEqual([10, 9, 6]);
      expect(res[2].semVer).toBe('2.0.0-computed');
      expect(res.map((t) => t.semVer)).toEqual(['0.0.0-computed', '1.0.0-computed', '2.0.0-computed']);

      // Event by event, as DataHub's generators produce them for these changes.
      const f = (p: string) => field(urn, p);
      expect(summary(res[0])).toEqual(
        [
          'OWNERSHIP ADD urn:li:corpuser:jdoe MINOR',
          'OWNERSHIP ADD urn:li:corpuser:datahub MINOR',
          'DOCUMENTATION ADD https://www.linkedin.com MINOR',
          `TAG ADD urn:li:tag:NeedsDocumentation MINOR`,
          `DOCUMENTATION ADD ${f(foo2)} MINOR`,
          `DOCUMENTATION ADD ${f(bar)} MINOR`,
          `DOCUMENTATION ADD ${f(id)} MINOR`,
          `TECHNICAL_SCHEMA ADD ${f(foo2)} MINOR`,
          `TECHNICAL_SCHEMA ADD ${f(bar)} MINOR`,
          `TECHNICAL_SCHEMA ADD ${f(id)} MINOR`,
        ].sort(),
      );
      expect(summary(res[1])).toEqual(
        [
          `DOCUMENTATION ADD ${urn} MINOR`,
          'TAG ADD urn:li:tag:Legacy MINOR',
          'OWNERSHIP REMOVE urn:li:corpuser:datahub MINOR',
          'DOCUMENTATION ADD https://www.google.com MINOR',
          `TECHNICAL_SCHEMA REMOVE ${f(id)} MAJOR`,
          `DOCUMENTATION REMOVE ${f(id)} MINOR`,
          `TECHNICAL_SCHEMA ADD ${f(foo3)} MINOR`,
          `DOCUMENTATION ADD ${f(foo3)} MINOR`,
          'TAG ADD urn:li:tag:NeedsDocumentation MINOR',
        ].sort(),
      );
      expect(summary(res[2])).toEqual(
        [
          `DOCUMENTATION MODIFY ${urn} MINOR`,
          'TAG ADD urn:li:tag:NeedsDocumentation MINOR',
          'OWNERSHIP ADD urn:li:corpuser:datahub MINOR',
          'DOCUMENTATION REMOVE https://www.linkedin.com MINOR',
          `TECHNICAL_SCHEMA REMOVE ${f(bar)} MAJOR`,
          `DOCUMENTATION REMOVE ${f(bar)} MINOR`,
        ].sort(),
      );

      // Descriptions, entity urns and parameters as DataHub words and fills them.
      const byDescription = new Map(res.flatMap((t) => t.changeEvents).map((e) => [e.description, e]));
      expect(byDescription.get(`A backwards incompatible change due to removal of field: 'id'.`)).toEqual({
        entityUrn: urn,
        category: 'TECHNICAL_SCHEMA',
        operation: 'REMOVE',
        modifier: f(id),
        parameters: { fieldPath: id, fieldUrn: f(id), nullable: false, modificationCategory: 'OTHER' },
        semVerChange: 'MAJOR',
        description: `A backwards incompatible change due to removal of field: 'id'.`,
      });
      expect(byDescription.get(`A forwards & backwards compatible change due to the newly added field 'field_foo_3'.`)?.modifier).toBe(f(foo3));
      expect(byDescription.get(`Documentation of '${urn}' has been changed from 'A description' to 'A description 2'.`)).toMatchObject({ entityUrn: urn, operation: 'MODIFY', parameters: { description: 'A description 2' } });
      expect(byDescription.get(`Tag 'Legacy' added to entity '${urn}'.`)?.parameters).toEqual({ tagUrn: 'urn:li:tag:Legacy', context: '{}', sourceDetails: '{}' });
      expect(byDescription.get(`Tag 'NeedsDocumentation' added to entity '${f(foo3)}'.`)).toMatchObject({
        entityUrn: f(foo3),
        parameters: { fieldPath: foo3, parentUrn: urn, tagUrn: 'urn:li:tag:NeedsDocumentation' },
      });
      expect(byDescription.get(`'datahub' removed as a \`DATAOWNER\` of '${urn}'.`)?.parameters).toEqual({ ownerUrn: 'urn:li:corpuser:datahub', ownerType: 'DATAOWNER' });
      expect(byDescription.get(`Institutional Memory 'https://www.google.com' with documentation of '${urn}' has been added: 'Google'`)?.operation).toBe('ADD');
      expect(byDescription.get(`The description 'Id specifying which partition the message should go to' for the field '${id}' has been removed.`)).toMatchObject({
        entityUrn: f(id),
        parameters: { description: 'Id specifying which partition the message should go to', fieldPath: id, parentUrn: urn },
      });
      // Each transaction's stamp names every aspect's version at that moment; the first moment's are all latest-to-be.
      expect(res[2].versionStamp).toMatch(/(^|;)datasetProperties:0(;|$)/);
      expect(res[0].versionStamp).toMatch(/(^|;)schemaMetadata:1(;|$)/);
      expect(res[1].versionStamp).toMatch(/(^|;)schemaMetadata:2(;|$)/);
      expect(res.every((t) => t.actor.startsWith('urn:li:corpuser:'))).toBe(true);
    }, 180_000);

    it('`datahub timeline` prints each transaction and its events', async () => {
      const run = await client.cli(['timeline', '--urn', urn, '--category', 'TAG', '--category', 'OWNER', '--category', 'TECHNICAL_SCHEMA']);
      expect(run.code).toBe(0);
      const lines = run.stdout.split('\n');
      expect(lines.filter((l) => / - \d+\.\d+\.\d+-computed$/.test(l))).toHaveLength(3);
      expect(run.stdout).toContain('2.0.0-computed');
      expect(run.stdout).toContain(`Tag 'Legacy' added to entity '${urn}'.`);
      expect(run.stdout).toContain(`'datahub' removed as a \`DATAOWNER\` of '${urn}'.`);
      expect(run.stdout).toContain("A backwards incompatible change due to removal of field: 'field_bar'.");
      // --raw asks for each transaction's JSON Patch (the client sends raw=True); -v prints the answer as JSON.
      const raw = await client.cli(['timeline', '--urn', urn, '--category', 'TAG', '--raw', '-v']);
      expect(raw.code).toBe(0);
      const body = JSON.parse(raw.stdout.slice(raw.stdout.indexOf('['))) as Transaction[];
      expect(body[1].rawDiff).toEqual(expect.arrayContaining([{ op: 'add', path: '/tags', value: [{ tag: 'urn:li:tag:Legacy' }] }]));
    }, 120_000);
  });

  describe('per category, an aspect written three times (as in DataHub smoke test of each category)', () => {
    it('TECHNICAL_SCHEMA: a retyped or removed field or primary key change is MAJOR, an added or renamed field MINOR', async () => {
      const urn = dataset(`schema_${uniqueId()}`);
      const f = (fieldPath: string, nativeDataType: string, description?: string) => ({ fieldPath, nativeDataType, type: { type: { 'com.linkedin.schema.StringType': {} } }, ...(description ? { description } : {}) });
      const schema = (fields: unknown[], primaryKeys?: string[]) => ({
        schemaName: 's',
        platform: 'urn:li:dataPlatform:kafka',
        version: 0,
        hash: '',
        platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
        fields,
        ...(primaryKeys ? { primaryKeys } : {}),
      });
      await put(urn, 'schemaMetadata', schema([f('a', 'varchar'), f('b', 'int', 'the b'), f('c', 'string', 'c doc')]));
      await put(urn, 'schemaMetadata', schema([f('a', 'text'), f('b', 'int', 'the b, changed'), f('c2', 'string', 'c doc'), f('d', 'string')]));
      await put(urn, 'schemaMetadata', schema([f('a', 'text'), f('c2', 'string', 'c doc'), f('d', 'string')], ['a']));
      const res = await timeline(urn, 'TECHNICAL_SCHEMA');
      expect(res.map((t) => [t.semVerChange, t.semVer])).toEqual([
        ['MINOR', '0.0.0-computed'],
        ['MAJOR', '1.0.0-computed'],
        ['MAJOR', '2.0.0-computed'],
      ]);
      // The same at DataHub's v1 path, as its OpenAPI smoke tests read it.
      const v1 = await svc.call('GET', `/openapi/v1/timeline/${enc(urn)}?startTime=-1&endTime=0&raw=false&categories=TECHNICAL_SCHEMA`);
      expect([v1.status, v1.body]).toEqual([200, res]);
      const fu = (p: string) => field(urn, p);
      expect(summary(res[0])).toEqual([`TECHNICAL_SCHEMA ADD ${fu('a')} MINOR`, `TECHNICAL_SCHEMA ADD ${fu('b')} MINOR`, `TECHNICAL_SCHEMA ADD ${fu('c')} MINOR`]);
      expect(res[1].changeEvents.map((e) => [e.operation, e.modifier, e.semVerChange, e.description, e.parameters?.modificationCategory])).toEqual([
        ['MODIFY', fu('a'), 'MAJOR', "A backwards incompatible change due to native datatype of the field 'a' changed from 'varchar' to 'text'.", 'TYPE_CHANGE'],
        ['MODIFY', fu('c'), 'MINOR', "A forwards & backwards compatible change due to renaming of the field 'c to c2'.", 'RENAME'],
        ['ADD', fu('d'), 'MINOR', "A forwards & backwards compatible change due to the newly added field 'd'.", 'OTHER'],
      ]);
      expect(res[2].changeEvents.map((e) => [e.operation, e.modifier, e.semVerChange, e.description])).toEqual([
        ['REMOVE', fu('b'), 'MAJOR', "A backwards incompatible change due to removal of field: 'b'."],
        ['MODIFY', fu('a'), 'MAJOR', "A backwards incompatible change due to addition of the primary key field 'a'"],
      ]);
      // The description change of b is DOCUMENTATION (PATCH), not a schema change.
      const docs = await timeline(urn, 'DOCUMENTATION');
      expect(docs[1].changeEvents.find((e) => e.entityUrn === fu('b'))).toEqual({
        entityUrn: fu('b'),
        category: 'DOCUMENTATION',
        operation: 'MODIFY',
        parameters: { description: 'the b, changed', previousDescription: 'the b', fieldPath: 'b', parentUrn: urn },
        semVerChange: 'PATCH',
        description: "The description for the field 'b' has been changed from 'the b' to 'the b, changed'.",
      });
    });

    it('TAG and GLOSSARY_TERM: each association added or removed is MINOR, in urn order', async () => {
      const urn = dataset(`tags_${uniqueId()}`);
      const tags = (...t: string[]) => ({ tags: t.map((x) => ({ tag: `urn:li:tag:${x}` })) });
      const terms = (...t: string[]) => ({ terms: t.map((x) => ({ urn: `urn:li:glossaryTerm:${x}` })), auditStamp: { time: 1, actor: 'urn:li:corpuser:x' } });
      await put(urn, 'globalTags', tags('A'));
      await put(urn, 'glossaryTerms', terms('t1'));
      await put(urn, 'globalTags', tags('A', 'B'));
      await put(urn, 'glossaryTerms', terms('t1', 't2'));
      await put(urn, 'globalTags', tags('C'));
      await put(urn, 'glossaryTerms', terms('t3'));
      const t = await timeline(urn, 'TAG');
      expect(t.map((x) => x.semVer)).toEqual(['0.0.0-computed', '0.1.0-computed', '0.2.0-computed']);
      expect(t.map((x) => x.changeEvents.map((e) => `${e.operation} ${e.modifier}`))).toEqual([
        ['ADD urn:li:tag:A'],
        ['ADD urn:li:tag:B'],
        ['REMOVE urn:li:tag:A', 'REMOVE urn:li:tag:B', 'ADD urn:li:tag:C'],
      ]);
      const g = await timeline(urn, 'glossary_term');
      expect(g.map((x) => x.changeEvents.map((e) => `${e.operation} ${e.modifier} ${e.semVerChange}`))).toEqual([
        ['ADD urn:li:glossaryTerm:t1 MINOR'],
        ['ADD urn:li:glossaryTerm:t2 MINOR'],
        ['REMOVE urn:li:glossaryTerm:t1 MINOR', 'REMOVE urn:li:glossaryTerm:t2 MINOR', 'ADD urn:li:glossaryTerm:t3 MINOR'],
      ]);
      expect(g[0].changeEvents[0]).toEqual({
        entityUrn: urn,
        category: 'GLOSSARY_TERM',
        operation: 'ADD',
        modifier: 'urn:li:glossaryTerm:t1',
        parameters: { termUrn: 'urn:li:glossaryTerm:t1', context: '{}' },
        semVerChange: 'MINOR',
        description: `Term 't1' added to entity '${urn}'.`,
      });
      // Both categories at once: separate moments stay separate transactions, numbered in one sequence.
      const both = await timeline(urn, 'TAG,GLOSSARY_TERM');
      expect(both).toHaveLength(6);
      expect(both[5].semVer).toBe('0.5.0-computed');
    });

    it('OWNER (OWNERSHIP): owners added and removed are MINOR, a changed ownership type PATCH', async () => {
      const urn = dataset(`owners_${uniqueId()}`);
      const owners = (...o: [string, string][]) => ({ owners: o.map(([u, type]) => ({ owner: `urn:li:corpuser:${u}`, type })) });
      await put(urn, 'ownership', owners(['jdoe', 'DATAOWNER'], ['alice', 'TECHNICAL_OWNER']));
      await put(urn, 'ownership', owners(['jdoe', 'BUSINESS_OWNER'], ['alice', 'TECHNICAL_OWNER']));
      await put(urn, 'ownership', owners(['alice', 'TECHNICAL_OWNER']));
      const res = await timeline(urn, 'OWNER');
      expect(res.map((t) => [t.semVerChange, t.semVer, t.changeEvents.length])).toEqual([
        ['MINOR', '0.0.0-computed', 2],
        ['PATCH', '0.0.1-computed', 1],
        ['MINOR', '0.1.0-computed', 1],
      ]);
      expect(res[1].changeEvents[0]).toEqual({
        entityUrn: urn,
        category: 'OWNERSHIP',
        operation: 'MODIFY',
        modifier: 'BUSINESS_OWNER',
        parameters: { ownerUrn: 'urn:li:corpuser:jdoe', ownerType: 'BUSINESS_OWNER' },
        semVerChange: 'PATCH',
        description: `'jdoe''s ownership type changed from 'DATAOWNER' to 'BUSINESS_OWNER' for '${urn}'.`,
      });
      expect(res[2].changeEvents[0].description).toBe(`'jdoe' removed as a \`BUSINESS_OWNER\` of '${urn}'.`);
    });

    it('DOCUMENTATION: links, dataset and field descriptions; a changed link or field description is PATCH', async () => {
      const urn = dataset(`docs_${uniqueId()}`);
      const stamp = { time: 1, actor: 'urn:li:corpuser:x' };
      const memory = (...e: [string, string][]) => ({ elements: e.map(([url, description]) => ({ url, description, createStamp: stamp })) });
      await put(urn, 'institutionalMemory', memory(['https://x', 'X doc']));
      await put(urn, 'institutionalMemory', memory(['https://x', 'X doc, revised']));
      await put(urn, 'institutionalMemory', memory(['https://y', 'Y doc']));
      await put(urn, 'editableSchemaMetadata', { editableSchemaFieldInfo: [{ fieldPath: 'col', description: 'first' }] });
      await put(urn, 'editableSchemaMetadata', { editableSchemaFieldInfo: [{ fieldPath: 'col', description: 'second' }] });
      await put(urn, 'editableDatasetProperties', { description: 'edited' });
      const res = await timeline(urn, 'DOCUMENTATION');
      expect(res.map((t) => [t.semVerChange, t.semVer])).toEqual([
        ['MINOR', '0.0.0-computed'],
        ['PATCH', '0.0.1-computed'],
        ['MINOR', '0.1.0-computed'],
        ['MINOR', '0.2.0-computed'],
        ['PATCH', '0.2.1-computed'],
        ['MINOR', '0.3.0-computed'],
      ]);
      expect(res[1].changeEvents[0].description).toBe(`Documentation of Institutional Memory 'https://x' of  '${urn}' has been changed from 'X doc' to 'X doc, revised'.`);
      expect(res[2].changeEvents.map((e) => `${e.operation} ${e.modifier}`)).toEqual(['REMOVE https://x', 'ADD https://y']);
      expect(res[4].changeEvents[0]).toEqual({
        entityUrn: field(urn, 'col'),
        category: 'DOCUMENTATION',
        operation: 'MODIFY',
        modifier: 'col',
        semVerChange: 'PATCH',
        description: `Documentation for the field 'col' of '${field(urn, 'col')}' has been updated from 'first' to 'second'.`,
      });
      expect(res[5].changeEvents[0].description).toBe(`Documentation for '${urn}' has been added: 'edited'.`);
    });

    it('STRUCTURED_PROPERTY and APPLICATION: assignments and memberships added, changed or removed are MINOR', async () => {
      const urn = dataset(`props_${uniqueId()}`);
      const props = (...p: [string, unknown[]][]) => ({ properties: p.map(([id, values]) => ({ propertyUrn: `urn:li:structuredProperty:${id}`, values })) });
      // Values are checked against their properties' definitions.
      for (const [id, type] of [['retention', 'number'], ['tier', 'string']]) {
        await put(`urn:li:structuredProperty:${id}`, 'propertyDefinition', { qualifiedName: id, valueType: `urn:li:dataType:datahub.${type}`, cardinality: 'SINGLE', entityTypes: ['urn:li:entityType:datahub.dataset'] });
      }
      await put(urn, 'structuredProperties', props(['retention', [{ double: 30 }]], ['tier', [{ string: 'gold' }]]));
      await put(urn, 'structuredProperties', props(['retention', [{ double: 90 }]], ['tier', [{ string: 'gold' }]]));
      await put(urn, 'applications', { applications: ['urn:li:application:billing'] });
      const res = await timeline(urn, 'STRUCTURED_PROPERTY,APPLICATION');
      expect(res.map((t) => t.changeEvents.map((e) => `${e.operation} ${e.modifier} ${JSON.stringify(e.parameters ?? null)}`))).toEqual([
        ['ADD urn:li:structuredProperty:retention {"propertyUrn":"urn:li:structuredProperty:retention","propertyValues":"[30.0]"}', 'ADD urn:li:structuredProperty:tier {"propertyUrn":"urn:li:structuredProperty:tier","propertyValues":"[\\"gold\\"]"}'],
        ['MODIFY urn:li:structuredProperty:retention {"propertyUrn":"urn:li:structuredProperty:retention","propertyValues":"[90.0]"}'],
        ['ADD urn:li:application:billing null'],
      ]);
      expect(res[2].changeEvents[0].description).toBe(`Application 'billing' added to entity '${urn}'.`);
    });

    it('DOMAIN, DEPRECATION and LINEAGE (upstream datasets)', async () => {
      const urn = dataset(`misc_${uniqueId()}`);
      const up = (n: string) => dataset(`up_${n}`);
      await put(urn, 'domains', { domains: ['urn:li:domain:sales'] });
      await put(urn, 'domains', { domains: ['urn:li:domain:marketing'] });
      await put(urn, 'deprecation', { deprecated: true, note: 'old', actor: 'urn:li:corpuser:x' });
      await put(urn, 'upstreamLineage', { upstreams: [{ dataset: up('a'), type: 'TRANSFORMED' }] });
      await put(urn, 'upstreamLineage', { upstreams: [{ dataset: up('b'), type: 'COPY' }] });
      const res = await timeline(urn, 'DOMAIN,DEPRECATION,LINEAGE');
      expect(res.map((t) => t.changeEvents.map((e) => `${e.category} ${e.operation} ${e.modifier ?? JSON.stringify(e.parameters)}`))).toEqual([
        ['DOMAIN ADD urn:li:domain:sales'],
        ['DOMAIN REMOVE urn:li:domain:sales', 'DOMAIN ADD urn:li:domain:marketing'],
        ['DEPRECATION MODIFY {"status":"DEPRECATED"}'],
        [`LINEAGE ADD ${up('a')}`],
        [`LINEAGE REMOVE ${up('a')}`, `LINEAGE ADD ${up('b')}`],
      ]);
    });
  });

  it('a time window: versions written in it, each diffed with the one before (also before the window)', async () => {
    const urn = dataset(`window_${uniqueId()}`);
    const tags = (...t: string[]) => ({ tags: t.map((x) => ({ tag: `urn:li:tag:${x}` })) });
    await put(urn, 'globalTags', tags('A'));
    await new Promise((r) => setTimeout(r, 20));
    const from = Date.now();
    await put(urn, 'globalTags', tags('A', 'B'));
    await put(urn, 'globalTags', tags('B'));
    const to = Date.now();
    await new Promise((r) => setTimeout(r, 20));
    await put(urn, 'globalTags', tags('B', 'C'));
    const res = await timeline(urn, 'TAG', `&startTime=${from}&endTime=${to}`);
    expect(res.map((t) => t.changeEvents.map((e) => `${e.operation} ${e.modifier}`))).toEqual([['ADD urn:li:tag:B'], ['REMOVE urn:li:tag:A']]);
    expect(res.map((t) => t.semVer)).toEqual(['0.0.0-computed', '0.1.0-computed']);
    // Default: the 7 days before now.
    expect(await timeline(urn, 'TAG')).toHaveLength(4);
    expect(await timeline(urn, 'TAG', `&startTime=${to + 10_000_000}`)).toEqual([]);
  });

  it('answers GraphQL getTimeline over the whole kept history, every category the type has by default', async () => {
    const urn = dataset(`graphql_${uniqueId()}`);
    await put(urn, 'globalTags', { tags: [{ tag: 'urn:li:tag:A' }] });
    await put(urn, 'ownership', { owners: [{ owner: 'urn:li:corpuser:ada', type: 'DATAOWNER' }], lastModified: { time: 0, actor: 'urn:li:corpuser:x' } });
    await put(urn, 'globalTags', { tags: [{ tag: 'urn:li:tag:B' }] });
    const { token } = await mintToken();
    const query = async (categories: string) =>
      (
        await svc.call(
          'POST',
          '/api/graphql',
          { query: `{ getTimeline(input: {urn: "${urn}"${categories}}) { changeTransactions { lastSemanticVersion versionStamp timestampMillis actor changeType changes { urn category operation modifier parameters { key value } } } } }` },
          { authorization: `Bearer ${token}` },
        )
      ).body;
    const all = (await query('')).data.getTimeline.changeTransactions;
    expect(all.map((t: { changeType: string; changes: { category: string; operation: string; modifier: string }[] }) => [t.changeType, t.changes.map((c) => `${c.category} ${c.operation} ${c.modifier}`)])).toEqual([
      ['ADD', ['TAG ADD urn:li:tag:A']],
      ['ADD', ['OWNER ADD urn:li:corpuser:ada']],
      ['MODIFY', ['TAG REMOVE urn:li:tag:A', 'TAG ADD urn:li:tag:B']],
    ]);
    expect(all[0]).toMatchObject({ lastSemanticVersion: '0.0.0-computed', actor: 'urn:li:corpuser:__datahub_system', changes: [{ urn, parameters: expect.arrayContaining([{ key: 'tagUrn', value: 'urn:li:tag:A' }]) }] });
    const owners = (await query(', changeCategories: [OWNER]')).data.getTimeline.changeTransactions;
    expect(owners.map((t: { changes: { category: string }[] }) => t.changes.map((c) => c.category))).toEqual([['OWNER']]);
  });

  it('includeVersionSet merges the whole timelines of every version of the entity', async () => {
    const set = `urn:li:versionSet:(vs_${uniqueId()},dataset)`;
    const [v1, v2] = [dataset(`v1_${uniqueId()}`), dataset(`v2_${uniqueId()}`)];
    const tags = (t: string) => ({ tags: [{ tag: `urn:li:tag:${t}` }] });
    await put(v1, 'versionProperties', { versionSet: set, version: { versionTag: '1' }, sortId: 'a' });
    await put(v2, 'versionProperties', { versionSet: set, version: { versionTag: '2' }, sortId: 'b' });
    await put(v1, 'globalTags', tags('one'));
    await put(v2, 'globalTags', tags('two'));
    await put(v1, 'globalTags', tags('three'));
    const merged = await timeline(v1, 'TAG', '&includeVersionSet=true');
    expect(merged.map((t) => `${t.changeEvents[0].entityUrn === v1 ? 'v1' : 'v2'} ${t.changeEvents.map((e) => `${e.operation} ${e.modifier}`).join(', ')}`)).toEqual([
      'v1 ADD urn:li:tag:one',
      'v2 ADD urn:li:tag:two',
      'v1 REMOVE urn:li:tag:one, ADD urn:li:tag:three',
    ]);
    expect(await timeline(v1, 'TAG')).toHaveLength(2);
  });

  it('refuses what it cannot answer, naming it', async () => {
    const urn = dataset(`bad_${uniqueId()}`);
    await put(urn, 'globalTags', { tags: [] });
    const get = (query: string, target = urn) => svc.call('GET', `/openapi/v2/timeline/v1/${enc(target)}${query}`);
    const unknownCategory = await get('?categories=TAGZ');
    expect([unknownCategory.status, unknownCategory.body.message]).toEqual([400, expect.stringContaining("Unknown change category 'TAGZ'")]);
    expect((await get('')).status).toBe(400);
    const unknownParameter = await get('?categories=TAG&startVersionStamp=x');
    expect([unknownParameter.status, unknownParameter.body.message]).toEqual([400, expect.stringContaining("'startVersionStamp'")]);
    const notComputed = await get('?categories=DOCUMENTATION', 'urn:li:glossaryTerm:some_term');
    expect([notComputed.status, notComputed.body.message]).toEqual([400, expect.stringContaining('DOCUMENTATION timeline of glossaryTerm')]);
    const chart = await get('?categories=TAG', 'urn:li:chart:(looker,c1)');
    expect([chart.status, chart.body.message]).toEqual([400, expect.stringContaining("entity type 'chart'")]);
    // A category DataHub knows that reads nothing for datasets: an empty timeline, as DataHub answers.
    expect((await get('?categories=ASSET_MEMBERSHIP')).body).toEqual([]);
    expect((await get('?categories=TAG&startTime=abc')).status).toBe(400);
  });
});
