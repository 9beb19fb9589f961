import { join } from 'node:path';
import { Registry } from '../../src/model/registry';
import { aspectFragment, buildDocument, documentFromFragments } from '../../src/services/indexing/document';
import { FragmentCache } from '../../src/services/indexing/fragment-cache';
import { entityIndexDefinition } from '../../src/stores/search/mappings';

const registry = Registry.load(join(__dirname, '..', '..', 'schema'));
const dataset = registry.entity('dataset');
const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders_2024,PROD)';

function doc(aspects: Record<string, Record<string, unknown>>) {
  return buildDocument(registry, dataset, urn, new Map(Object.entries(aspects)));
}

describe('search document of an entity', () => {
  const built = doc({
    datasetKey: { platform: 'urn:li:dataPlatform:hive', name: 'db.orders_2024', origin: 'PROD' },
    datasetProperties: { name: 'orders_2024', description: 'All orders', customProperties: { team: 'sales' } },
    globalTags: { tags: [{ tag: 'urn:li:tag:pii' }, { tag: 'urn:li:tag:gold' }] },
    ownership: { owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER' }] },
    browsePaths: { paths: ['/prod/hive/db/orders_2024'] },
    status: { removed: false },
  });

  it('carries the searchable fields named by the schema annotations', () => {
    expect(built).toMatchObject({
      urn,
      entityType: 'dataset',
      removed: false,
      platform: 'urn:li:dataPlatform:hive',
      origin: 'PROD',
      tags: ['urn:li:tag:pii', 'urn:li:tag:gold'],
      owners: 'urn:li:corpuser:jdoe',
      description: 'All orders',
      customProperties: 'team=sales',
    });
  });

  it('keeps each value of a field once, in the order first seen, across the fields of a wide schema', () => {
    const fields = Array.from({ length: 600 }, (_, f) => ({
      fieldPath: `col_${f}`,
      nativeDataType: 'bigint',
      type: { type: { 'com.linkedin.schema.NumberType': {} } },
      globalTags: { tags: [{ tag: `urn:li:tag:t${f % 3}` }] },
    }));
    const wide = doc({ schemaMetadata: { schemaName: 't', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } }, fields } });
    expect(wide.fieldPaths).toEqual(fields.map((f) => f.fieldPath));
    expect(wide.fieldTags).toEqual(['urn:li:tag:t0', 'urn:li:tag:t1', 'urn:li:tag:t2']);
  });

  it('merges a field fed by two aspects, each value once, in the order first seen', () => {
    const key = { platform: 'urn:li:dataPlatform:hive', name: 'db.orders_2024', origin: 'PROD' };
    expect(doc({ datasetKey: key, dataPlatformInstance: { platform: 'urn:li:dataPlatform:hive' } }).platform).toBe('urn:li:dataPlatform:hive');
    expect(doc({ datasetKey: key, dataPlatformInstance: { platform: 'urn:li:dataPlatform:kafka' } }).platform).toEqual(['urn:li:dataPlatform:hive', 'urn:li:dataPlatform:kafka']);
  });

  it('builds the same document from fragments kept in the fragment cache as from the aspects', () => {
    const aspects = {
      datasetKey: { platform: 'urn:li:dataPlatform:hive', name: 'db.orders_2024', origin: 'PROD' },
      datasetProperties: { name: 'orders_2024', description: 'All orders', customProperties: { team: 'sales' } },
      schemaMetadata: { schemaName: 't', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
        fields: ['customer_email', 'customer_email', 'OrderId'].map((fieldPath) => ({ fieldPath, nativeDataType: 'string', type: { type: { 'com.linkedin.schema.StringType': {} } } })) },
      globalTags: { tags: [{ tag: 'urn:li:tag:pii' }, { tag: 'urn:li:tag:pii' }] },
    };
    const cache = new FragmentCache(1024 * 1024);
    cache.put(urn, 1, new Map(Object.entries(aspects).map(([name, value]) => [name, aspectFragment(registry, dataset, name, value)])));
    const fromCache = documentFromFragments(registry, dataset, urn, cache.get(urn, 1)!);
    expect(fromCache).toEqual(doc(aspects));
    expect(fromCache.fieldPaths).toEqual(['customer_email', 'OrderId']);
    expect(fromCache.tags).toBe('urn:li:tag:pii');
  });

  it('makes URN values findable by their id and names by their parts', () => {
    expect(built.urnTokens).toEqual(expect.arrayContaining(['pii', 'gold', 'jdoe', 'hive']));
    expect(built.nameParts).toEqual(expect.arrayContaining(['db', 'orders_2024', 'orders', '2024']));
    expect(built.nameExact).toEqual(expect.arrayContaining(['orders_2024', 'db.orders_2024']));
  });

  it('records each browse path with its ancestors, normalized; a legacy default path lists the entity in its parent under its last segment', () => {
    expect(built.browsePaths).toEqual(['/prod/hive/db']);
    expect(built.browseName).toBe('orders_2024');
    expect(built.browsePathPrefixes).toEqual(['/', '/prod', '/prod/hive', '/prod/hive/db']);
    const loose = doc({ browsePaths: { paths: ['prod/kafka1/', '//prod//kafka1', ''] } });
    expect(loose.browsePaths).toEqual(['/prod/kafka1', '/']);
  });

  it('splits names into words as DataHub does: case changes, digits, _ - . separators, originals kept', () => {
    const named = buildDocument(registry, dataset, 'urn:li:dataset:(urn:li:dataPlatform:bigquery,covid19_geotab_mobility_impact.us_border_wait_times,PROD)', new Map([
      ['datasetProperties', { name: 'SampleKafkaDataset', qualifiedName: 'covid19_geotab_mobility_impact.us_border_wait_times' }],
    ]));
    // Words in order are one value ("sample kafka dataset"): the engine's standard analysis makes each a token.
    const words = (values: unknown) => (values as string[]).flatMap((v) => v.split(' '));
    expect(words(named.nameParts)).toEqual(expect.arrayContaining(['samplekafkadataset', 'sample', 'kafka', 'dataset', 'covid19_geotab_mobility_impact', 'covid19', 'covid', '19', 'geotab', 'us_border_wait_times', 'border']));
    expect(named.nameParts).toEqual(expect.arrayContaining(['sample kafka dataset', 'covid 19 geotab mobility impact']));
    // The entity's own URN is searchable by its parts (DataHub's urn_component).
    expect(words(named.urnTokens)).toEqual(expect.arrayContaining(['bigquery', 'covid', 'geotab', 'prod']));
  });

  it('keeps the words inside words of other default-searched text apart', () => {
    expect(built.textParts).toEqual(expect.arrayContaining(['orders 2024']));
    const described = doc({ datasetProperties: { name: 'x', description: 'Holds the customerEmail of each buyer' } });
    expect(described.textParts).toEqual(['customer email']);
  });

  it("keeps structured property values under DataHub's field names, through the fragment cache too", () => {
    const aspects = {
      structuredProperties: { properties: [
        { propertyUrn: 'urn:li:structuredProperty:io.acryl.privacy.retentionTime', values: [{ double: 30 }, { double: 90.5 }] },
        { propertyUrn: 'urn:li:structuredProperty:tier', values: [{ string: 'gold' }] },
        { propertyUrn: 'urn:li:structuredProperty:unset', values: [] },
      ] },
    };
    expect(doc(aspects).structuredProperties).toEqual({ io_acryl_privacy_retentionTime: [30, 90.5], tier: ['gold'] });
    const cache = new FragmentCache(1024 * 1024);
    cache.put(urn, 1, new Map(Object.entries(aspects).map(([name, value]) => [name, aspectFragment(registry, dataset, name, value)])));
    expect(documentFromFragments(registry, dataset, urn, cache.get(urn, 1)!)).toEqual(doc(aspects));
    const { mappings } = entityIndexDefinition(registry, dataset);
    expect((mappings as { properties: Record<string, unknown> }).properties.structuredProperties).toEqual({ type: 'object', dynamic: true });
    expect(mappings).toMatchObject({ dynamic: false, date_detection: false });
  });

  it('marks a soft-deleted entity removed', () => {
    expect(doc({ status: { removed: true } }).removed).toBe(true);
  });

  it('maps every document field in the index definition', () => {
    const { mappings } = entityIndexDefinition(registry, dataset);
    const properties = (mappings as { properties: Record<string, unknown> }).properties;
    for (const field of Object.keys(built)) expect(properties).toHaveProperty(field);
  });
});
