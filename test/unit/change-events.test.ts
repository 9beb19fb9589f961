import { join } from 'node:path';
import { Registry } from '../../src/model/registry';
import { downgradeFieldPath, highest, schemaEvents, schemaFieldUrn } from '../../src/services/history/change-events';
import { jsonPatch } from '../../src/services/history/json-patch-diff';
import { categoryAspects, parseCategory, windowRows } from '../../src/services/history/timeline-service';
import type { VersionRow } from '../../src/stores/graph/history-store';

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:kafka,t,PROD)';
const field = (fieldPath: string, nativeDataType: string, extra: Record<string, unknown> = {}) => ({ fieldPath, nativeDataType, type: { type: { 'com.linkedin.schema.StringType': {} } }, ...extra });
const schema = (...fields: Record<string, unknown>[]) => ({ fields });
const technical = (base: Record<string, unknown> | null, target: Record<string, unknown>) =>
  schemaEvents(base, target, DATASET, 'TECHNICAL_SCHEMA').map((e) => `${e.operation} ${e.semVerChange} ${e.parameters?.modificationCategory} ${e.description}`);

describe('schema change events (DataHub SchemaMetadataChangeEventGenerator rules)', () => {
  it('v2 field paths: downgraded for descriptions, encoded in schemaField urns', () => {
    expect(downgradeFieldPath('[version=2.0].[type=struct].address.[type=string].city')).toBe('address.city');
    expect(downgradeFieldPath('plain.path')).toBe('plain.path');
    expect(schemaFieldUrn(DATASET, 'a,(b)')).toBe(`urn:li:schemaField:(${DATASET},a%2C%28b%29)`);
    // In the dataset's namespace (the configured one).
    const acme = 'urn:acme:dataset:(urn:acme:dataPlatform:kafka,t,PROD)';
    expect(schemaFieldUrn(acme, 'a')).toBe(`urn:acme:schemaField:(${acme},a)`);
  });

  it('a column whose v2 path moved because its type changed is one MAJOR type change, not a removal and an addition', () => {
    expect(technical(schema(field('[version=2.0].[type=int].price', 'int')), schema(field('[version=2.0].[type=long].price', 'long')))).toEqual([
      "MODIFY MAJOR TYPE_CHANGE A backwards incompatible change due to native datatype of the field 'price' changed from 'int' to 'long'.",
    ]);
  });

  it('paths that moved without a type change (v1 to v2 paths) are no change', () => {
    expect(technical(schema(field('price', 'int'), field('name', 'string')), schema(field('[version=2.0].[type=int].price', 'int'), field('[version=2.0].[type=string].name', 'string')))).toEqual([]);
  });

  it('a rename needs the same type, parent and description; otherwise a removal (MAJOR) and an addition (MINOR)', () => {
    expect(technical(schema(field('a.x', 'int', { description: 'd' })), schema(field('a.y', 'int', { description: 'd' })))).toEqual([
      "MODIFY MINOR RENAME A forwards & backwards compatible change due to renaming of the field 'a.x to a.y'.",
    ]);
    expect(technical(schema(field('a.x', 'int')), schema(field('b.y', 'int')))).toEqual([
      "REMOVE MAJOR OTHER A backwards incompatible change due to removal of field: 'a.x'.",
      "ADD MINOR OTHER A forwards & backwards compatible change due to the newly added field 'b.y'.",
    ]);
  });

  it('primary key changes are MAJOR; a new schema is all additions', () => {
    expect(technical(schema(field('id', 'int')), { ...schema(field('id', 'int')), primaryKeys: ['id'] })).toEqual([
      "MODIFY MAJOR OTHER A backwards incompatible change due to addition of the primary key field 'id'",
    ]);
    expect(technical(null, schema(field('b', 'int'), field('a', 'int'))).map((e) => e.split(' ')[0])).toEqual(['ADD', 'ADD']);
  });

  it('field descriptions: added and removed MINOR, changed PATCH; field tags and terms on the field urn', () => {
    const docs = (b: Record<string, unknown>, t: Record<string, unknown>) => schemaEvents(b, t, DATASET, 'DOCUMENTATION').map((e) => `${e.operation} ${e.semVerChange} ${e.entityUrn}`);
    expect(docs(schema(field('a', 'int', { description: 'x' })), schema(field('a', 'int', { description: 'y' })))).toEqual([`MODIFY PATCH ${schemaFieldUrn(DATASET, 'a')}`]);
    expect(docs(schema(field('a', 'int')), schema(field('a', 'int', { description: 'y' })))).toEqual([`ADD MINOR ${schemaFieldUrn(DATASET, 'a')}`]);
    const tags = schemaEvents(schema(field('a', 'int')), schema(field('a', 'int', { globalTags: { tags: [{ tag: 'urn:li:tag:pii' }] } })), DATASET, 'TAG');
    expect(tags).toEqual([
      {
        entityUrn: schemaFieldUrn(DATASET, 'a'),
        category: 'TAG',
        operation: 'ADD',
        modifier: 'urn:li:tag:pii',
        parameters: { fieldPath: 'a', parentUrn: DATASET, tagUrn: 'urn:li:tag:pii', context: '{}' },
        semVerChange: 'MINOR',
        description: `Tag 'pii' added to entity '${schemaFieldUrn(DATASET, 'a')}'.`,
      },
    ]);
  });
});

describe('timeline pieces', () => {
  it('categories: any case, compound names in any spelling, OWNER for OWNERSHIP', () => {
    expect(['tag', 'Technical-Schema', 'glossary term', 'OWNER', 'deprecation'].map(parseCategory)).toEqual(['TAG', 'TECHNICAL_SCHEMA', 'GLOSSARY_TERM', 'OWNERSHIP', 'DEPRECATION']);
    expect(() => parseCategory('nope')).toThrow(/Unknown change category/);
  });

  it('highest semantic change of a list', () => {
    expect(highest([{ semVerChange: 'PATCH' }, { semVerChange: 'MAJOR' }, { semVerChange: 'MINOR' }])).toBe('MAJOR');
    expect(highest([])).toBe('NONE');
  });

  const row = (version: number, createdTime: number, extra: Partial<VersionRow> = {}): VersionRow => ({ name: 'globalTags', version, createdTime, createdActor: 'a', value: `{"v":${version}}`, trimmed: false, ...extra });

  it('window rows: the versions in it, after the one before; a sentinel before the creation; the latest alone when none is in it', () => {
    const versions = [row(1, 100), row(2, 200), row(0, 300)];
    expect(windowRows(versions, 150, 400).rows.map((r) => r.version)).toEqual([1, 2, 0]);
    expect(windowRows(versions, 0, 400).rows.map((r) => r.version)).toEqual([-1, 1, 2, 0]);
    expect(windowRows(versions, 500, 600).rows.map((r) => r.version)).toEqual([0]);
  });

  it('window rows: trimmed history has no sentinel, and says from when it is kept', () => {
    const versions = [row(4, 400), row(5, 500), row(0, 600)];
    expect(windowRows(versions, 0, 1000)).toEqual({ rows: [expect.objectContaining({ version: 4 }), expect.objectContaining({ version: 5 }), expect.objectContaining({ version: 0 })], trimmedFrom: 400 });
    expect(windowRows(versions, 450, 1000).trimmedFrom).toBeNull();
    // Flagged on the latest node (a revert may have left no history at all).
    expect(windowRows([row(0, 700, { trimmed: true })], 0, 1000).trimmedFrom).toBe(700);
  });

  it("categories read DataHub's aspects per entity type (as the aspect modules declare them), plus DEPRECATION and LINEAGE", () => {
    const registered = categoryAspects(Registry.load(join(__dirname, '..', '..', 'schema')));
    const names = Object.fromEntries(
      [...registered].map(([entity, byCategory]) => [entity, Object.fromEntries([...byCategory].map(([c, aspects]) => [c, aspects.map((a) => a.name).sort()]))]),
    );
    expect(names).toEqual({
      dataset: {
        TAG: ['editableSchemaMetadata', 'globalTags', 'schemaMetadata'],
        OWNERSHIP: ['ownership'],
        DOCUMENTATION: ['datasetProperties', 'editableDatasetProperties', 'editableSchemaMetadata', 'institutionalMemory', 'schemaMetadata'],
        GLOSSARY_TERM: ['editableSchemaMetadata', 'glossaryTerms'],
        TECHNICAL_SCHEMA: ['schemaMetadata'],
        DOMAIN: ['domains'],
        STRUCTURED_PROPERTY: ['structuredProperties'],
        APPLICATION: ['applications'],
        DEPRECATION: ['deprecation'],
        LINEAGE: ['upstreamLineage'],
      },
      glossaryTerm: { OWNERSHIP: ['ownership'], DOMAIN: ['domains'], STRUCTURED_PROPERTY: ['structuredProperties'], APPLICATION: ['applications'], DEPRECATION: ['deprecation'] },
      domain: { OWNERSHIP: ['ownership'], STRUCTURED_PROPERTY: ['structuredProperties'] },
      dataProduct: { OWNERSHIP: ['ownership'], TAG: ['globalTags'], GLOSSARY_TERM: ['glossaryTerms'], DOMAIN: ['domains'], STRUCTURED_PROPERTY: ['structuredProperties'], APPLICATION: ['applications'] },
    });
  });

  it('raw diffs are RFC 6902 patches', () => {
    expect(jsonPatch({ a: 1, b: [1, 2, 3], c: { 'x/y': 1 } }, { a: 2, b: [1], c: {}, d: true })).toEqual([
      { op: 'replace', path: '/a', value: 2 },
      { op: 'remove', path: '/b/2' },
      { op: 'remove', path: '/b/1' },
      { op: 'remove', path: '/c/x~1y' },
      { op: 'add', path: '/d', value: true },
    ]);
  });
});
