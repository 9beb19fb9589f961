import { schemaFieldDataType } from '../../src/http/graphql-dataset';

describe('a schema field data type as GraphQL names it', () => {
  it.each([
    ['com.linkedin.schema.NumberType', 'NUMBER'],
    ['com.linkedin.pegasus2avro.schema.StringType', 'STRING'],
    ['com.linkedin.schema.RecordType', 'STRUCT'],
    ['com.linkedin.schema.ArrayType', 'ARRAY'],
  ])('%s is %s', (member, expected) => {
    expect(schemaFieldDataType({ type: { type: { [member]: {} } } })).toBe(expected);
  });

  it('a field without a known type is NULL, never an error (the enum is non-null)', () => {
    expect(schemaFieldDataType({})).toBe('NULL');
    expect(schemaFieldDataType({ type: { type: { 'com.example.GeoType': {} } } })).toBe('NULL');
  });
});
