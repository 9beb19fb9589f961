import Ajv, { type ValidateFunction } from 'ajv';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Static checks of the schema registry data files (schema/entities.json and schema/aspects/*.json):
 * they parse, compile under Ajv strict mode, carry consistent annotations, and accept the sample
 * aspects of the interface document.
 */

type Json = Record<string, any>;

const SCHEMA_DIR = join(__dirname, '..', '..', 'schema');
const ASPECT_DIR = join(SCHEMA_DIR, 'aspects');
const ANNOTATIONS = ['x-aspect', 'x-relationship', 'x-searchable', 'x-key', 'x-urn'];

const ALLOWED_RELATIONSHIPS = [
  'OwnedBy',
  'DownstreamOf',
  'Consumes',
  'Contains',
  'TaggedWith',
  'TermedWith',
  'EditableSchemaFieldTaggedWith',
  'EditableSchemaFieldWithGlossaryTerm',
  'SchemaFieldTaggedWith',
  'SchemaFieldWithGlossaryTerm',
  'IsMemberOfGroup',
  'IsPartOf',
  'IsPassing',
  'IsFailing',
];
const SEARCH_FIELD_TYPES = ['TEXT', 'TEXT_PARTIAL', 'WORD_GRAM', 'KEYWORD', 'URN', 'URN_PARTIAL', 'BOOLEAN', 'COUNT', 'DATETIME', 'BROWSE_PATH', 'BROWSE_PATH_V2', 'MAP_ARRAY'];

const EXPECTED_ASPECTS = [
  'status', 'deprecation', 'ownership', 'institutionalMemory', 'schemaMetadata', 'editableSchemaMetadata', 'globalTags',
  'tagProperties', 'corpUserInfo', 'corpUserEditableInfo', 'corpGroupInfo', 'chartInfo', 'dashboardInfo', 'glossaryTermInfo',
  'browsePaths', 'upstreamLineage', 'dataPlatformInstance', 'datasetProperties', 'editableDatasetProperties', 'glossaryTerms',
  'subTypes', 'groupMembership', 'dataPlatformInfo', 'testInfo', 'testResults', 'datasetKey', 'chartKey', 'dashboardKey',
  'corpUserKey', 'corpGroupKey', 'tagKey', 'glossaryTermKey', 'dataPlatformKey', 'testKey', 'datasetUsageStatistics',
  'datasetProfile',
];

const readJson = (path: string): Json => JSON.parse(readFileSync(path, 'utf8'));
const aspectFiles = readdirSync(ASPECT_DIR).filter((f) => f.endsWith('.json')).sort();
const schemas: Record<string, Json> = Object.fromEntries(aspectFiles.map((f) => [f.replace(/\.json$/, ''), readJson(join(ASPECT_DIR, f))]));
const entityFile = readJson(join(SCHEMA_DIR, 'entities.json'));

function newAjv(): Ajv {
  const ajv = new Ajv({ strict: true, removeAdditional: true, allErrors: true });
  ajv.addVocabulary(ANNOTATIONS);
  return ajv;
}

/** Visits every sub-schema reachable through properties, items and additionalProperties, with its instance path. */
function walk(node: Json, path: string[], visit: (node: Json, path: string[]) => void): void {
  visit(node, path);
  for (const [k, child] of Object.entries<Json>(node.properties ?? {})) walk(child, [...path, k], visit);
  if (node.items && typeof node.items === 'object') walk(node.items, [...path, '*'], visit);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') walk(node.additionalProperties, [...path, '{}'], visit);
}

function annotated(kind: string): { aspect: string; path: string; value: Json }[] {
  const found: { aspect: string; path: string; value: Json }[] = [];
  for (const [aspect, schema] of Object.entries(schemas)) {
    walk(schema, [], (node, path) => {
      if (node[kind]) found.push({ aspect, path: path.join('.'), value: node[kind] });
    });
  }
  return found;
}

describe('schema files', () => {
  const ajv = newAjv();
  const validators: Record<string, ValidateFunction> = {};
  beforeAll(() => {
    for (const [name, schema] of Object.entries(schemas)) validators[name] = ajv.compile(schema);
  });

  /** Validates a copy; returns the cleaned copy and the validity. */
  function check(aspect: string, value: unknown): { ok: boolean; value: any; errors: unknown } {
    const copy = structuredClone(value);
    const ok = validators[aspect](copy) as boolean;
    return { ok, value: copy, errors: validators[aspect].errors };
  }
  function expectValid(aspect: string, value: unknown): any {
    const r = check(aspect, value);
    if (!r.ok) throw new Error(`${aspect} rejected a valid sample: ${JSON.stringify(r.errors, null, 2)}`);
    return r.value;
  }

  describe('files and metadata', () => {
    it('every JSON file parses', () => {
      expect(entityFile.entities.length).toBeGreaterThan(0);
      expect(aspectFiles.length).toBe(Object.keys(schemas).length);
    });

    it('has a schema for every aspect of the brief, within the whole DataHub model', () => {
      expect(Object.keys(schemas)).toEqual(expect.arrayContaining(EXPECTED_ASPECTS));
      expect(Object.keys(schemas).length).toBeGreaterThanOrEqual(270);
    });

    it('every aspect named in entities.json has a file, and every file is used', () => {
      const named = new Set<string>();
      for (const e of entityFile.entities) {
        named.add(e.keyAspect);
        for (const a of e.aspects) named.add(a);
      }
      for (const a of named) expect(schemas[a]).toBeDefined();
    });

    it("declares DataHub's 72 entity types with their snapshots, key aspect first and no duplicates", () => {
      expect(entityFile.urnNamespace).toBe('li');
      const byName = Object.fromEntries(entityFile.entities.map((e: Json) => [e.name, e]));
      expect(Object.keys(byName)).toEqual(expect.arrayContaining([
        'chart', 'corpGroup', 'corpuser', 'dashboard', 'dataPlatform', 'dataset', 'glossaryTerm', 'tag', 'test',
        'container', 'dataJob', 'dataFlow', 'glossaryNode', 'domain', 'dataProduct', 'schemaField', 'query', 'assertion',
        'incident', 'mlModel', 'structuredProperty', 'ownershipType', 'dataHubIngestionSource', 'dataHubExecutionRequest',
        'dataProcessInstance',
      ]));
      expect(Object.keys(byName).length).toBe(72);
      expect(byName.dataJob.snapshot).toBe('com.linkedin.metadata.snapshot.DataJobSnapshot');
      expect(byName.dataJob.graphqlType).toBe('DATA_JOB');
      expect(byName.corpuser.graphqlType).toBe('CORP_USER');
      const snapshots: Record<string, string> = {
        dataset: 'DatasetSnapshot', chart: 'ChartSnapshot', dashboard: 'DashboardSnapshot', tag: 'TagSnapshot',
        corpuser: 'CorpUserSnapshot', corpGroup: 'CorpGroupSnapshot', glossaryTerm: 'GlossaryTermSnapshot', dataPlatform: 'DataPlatformSnapshot',
      };
      for (const [entity, snap] of Object.entries(snapshots)) expect(byName[entity].snapshot).toBe(`com.linkedin.metadata.snapshot.${snap}`);
      expect(byName.test.snapshot).toBeUndefined();
      for (const e of entityFile.entities) {
        expect(e.aspects[0]).toBe(e.keyAspect);
        expect(new Set(e.aspects).size).toBe(e.aspects.length);
      }
      expect(byName.dataset.aspects).toEqual(expect.arrayContaining([
        'datasetKey', 'datasetProperties', 'editableDatasetProperties', 'schemaMetadata', 'editableSchemaMetadata', 'ownership',
        'institutionalMemory', 'globalTags', 'glossaryTerms', 'status', 'deprecation', 'browsePaths', 'upstreamLineage',
        'dataPlatformInstance', 'subTypes', 'testResults', 'datasetUsageStatistics', 'datasetProfile',
      ]));
    });

    it.each(Object.keys(schemas))('%s: $id, title and x-aspect are consistent', (name) => {
      const s = schemas[name];
      expect(s.$id).toBe(name);
      expect(s['x-aspect'].name).toBe(name);
      expect(s.type).toBe('object');
      expect(s.additionalProperties).toBe(false);
      expect(s['x-aspect'].recordName).toMatch(/^com\.linkedin\.[a-z.]+\.[A-Z][A-Za-z0-9]+$/);
      expect(s.title).toBe(s['x-aspect'].recordName.split('.').pop());
      expect(typeof s['x-aspect'].timeseries).toBe('boolean');
    });

    it('uses the DataHub record names', () => {
      const rn = (a: string) => schemas[a]['x-aspect'].recordName;
      expect(rn('ownership')).toBe('com.linkedin.common.Ownership');
      expect(rn('schemaMetadata')).toBe('com.linkedin.schema.SchemaMetadata');
      expect(rn('datasetProperties')).toBe('com.linkedin.dataset.DatasetProperties');
      expect(rn('datasetKey')).toBe('com.linkedin.metadata.key.DatasetKey');
      expect(rn('datasetUsageStatistics')).toBe('com.linkedin.dataset.DatasetUsageStatistics');
      expect(rn('testInfo')).toBe('com.linkedin.test.TestInfo');
      expect(rn('corpUserInfo')).toBe('com.linkedin.identity.CorpUserInfo');
      expect(rn('glossaryTermInfo')).toBe('com.linkedin.glossary.GlossaryTermInfo');
      expect(rn('dataPlatformInfo')).toBe('com.linkedin.dataplatform.DataPlatformInfo');
      const recordNames = Object.values(schemas).map((s) => s['x-aspect'].recordName);
      expect(new Set(recordNames).size).toBe(recordNames.length);
    });

    it('marks exactly the time-series aspects as time series', () => {
      const ts = Object.entries(schemas).filter(([, s]) => s['x-aspect'].timeseries).map(([n]) => n).sort();
      expect(ts).toEqual(expect.arrayContaining(['datasetProfile', 'datasetUsageStatistics', 'dataProcessInstanceRunEvent', 'assertionRunEvent']));
      expect(ts.length).toBe(11);
      for (const n of ts) expect(schemas[n].required).toContain('timestampMillis');
    });

    it('every record object is closed (additionalProperties false) and every required field is declared', () => {
      for (const [aspect, schema] of Object.entries(schemas)) {
        walk(schema, [], (node, path) => {
          if (node.type === 'object' && node.properties) {
            expect({ aspect, path: path.join('.'), additionalProperties: node.additionalProperties }).toEqual({
              aspect, path: path.join('.'), additionalProperties: false,
            });
          }
          for (const r of node.required ?? []) expect(node.properties?.[r]).toBeDefined();
        });
      }
    });
  });

  describe('compilation', () => {
    it.each(Object.keys(schemas))('%s compiles under Ajv strict mode', (name) => {
      const fresh = newAjv();
      expect(() => fresh.compile(schemas[name])).not.toThrow();
    });

    it('all schemas compile together in one Ajv instance (unique $id)', () => {
      expect(Object.keys(validators).length).toBe(Object.keys(schemas).length);
    });
  });

  describe('keys', () => {
    const expectedParts: Record<string, string[]> = {
      dataset: ['platform', 'name', 'origin'],
      chart: ['dashboardTool', 'chartId'],
      dashboard: ['dashboardTool', 'dashboardId'],
      tag: ['name'],
      corpuser: ['username'],
      corpGroup: ['name'],
      glossaryTerm: ['name'],
      dataPlatform: ['platformName'],
      test: ['id'],
      dataJob: ['flow', 'jobId'],
      dataFlow: ['orchestrator', 'flowId', 'cluster'],
      schemaField: ['parent', 'fieldPath'],
      dataProcessInstance: ['id'],
      container: ['guid'],
    };

    const keyCases: [string, string][] = entityFile.entities.map((e: Json): [string, string] => [e.name, e.keyAspect]);
    it.each(keyCases)('%s: key aspect %s carries x-key for the entity', (entity, keyAspect) => {
      const s = schemas[keyAspect];
      expect(s['x-key'].entity).toBe(entity);
      expect(s['x-key'].parts).toEqual(expectedParts[entity] ?? Object.keys(s.properties));
      expect(s['x-aspect'].recordName).toMatch(/^com\.linkedin\.[a-z.]+\.[A-Za-z0-9]+Key$/);
      for (const p of s['x-key'].parts) {
        expect(s.properties[p]).toBeDefined();
        expect(s.required).toContain(p);
      }
    });

    it('only key aspects carry x-key', () => {
      const keyAspects = new Set(entityFile.entities.map((e: Json) => e.keyAspect));
      for (const [name, s] of Object.entries(schemas)) expect(Boolean(s['x-key'])).toBe(keyAspects.has(name));
    });

    it('dataset keys project no edges; a data job key projects IsPartOf its flow, as in DataHub', () => {
      walk(schemas.datasetKey, [], (node) => expect(node['x-relationship']).toBeUndefined());
      expect(schemas.dataJobKey.properties.flow['x-relationship']).toEqual({ name: 'IsPartOf', entityTypes: ['dataFlow'] });
      expect(schemas.datasetKey.properties.platform['x-urn']).toBeDefined();
    });

    it('accepts a dataset key and rejects an unknown fabric', () => {
      expectValid('datasetKey', { platform: 'urn:li:dataPlatform:hive', name: 'SampleHiveDataset', origin: 'PROD' });
      expect(check('datasetKey', { platform: 'urn:li:dataPlatform:hive', name: 'x', origin: 'prod' }).ok).toBe(false);
    });
  });

  describe('annotations', () => {
    it('relationship names are in the allowed list and declare entity types', () => {
      const rels = annotated('x-relationship');
      expect(rels.length).toBeGreaterThan(0);
      for (const r of rels) {
        expect(r.value.name).toMatch(/^[A-Za-z]+$/);
        expect(Array.isArray(r.value.entityTypes)).toBe(true);
      }
      const names = new Set(rels.map((r) => r.value.name));
      for (const name of ALLOWED_RELATIONSHIPS) expect(names).toContain(name);
    });

    it('relationships sit exactly where the conformance notes put them', () => {
      const found = annotated('x-relationship').map((r) => `${r.aspect}:${r.path}:${r.value.name}:${r.value.entityTypes.join('|')}`).sort();
      expect(found).toEqual(expect.arrayContaining([
        'ownership:owners.*.owner:OwnedBy:corpuser|corpGroup',
        'upstreamLineage:upstreams.*.dataset:DownstreamOf:dataset',
        'chartInfo:inputs.*.string:Consumes:dataset',
        'dashboardInfo:charts.*:Contains:chart',
        'dashboardInfo:datasets.*:Consumes:dataset',
        'globalTags:tags.*.tag:TaggedWith:tag',
        'glossaryTerms:terms.*.urn:TermedWith:glossaryTerm',
        'editableSchemaMetadata:editableSchemaFieldInfo.*.globalTags.tags.*.tag:EditableSchemaFieldTaggedWith:tag',
        'editableSchemaMetadata:editableSchemaFieldInfo.*.glossaryTerms.terms.*.urn:EditableSchemaFieldWithGlossaryTerm:glossaryTerm',
        'schemaMetadata:fields.*.globalTags.tags.*.tag:SchemaFieldTaggedWith:tag',
        'schemaMetadata:fields.*.glossaryTerms.terms.*.urn:SchemaFieldWithGlossaryTerm:glossaryTerm',
        'groupMembership:groups.*:IsMemberOfGroup:corpGroup',
        'corpGroupInfo:admins.*:OwnedBy:corpuser',
        'corpGroupInfo:members.*:IsPartOf:corpuser',
        'corpGroupInfo:groups.*:IsPartOf:corpGroup',
        'testResults:passing.*.test:IsPassing:test',
        'testResults:failing.*.test:IsFailing:test',
      ]));
    });

    it("lineage relationships carry DataHub's isLineage and direction", () => {
      const lineage = annotated('x-relationship').filter((r) => r.value.isLineage).map((r) => `${r.aspect}:${r.path}:${r.value.name}${r.value.isUpstream === false ? ':downstream' : ''}`);
      expect(lineage).toEqual(expect.arrayContaining([
        'upstreamLineage:upstreams.*.dataset:DownstreamOf',
        'chartInfo:inputs.*.string:Consumes',
        'dashboardInfo:charts.*:Contains',
        'dashboardInfo:datasets.*:Consumes',
        'dataJobInputOutput:inputDatasets.*:Consumes',
        'dataJobInputOutput:outputDatasets.*:Produces:downstream',
      ]));
    });

    it('dataPlatformInstance projects no edge', () => {
      walk(schemas.dataPlatformInstance, [], (node) => expect(node['x-relationship']).toBeUndefined());
      expect(schemas.dataPlatformInstance.properties.platform['x-urn']).toBeDefined();
    });

    it('URN annotations sit on string fields and are well formed', () => {
      for (const kind of ['x-relationship', 'x-urn']) {
        for (const aspect of Object.keys(schemas)) {
          walk(schemas[aspect], [], (node) => {
            if (!node[kind]) return;
            expect(node.type).toBe('string');
            expect(Array.isArray(node[kind].entityTypes)).toBe(true);
          });
        }
      }
    });

    it('searchable annotations are well formed', () => {
      const all = annotated('x-searchable');
      expect(all.length).toBeGreaterThan(0);
      for (const { value } of all) {
        expect(typeof value.fieldName).toBe('string');
        expect(SEARCH_FIELD_TYPES).toContain(value.fieldType);
        for (const flag of ['queryByDefault', 'addToFilters', 'enableAutocomplete']) {
          if (flag in value) expect(typeof value[flag]).toBe('boolean');
        }
        if ('boostScore' in value) expect(typeof value.boostScore).toBe('number');
      }
    });

    it('indexes the fields DataHub indexes under DataHub field names', () => {
      const at = (aspect: string, path: string) => annotated('x-searchable').find((a) => a.aspect === aspect && a.path === path)?.value;
      expect(at('datasetProperties', 'name')).toMatchObject({ fieldName: 'name', fieldType: 'WORD_GRAM', enableAutocomplete: true, boostScore: 10 });
      expect(at('datasetProperties', 'description')).toMatchObject({ fieldName: 'description', fieldType: 'TEXT' });
      expect(at('datasetProperties', 'qualifiedName')).toMatchObject({ fieldName: 'qualifiedName' });
      expect(at('editableDatasetProperties', 'description')).toMatchObject({ fieldName: 'editedDescription' });
      expect(at('schemaMetadata', 'fields.*.fieldPath')).toMatchObject({ fieldName: 'fieldPaths' });
      expect(at('schemaMetadata', 'fields.*.description')).toMatchObject({ fieldName: 'fieldDescriptions' });
      expect(at('globalTags', 'tags.*.tag')).toMatchObject({ fieldName: 'tags', fieldType: 'URN', addToFilters: true });
      expect(at('glossaryTerms', 'terms.*.urn')).toMatchObject({ fieldName: 'glossaryTerms', fieldType: 'URN', addToFilters: true });
      expect(at('ownership', 'owners.*.owner')).toMatchObject({ fieldName: 'owners', addToFilters: true });
      expect(at('status', 'removed')).toMatchObject({ fieldName: 'removed', fieldType: 'BOOLEAN' });
      expect(at('browsePaths', 'paths.*')).toMatchObject({ fieldName: 'browsePaths', fieldType: 'BROWSE_PATH' });
      expect(at('subTypes', 'typeNames.*')).toMatchObject({ fieldName: 'typeNames', fieldType: 'KEYWORD', addToFilters: true });
      expect(at('datasetKey', 'name')).toMatchObject({ fieldName: 'id', fieldType: 'WORD_GRAM', enableAutocomplete: true, boostScore: 10 });
      expect(at('datasetKey', 'platform')).toMatchObject({ fieldName: 'platform', fieldType: 'URN' });
      expect(at('dataPlatformInstance', 'platform')).toMatchObject({ fieldName: 'platform', fieldType: 'URN', addToFilters: true });
      expect(at('datasetKey', 'origin')).toMatchObject({ fieldName: 'origin', fieldType: 'TEXT_PARTIAL', addToFilters: true });
      expect(at('chartInfo', 'title')).toMatchObject({ fieldName: 'title', enableAutocomplete: true });
      expect(at('dashboardInfo', 'title')).toMatchObject({ fieldName: 'title', enableAutocomplete: true });
      expect(at('tagProperties', 'name')).toMatchObject({ fieldName: 'name', enableAutocomplete: true });
      expect(at('testResults', 'passing.*.test')).toMatchObject({ fieldName: 'passingTests' });
      expect(at('testResults', 'failing.*.test')).toMatchObject({ fieldName: 'failingTests' });
    });

    it('fields sharing an index field name within an entity map to one engine type', () => {
      const engineType = (t: string) => (['TEXT', 'TEXT_PARTIAL', 'WORD_GRAM'].includes(t) ? 'text' : t === 'BOOLEAN' || t === 'COUNT' || t === 'DATETIME' ? t : 'keyword');
      for (const e of entityFile.entities) {
        const types = new Map<string, Set<string>>();
        for (const a of annotated('x-searchable').filter((x) => e.aspects.includes(x.aspect) && !schemas[x.aspect]['x-aspect'].timeseries)) {
          if (!types.has(a.value.fieldName)) types.set(a.value.fieldName, new Set());
          types.get(a.value.fieldName)!.add(engineType(a.value.fieldType));
        }
        for (const [field, t] of types) expect({ entity: e.name, field, types: [...t] }).toEqual({ entity: e.name, field, types: [[...t][0]] });
      }
    });

    it('the enums are faithful to DataHub', () => {
      expect(schemas.ownership.properties.owners.items.properties.type.enum).toEqual(expect.arrayContaining([
        'DEVELOPER', 'DATAOWNER', 'DELEGATE', 'PRODUCER', 'CONSUMER', 'STAKEHOLDER', 'TECHNICAL_OWNER', 'BUSINESS_OWNER', 'DATA_STEWARD', 'NONE', 'CUSTOM',
      ]));
      expect(schemas.datasetKey.properties.origin.enum).toEqual(expect.arrayContaining(['PROD', 'DEV', 'TEST', 'QA', 'UAT', 'EI', 'STG', 'CORP']));
      expect(schemas.upstreamLineage.properties.upstreams.items.properties.type.enum).toEqual(['COPY', 'TRANSFORMED', 'VIEW']);
      expect(schemas.glossaryTermInfo.properties.termSource).toMatchObject({ type: 'string' });
      expect(schemas.glossaryTermInfo.properties.termSource.enum).toBeUndefined();
    });
  });

  describe('interface samples', () => {
    const actor = 'urn:li:corpuser:datahub';
    const stamp = { time: 1581407189000, actor };
    const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

    it('ownership with DATAOWNER', () => {
      expectValid('ownership', { owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER' }, { owner: 'urn:li:corpGroup:bfoo', type: 'DATAOWNER' }], lastModified: stamp });
    });

    it('institutional memory, status, deprecation, browse paths, upstream lineage, dataPlatformInstance', () => {
      expectValid('institutionalMemory', { elements: [{ url: 'https://wiki/x', description: 'Sample doc', createStamp: stamp }] });
      expectValid('status', { removed: false });
      expectValid('deprecation', { deprecated: true, decommissionTime: null, note: '', actor });
      expectValid('deprecation', { deprecated: true, decommissionTime: 1700000000000, note: 'gone', actor });
      expectValid('browsePaths', { paths: ['/prod/hive/samplehivedataset'] });
      expectValid('upstreamLineage', { upstreams: [{ auditStamp: stamp, type: 'TRANSFORMED', dataset: 'urn:li:dataset:(urn:li:dataPlatform:hdfs,logging_events,PROD)' }] });
      expectValid('dataPlatformInstance', { platform: 'urn:li:dataPlatform:hive' });
    });

    it('schemaMetadata with platformSchema and fields with type unions', () => {
      const v = expectValid('schemaMetadata', {
        schemaName: 'SampleHiveSchema',
        platform: 'urn:li:dataPlatform:hive',
        version: 0,
        created: stamp,
        lastModified: stamp,
        hash: '',
        platformSchema: { 'com.linkedin.schema.KafkaSchema': { documentSchema: '{"type":"record","name":"SampleHiveSchema"}' } },
        fields: [
          { fieldPath: 'field_foo', description: 'Foo field description', nativeDataType: 'varchar(100)', type: { type: { 'com.linkedin.schema.StringType': {} } }, nullable: false, isPartOfKey: true, recursive: false },
          { fieldPath: 'field_bar', description: 'Bar field description', nativeDataType: 'boolean', type: { type: { 'com.linkedin.schema.NumberType': {} } }, nullable: false, isPartOfKey: false, recursive: false },
          { fieldPath: 'field_date', nativeDataType: 'date', type: { type: { 'com.linkedin.schema.DateType': {} } } },
          { fieldPath: 'field_rec', nativeDataType: 'struct', type: { type: { 'com.linkedin.schema.RecordType': {} } }, globalTags: { tags: [{ tag: 'urn:li:tag:Legacy' }] } },
        ],
      });
      expect(v.platformSchema['com.linkedin.schema.KafkaSchema'].documentSchema).toContain('SampleHiveSchema');
      expect(v.fields[0].type.type).toEqual({ 'com.linkedin.schema.StringType': {} });
    });

    it('schemaMetadata rejects a union with two members or a non-object member', () => {
      const base = { schemaName: 's', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', fields: [] };
      expect(check('schemaMetadata', { ...base, platformSchema: { 'com.linkedin.schema.MySqlDDL': { tableSchema: '' }, 'com.linkedin.schema.OracleDDL': { tableSchema: '' } } }).ok).toBe(false);
      expect(check('schemaMetadata', { ...base, platformSchema: { 'com.linkedin.schema.MySqlDDL': 'x' } }).ok).toBe(false);
      expect(check('schemaMetadata', { ...base, platformSchema: {} }).ok).toBe(false);
    });

    it('editableSchemaMetadata with field globalTags', () => {
      const v = expectValid('editableSchemaMetadata', {
        created: stamp,
        lastModified: stamp,
        editableSchemaFieldInfo: [{ fieldPath: 'field_foo', globalTags: { tags: [{ tag: 'urn:li:tag:Legacy' }] } }],
      });
      expect(v.editableSchemaFieldInfo[0].globalTags.tags[0].tag).toBe('urn:li:tag:Legacy');
      expectValid('editableSchemaMetadata', { editableSchemaFieldInfo: [{ fieldPath: 'f', globalTags: { tags: [{ tag: 'urn:li:tag:X' }] } }] });
    });

    it('globalTags, glossaryTerms, tagProperties', () => {
      expectValid('globalTags', { tags: [{ tag: 'urn:li:tag:Engineering' }] });
      expectValid('glossaryTerms', { terms: [{ urn: 'urn:li:glossaryTerm:instruments.FinancialInstrument' }], auditStamp: stamp });
      expectValid('tagProperties', { name: 'Engineering', description: 'Tag for engineering' });
    });

    it('corpUserInfo, corpUserEditableInfo, corpGroupInfo, groupMembership', () => {
      expectValid('corpUserInfo', { active: true, displayName: 'John Doe', fullName: 'John Doe', email: 'jdoe@linkedin.com' });
      expectValid('corpUserEditableInfo', {});
      expectValid('corpGroupInfo', {
        email: 'bfoo@linkedin.com',
        admins: ['urn:li:corpuser:jdoe'],
        members: ['urn:li:corpuser:jdoe', 'urn:li:corpuser:datahub'],
        groups: [],
      });
      expectValid('groupMembership', { groups: ['urn:li:corpGroup:bfoo'] });
    });

    it('chartInfo with inputs [{string: …}] and dashboardInfo', () => {
      const v = expectValid('chartInfo', {
        title: 'Baz Chart 1',
        description: 'Baz Chart 1',
        inputs: [{ string: dataset }],
        lastModified: { created: { time: 0, actor: 'urn:li:corpuser:jdoe' }, lastModified: { time: 0, actor: 'urn:li:corpuser:datahub' } },
      });
      expect(v.inputs[0].string).toBe(dataset);
      expectValid('chartInfo', { title: 't', description: 'd', lastModified: {}, inputEdges: [{ destinationUrn: dataset }] });
      expectValid('dashboardInfo', {
        title: 'Baz Dashboard',
        description: 'Baz Dashboard',
        charts: ['urn:li:chart:(looker,baz1)', 'urn:li:chart:(looker,baz2)'],
        lastModified: { created: { time: 0, actor: 'urn:li:corpuser:jdoe' }, lastModified: { time: 0, actor: 'urn:li:corpuser:datahub' } },
      });
    });

    it('glossaryTermInfo with customProperties', () => {
      const v = expectValid('glossaryTermInfo', {
        definition: 'a financial instrument',
        customProperties: { FQDN: 'SavingAccount' },
        sourceRef: 'FIBO',
        sourceUrl: 'https://spec.edmcouncil.org/fibo/ontology/FBC/FinancialInstruments/FinancialInstruments/CashInstrument',
        termSource: 'EXTERNAL',
      });
      expect(v.customProperties).toEqual({ FQDN: 'SavingAccount' });
      expect(check('glossaryTermInfo', { definition: 'x', termSource: 'INTERNAL', customProperties: { a: 1 } }).ok).toBe(false);
    });

    it('time-series samples', () => {
      expectValid('datasetUsageStatistics', {
        timestampMillis: 1629840771000,
        eventGranularity: { unit: 'DAY', multiple: 1 },
        partitionSpec: { partition: 'FULL_TABLE_SNAPSHOT', type: 'FULL_TABLE' },
        uniqueUserCount: 2,
        totalSqlQueries: 10,
        topSqlQueries: ['select 1'],
        userCounts: [{ user: 'urn:li:corpuser:jdoe', count: 5, userEmail: 'jdoe@x' }],
        fieldCounts: [{ fieldPath: 'field_foo', count: 7 }],
      });
      expectValid('datasetProfile', {
        timestampMillis: 1629840771000,
        rowCount: 100,
        columnCount: 2,
        sizeInBytes: 2048,
        partitionSpec: { partition: 'FULL_TABLE_SNAPSHOT' },
        fieldProfiles: [{
          fieldPath: 'field_foo', uniqueCount: 3, uniqueProportion: 0.03, nullCount: 0, nullProportion: 0, min: '1', max: '9', mean: '5', median: '5',
          sampleValues: ['1', '5'], distinctValueFrequencies: [{ value: '1', frequency: 10 }],
        }],
      });
      expect(check('datasetUsageStatistics', { uniqueUserCount: 1 }).ok).toBe(false);
    });

    it('test entity aspects', () => {
      expectValid('testInfo', { name: 'has owners', category: 'Governance', definition: { type: 'JSON', json: '{"on":{"types":["dataset"]},"rules":[]}' } });
      expect(check('testInfo', { name: 'n', category: 'c', definition: { type: 'YAML', json: '{}' } }).ok).toBe(false);
      expectValid('testResults', { passing: [{ test: 'urn:li:test:t1', type: 'SUCCESS' }], failing: [{ test: 'urn:li:test:t2', type: 'FAILURE' }] });
      expectValid('dataPlatformInfo', { name: 'hive', type: 'FILE_SYSTEM', datasetNameDelimiter: '.', displayName: 'Hive', logoUrl: 'https://x/hive.png' });
      expectValid('testKey', { id: 't1' });
    });
  });

  describe('unknown fields and wrong types', () => {
    it('drops unknown fields at every level instead of rejecting', () => {
      const r = check('status', { removed: true, someFutureField: 1 });
      expect(r.ok).toBe(true);
      expect(r.value).toEqual({ removed: true });
      const o = check('ownership', { owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER', unknown: 'x' }], extra: {} });
      expect(o.ok).toBe(true);
      expect(o.value).toEqual({ owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER' }] });
      const e = check('editableSchemaMetadata', { editableSchemaFieldInfo: [{ fieldPath: 'f', globalTags: { tags: [{ tag: 'urn:li:tag:X', junk: 1 }] } }] });
      expect(e.ok).toBe(true);
      expect(e.value.editableSchemaFieldInfo[0].globalTags.tags[0]).toEqual({ tag: 'urn:li:tag:X' });
    });

    it('rejects a wrong type of a known field', () => {
      expect(check('status', { removed: 'yes' }).ok).toBe(false);
      expect(check('ownership', { owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'OWNER' }] }).ok).toBe(false);
      expect(check('schemaMetadata', { schemaName: 's', platform: 'urn:li:dataPlatform:hive', version: '1', hash: '', platformSchema: { 'com.linkedin.schema.MySqlDDL': {} }, fields: [] }).ok).toBe(false);
      expect(check('deprecation', { deprecated: true, decommissionTime: 'soon', note: '', actor: 'urn:li:corpuser:x' }).ok).toBe(false);
      expect(check('chartInfo', { title: 't', description: 'd', lastModified: {}, inputs: ['urn:li:dataset:(a,b,PROD)'] }).ok).toBe(false);
    });

    it('rejects missing required fields', () => {
      expect(check('ownership', {}).ok).toBe(false);
      expect(check('tagProperties', { description: 'x' }).ok).toBe(false);
      expect(check('schemaMetadata', { schemaName: 's' }).ok).toBe(false);
    });
  });
});
