import { join } from 'node:path';
import { graphqlFilter } from '../../src/http/graphql-search';
import { idsFromQueryString } from '../../src/http/routes/search-across';
import { clientGraphqlName, EntityTypeNames } from '../../src/model/entity-type-names';
import { Registry } from '../../src/model/registry';
import { parseV3Filter } from '../../src/services/entity-reads';
import { decodeScrollCursor, encodeScrollCursor, validateKeepAlive } from '../../src/services/search/across-entities';
import { filterQuery, parseFilter, SearchSchema, type FieldInfo } from '../../src/services/search/query-builder';

const registry = Registry.load(join(__dirname, '..', '..', 'schema'));

describe('entity type names', () => {
  const names = new EntityTypeNames(registry);

  it("answers DataHub's GraphQL names, and takes the client's, DataHub's and the model's", () => {
    expect(names.graphql('mlModel')).toBe('MLMODEL');
    expect(names.graphql('corpuser')).toBe('CORP_USER');
    expect(names.graphql('ownershipType')).toBe('CUSTOM_OWNERSHIP_TYPE');
    expect(names.graphql('nothing')).toBe('OTHER');
    for (const name of ['MLMODEL', 'ML_MODEL', 'mlModel']) expect(names.model(name)).toBe('mlModel');
    expect(names.model(clientGraphqlName('dataHubPolicy'))).toBe('dataHubPolicy');
    expect(names.model('NOT_A_TYPE')).toBeUndefined();
    expect(names.graphqlNames).toEqual(expect.arrayContaining(['DATASET', 'MLFEATURE_TABLE', 'DATA_PLATFORM_INSTANCE', 'SCHEMA_FIELD']));
  });
});

describe('GraphQL filters', () => {
  it('keeps OR groups of AND criteria, adds the deprecated AND list to each, and drops value-less criteria', () => {
    const filter = graphqlFilter(
      [{ and: [{ field: 'platform', values: ['urn:li:dataPlatform:hive'] }, { field: 'origin', value: 'PROD', negated: true }] }, { and: [{ field: 'urn', condition: 'EXISTS' }] }],
      [{ field: 'tags', values: ['urn:li:tag:a,b'] }, { field: 'owners', values: [] }],
    );
    expect(filter).toEqual([
      [
        { field: 'platform', values: ['urn:li:dataPlatform:hive'], condition: 'EQUAL', negated: false },
        { field: 'origin', values: ['PROD'], condition: 'EQUAL', negated: true },
        { field: 'tags', values: ['urn:li:tag:a,b'], condition: 'EQUAL', negated: false },
      ],
      [
        { field: 'urn', values: [], condition: 'EXISTS', negated: false },
        { field: 'tags', values: ['urn:li:tag:a,b'], condition: 'EQUAL', negated: false },
      ],
    ]);
  });

  it('reads an AND group left empty as no filter at all', () => {
    expect(graphqlFilter([{ and: [{ field: 'platform', values: [] }] }, { and: [{ field: 'origin', values: ['PROD'] }] }], null)).toEqual([]);
    expect(graphqlFilter(null, null)).toEqual([]);
  });

  it('refuses conditions it does not implement', () => {
    expect(() => graphqlFilter([{ and: [{ field: 'urn', values: ['x'], condition: 'DESCENDANTS_INCL' }] }], null)).toThrow(/condition must be one of/);
  });
});

describe('filter conditions', () => {
  const field = (name: string, over: Partial<FieldInfo> = {}): FieldInfo => ({ name, text: false, urnTypes: [], queryByDefault: false, boost: 1, facet: false, ...over });
  const schema = new SearchSchema('dataset', 'li', [field('origin', { text: true }), field('tags', { urnTypes: ['tag'] }), field('fieldTags', { urnTypes: ['tag'] }), field('createdAt')]);
  const query = (criterion: Record<string, unknown>) => filterQuery(parseFilter({ or: [{ and: [criterion] }] }), schema);

  it('IN and IEQUAL match exact values, IEQUAL ignoring case', () => {
    expect(query({ field: 'origin', values: ['PROD', 'DEV'], condition: 'IN' })).toEqual({ bool: { filter: [{ terms: { 'origin.keyword': ['PROD', 'DEV'] } }] } });
    expect(query({ field: 'origin', values: ['prod'], condition: 'IEQUAL' })).toEqual({ bool: { filter: [{ term: { 'origin.keyword': { value: 'prod', case_insensitive: true } } }] } });
  });

  it('EXISTS and IS_NULL need no value, and negate into each other', () => {
    expect(query({ field: 'origin.keyword', condition: 'EXISTS' })).toEqual({ bool: { filter: [{ exists: { field: 'origin' } }] } });
    expect(query({ field: 'origin', condition: 'EXISTS', negated: true })).toEqual({ bool: { filter: [{ bool: { must_not: [{ exists: { field: 'origin' } }] } }] } });
    expect(query({ field: 'origin', condition: 'IS_NULL', values: [] })).toEqual({ bool: { filter: [{ bool: { must_not: [{ exists: { field: 'origin' } }] } }] } });
    expect(() => query({ field: 'origin', condition: 'EQUAL', values: [] })).toThrow(/needs a value/);
  });

  it('a tag filter also matches the schema-field tags the type indexes', () => {
    expect(query({ field: 'tags', values: ['urn:li:tag:pii'] })).toEqual({
      bool: { filter: [{ bool: { should: [{ terms: { tags: ['urn:li:tag:pii'] } }, { terms: { fieldTags: ['urn:li:tag:pii'] } }], minimum_should_match: 1 } }] },
    });
  });
});

describe('wire forms', () => {
  it('reads rest.li ids: List(<encoded>,…), repeated, or the whole list encoded once more', () => {
    const a = 'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)';
    const b = 'urn:li:tag:b';
    const quote = (s: string) => encodeURIComponent(s).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    expect(idsFromQueryString(`ids=List(${quote(a)},${quote(b)})&aspects=List(x)`)).toEqual([a, b]);
    expect(idsFromQueryString(`ids=${quote(a)}&ids=${quote(b)}`)).toEqual([a, b]);
    expect(idsFromQueryString(`ids=${quote(`List(${quote(a)})`)}`)).toEqual([a]);
    expect(idsFromQueryString('ids=List()')).toEqual([]);
  });

  it('reads the v3 filter body: each criteria list ANDed, the outer list ORed', () => {
    expect(parseV3Filter({ and: [{ criteria: [{ field: 'urn', values: ['u1'] }] }, { criteria: [{ field: 'urn', values: ['u2'], condition: 'IN' }] }] })).toEqual([
      [{ field: 'urn', values: ['u1'], condition: 'EQUAL', negated: false }],
      [{ field: 'urn', values: ['u2'], condition: 'IN', negated: false }],
    ]);
    expect(() => parseV3Filter({ and: [{ field: 'urn' }] })).toThrow(/criteria/);
  });

  it('issues scroll ids it can read back, and refuses any other', () => {
    const id = encodeScrollCursor({ after: [1.5, 'urn:li:tag:a'], seen: 20 });
    expect(decodeScrollCursor(id)).toEqual({ after: [1.5, 'urn:li:tag:a'], seen: 20 });
    expect(decodeScrollCursor(null)).toBeNull();
    for (const bad of ['x', Buffer.from('{"a":[{"nested":1}],"n":1}').toString('base64url'), Buffer.from('{"a":[],"n":1}').toString('base64url')]) {
      expect(() => decodeScrollCursor(bad)).toThrow('scrollId is not a scroll id this service issued');
    }
    expect(() => validateKeepAlive('5m')).not.toThrow();
    expect(() => validateKeepAlive('later')).toThrow(/keepAlive/);
  });
});
