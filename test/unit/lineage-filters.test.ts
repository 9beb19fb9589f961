import { InvalidInputError } from '../../src/model/errors';
import { graphqlEntityType, modelEntityType, parseOrFilters } from '../../src/services/lineage/lineage-service';
import { decodeScrollId, encodeScrollId } from '../../src/http/routes/lineage';

describe('lineage request parsing', () => {
  test('the SDK degree filter: "1", "2" explicit; "3+" open from 3', () => {
    expect(parseOrFilters([{ and: [{ field: 'degree', condition: 'EQUAL', values: ['1', '2'] }] }], [], false)[0]).toMatchObject({ degrees: [1, 2], openFrom: null });
    expect(parseOrFilters([{ and: [{ field: 'degree', values: ['1', '2', '3+'] }] }], [], false)[0]).toMatchObject({ degrees: 'open', openFrom: 3, explicit: [1, 2] });
  });

  test('platform (urn or name), entity type (GraphQL or model name), removed negated = hide soft-deleted', () => {
    const [g] = parseOrFilters(
      [{ and: [{ field: 'platform.keyword', values: ['urn:li:dataPlatform:snowflake'] }, { field: '_entityType', values: ['DATA_JOB'] }, { field: 'removed', values: ['true'], negated: true }] }],
      [],
      true,
    );
    expect(g.platforms).toEqual(['urn:li:dataPlatform:snowflake', 'snowflake']);
    expect(g.types).toEqual(['dataJob']);
    expect(g.includeRemoved).toBe(false);
  });

  test('fields and conditions it cannot apply are refused, not ignored', () => {
    expect(() => parseOrFilters([{ and: [{ field: 'owners', values: ['x'] }] }], [], false)).toThrow(InvalidInputError);
    expect(() => parseOrFilters([{ and: [{ field: 'platform', condition: 'CONTAIN', values: ['x'] }] }], [], false)).toThrow(InvalidInputError);
    expect(() => parseOrFilters([{ and: [{ field: 'degree', values: ['0'] }] }], [], false)).toThrow(InvalidInputError);
    expect(() => parseOrFilters([{ and: [{ field: 'platform', negated: true, values: ['x'] }] }], [], false)).toThrow(InvalidInputError);
  });

  test('entity type names both ways', () => {
    expect(modelEntityType('SCHEMA_FIELD')).toBe('schemaField');
    expect(modelEntityType('CORP_USER')).toBe('corpuser');
    expect(modelEntityType('dataset')).toBe('dataset');
    expect(graphqlEntityType('dataJob')).toBe('DATA_JOB');
    expect(graphqlEntityType('corpuser')).toBe('CORP_USER');
  });

  test('scroll ids round-trip; a forged one is a 400', () => {
    expect(decodeScrollId(encodeScrollId(40))).toBe(40);
    expect(decodeScrollId(undefined)).toBe(0);
    expect(() => decodeScrollId('nonsense')).toThrow(InvalidInputError);
    expect(() => decodeScrollId(Buffer.from('{"offset":-1}').toString('base64url'))).toThrow(InvalidInputError);
  });
});
