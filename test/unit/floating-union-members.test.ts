import { withFloatingUnionMembers } from '../../src/http/rpc';

describe('whole numbers of double and float union members', () => {
  it('are written as floating-point numbers, as DataHub writes them', () => {
    const answer = { values: [{ double: 60 }, { double: 2.5 }, { string: 'x' }], allowed: [{ value: { float: -3 }, description: '"double":7 stays in a string' }] };
    expect(withFloatingUnionMembers(JSON.stringify(answer))).toBe(
      '{"values":[{"double":60.0},{"double":2.5},{"string":"x"}],"allowed":[{"value":{"float":-3.0},"description":"\\"double\\":7 stays in a string"}]}',
    );
    // Parsed back, the numbers are the same.
    expect(JSON.parse(withFloatingUnionMembers(JSON.stringify(answer)))).toEqual(answer);
    expect(withFloatingUnionMembers('{"count":60,"int":3}')).toBe('{"count":60,"int":3}');
  });
});
