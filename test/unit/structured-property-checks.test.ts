import { structuredPropertyProblems } from '../../src/services/structured-property-checks';

describe('structured property values against their definitions', () => {
  const p = (name: string) => `urn:li:structuredProperty:${name}`;
  const definitions = new Map<string, Record<string, unknown>>([
    [p('days'), { valueType: 'urn:li:dataType:datahub.number', cardinality: 'SINGLE', entityTypes: ['urn:li:entityType:datahub.dataset'] }],
    [p('tier'), { valueType: 'urn:li:dataType:datahub.string', cardinality: 'MULTIPLE', entityTypes: [], allowedValues: [{ value: { string: 'foo' } }, { value: { string: 'bar' } }] }],
    [p('since'), { valueType: 'urn:li:dataType:datahub.date', entityTypes: ['urn:li:entityType:datahub.schemaField'] }],
  ]);
  const problems = (entityType: string, properties: { propertyUrn: string; values: unknown[] }[]) => structuredPropertyProblems(entityType, { properties }, definitions, 'li');

  it('accepts values of the type, cardinality, allowed values and entity types defined', () => {
    expect(problems('dataset', [{ propertyUrn: p('days'), values: [{ double: 30 }] }, { propertyUrn: p('tier'), values: [{ string: 'foo' }, { string: 'bar' }] }])).toEqual([]);
    expect(problems('schemaField', [{ propertyUrn: p('since'), values: [{ string: '2020-10-01' }] }])).toEqual([]);
  });

  it('finds what DataHub refuses, naming the property', () => {
    expect(problems('dataset', [{ propertyUrn: p('days'), values: [{ string: '30 days' }] }])).toEqual([`Structured property ${p('days')}: value {string=30 days} is not of type number`]);
    expect(problems('dataset', [{ propertyUrn: p('days'), values: [{ double: 1 }, { double: 2 }] }])).toEqual([`Structured property ${p('days')} has cardinality SINGLE: 2 values given`]);
    expect(problems('dataset', [{ propertyUrn: p('tier'), values: [{ string: 'foo' }, { string: 'baz' }] }])).toEqual([
      `Structured property ${p('tier')}: value: {string=baz} should be one of [{string=foo}, {string=bar}]`,
    ]);
    expect(problems('schemaField', [{ propertyUrn: p('since'), values: [{ double: 200030 }] }])[0]).toContain('is not of type date');
    expect(problems('schemaField', [{ propertyUrn: p('since'), values: [{ string: 'Oct 1st' }] }])[0]).toContain('is not a date');
    expect(problems('chart', [{ propertyUrn: p('days'), values: [{ double: 1 }] }])[0]).toContain('is not defined for entity type chart');
    expect(problems('dataset', [{ propertyUrn: p('none'), values: [{ double: 1 }] }])).toEqual([`Structured property ${p('none')} does not exist`]);
  });
});
