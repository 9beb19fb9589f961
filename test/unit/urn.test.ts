import { makeUrn, parseUrn, tryParseUrn } from '../../src/model/urn';
import { InvalidInputError } from '../../src/model/errors';

describe('URN parsing', () => {
  it('parses a simple URN', () => {
    const urn = parseUrn('urn:li:corpuser:jdoe');
    expect(urn).toMatchObject({ namespace: 'li', entityType: 'corpuser', id: 'jdoe', parts: ['jdoe'] });
  });

  it('splits a tuple id at depth 0 only, keeping nested URNs whole', () => {
    const urn = parseUrn('urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)');
    expect(urn.entityType).toBe('dataset');
    expect(urn.parts).toEqual(['urn:li:dataPlatform:hive', 'SampleHiveDataset', 'PROD']);
  });

  it('keeps nested tuples intact', () => {
    const urn = parseUrn('urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,a.b,PROD),field)');
    expect(urn.parts).toEqual(['urn:li:dataset:(urn:li:dataPlatform:hive,a.b,PROD)', 'field']);
  });

  it('keeps colons inside a simple id', () => {
    expect(parseUrn('urn:li:tag:a:b').id).toBe('a:b');
  });

  it.each([
    ['not a urn', 'hello'],
    ['missing id', 'urn:li:dataset:'],
    ['missing type', 'urn:li::x'],
    ['unbalanced parentheses', 'urn:li:dataset:(a,b,c'],
    ['closing too early', 'urn:li:dataset:(a,b)c)'],
    ['empty tuple member', 'urn:li:dataset:(a,,c)'],
    ['control character', 'urn:li:tag:a\u0000b'],
    ['wrong prefix', 'urx:li:tag:a'],
  ])('rejects %s', (_label, raw) => {
    expect(tryParseUrn(raw)).toBeNull();
    expect(() => parseUrn(raw)).toThrow(InvalidInputError);
  });

  it('rejects non-strings', () => {
    expect(tryParseUrn(42)).toBeNull();
    expect(tryParseUrn(undefined)).toBeNull();
  });

  it('builds tuple and simple URNs', () => {
    expect(makeUrn('li', 'chart', ['looker', 'c1'])).toBe('urn:li:chart:(looker,c1)');
    expect(makeUrn('li', 'tag', ['pii'])).toBe('urn:li:tag:pii');
  });
});
