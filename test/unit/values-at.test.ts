import fc from 'fast-check';
import { valuesAt } from '../../src/model/registry';

/** The specification valuesAt keeps: a walk step by step over the list of values reached so far, arrays flattened at the end. */
function stepByStep(value: unknown, path: readonly string[]): unknown[] {
  let reached: unknown[] = [value];
  for (const step of path) {
    const next: unknown[] = [];
    for (const v of reached) {
      if (v === null || v === undefined) continue;
      if (step === '*') {
        if (Array.isArray(v)) next.push(...v);
        else if (typeof v === 'object') next.push(...Object.values(v as Record<string, unknown>));
      } else if (typeof v === 'object' && !Array.isArray(v)) {
        const child = (v as Record<string, unknown>)[step];
        if (child !== undefined && child !== null) next.push(child);
      }
    }
    reached = next;
  }
  return reached.flatMap((v) => (Array.isArray(v) ? v : [v]));
}

describe('valuesAt', () => {
  it('finds the leaves of a relationship path in document order', () => {
    const value = { upstreams: [{ dataset: 'a' }, { dataset: 'b' }, { other: 'x' }, { dataset: null }] };
    expect(valuesAt(value, ['upstreams', '*', 'dataset'])).toEqual(['a', 'b']);
  });

  it('flattens an array at the end of the path and keeps what a final wildcard reaches, nulls included', () => {
    expect(valuesAt({ tags: ['t1', 't2'] }, ['tags'])).toEqual(['t1', 't2']);
    expect(valuesAt({ m: { x: 1, y: null } }, ['m', '*'])).toEqual([1, null]);
    expect(valuesAt({ a: [[1, 2], [3]] }, ['a', '*'])).toEqual([1, 2, 3]);
  });

  it('yields nothing through missing steps, primitives and arrays met by a named step', () => {
    expect(valuesAt({ a: 'text' }, ['a', 'b'])).toEqual([]);
    expect(valuesAt({ a: [{ b: 1 }] }, ['a', 'b'])).toEqual([]);
    expect(valuesAt(null, ['a'])).toEqual([]);
  });

  it('agrees with the step-by-step walk on any JSON value and path', () => {
    const key = fc.constantFrom('a', 'b', 'c', '*');
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, 1, 'x', true), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 })),
    })).value;
    fc.assert(fc.property(json, fc.array(key, { maxLength: 4 }), (value, path) => {
      expect(valuesAt(value, path)).toEqual(stepByStep(value, path));
    }), { numRuns: 2000 });
  });
});
