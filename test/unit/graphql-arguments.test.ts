import { buildSchema, execute, parse } from 'graphql';
import { createRequire } from 'node:module';
import { plainArgumentsForArgumentlessFields } from '../../src/http/graphql';

describe('graphql-js arguments of fields that take none', () => {
  const seen: Record<string, unknown> = {};
  const schema = buildSchema(`type Query { plain: String  withArgs(x: Int = 3, y: String!, z: [Int!]): String }`);
  const rootValue = {
    plain: (args: unknown) => {
      seen.plain = args;
      return 'p';
    },
    withArgs: (args: unknown) => {
      seen.withArgs = args;
      return 'w';
    },
  };
  /** The coercion `execute` calls: the copy of graphql-js that `graphql` resolves to. */
  const coercion = () => (createRequire(require.resolve('graphql'))('./execution/values.js') as { getArgumentValues: { __argumentlessPatched?: boolean } }).getArgumentValues;

  beforeAll(() => plainArgumentsForArgumentlessFields());

  it('is patched in the copy of graphql-js the service executes with, once however often it is asked', () => {
    const patched = coercion();
    expect(patched.__argumentlessPatched).toBe(true);
    plainArgumentsForArgumentlessFields();
    expect(coercion()).toBe(patched);
  });

  it('are what graphql-js gives them: an empty object with the usual prototype', () => {
    expect(execute({ schema, rootValue, document: parse('{ plain }') })).toEqual({ data: { plain: 'p' } });
    expect(seen.plain).toEqual({});
    expect(Object.getPrototypeOf(seen.plain)).toBe(Object.prototype);
  });

  it('leaves fields with arguments to graphql-js: defaults, variables and lists coerced, a missing required one refused', () => {
    const ok = execute({ schema, rootValue, document: parse('query ($y: String!) { withArgs(y: $y, z: 4) }'), variableValues: { y: 'yes' } });
    expect(ok).toEqual({ data: { withArgs: 'w' } });
    expect(seen.withArgs).toEqual({ x: 3, y: 'yes', z: [4] });
    const missing = execute({ schema, rootValue, document: parse('{ withArgs }') }) as { errors?: { message: string }[] };
    expect(missing.errors?.[0].message).toBe('Argument "y" of required type "String!" was not provided.');
  });
});
