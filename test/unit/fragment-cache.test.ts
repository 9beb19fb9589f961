import type { AspectFragment } from '../../src/services/indexing/document';
import { FragmentCache, type EntityChange } from '../../src/services/indexing/fragment-cache';

const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)';
const f = (v: string): AspectFragment => ({ values: [[v]] });
const change = (c: Partial<EntityChange>): EntityChange => ({ urn, previousRev: null, rev: 1, created: false, wipedAll: false, removed: [], set: [], ...c });
const names = (m: ReadonlyMap<string, AspectFragment> | undefined) => (m ? Object.fromEntries([...m].map(([k, v]) => [k, v.values[0][0]])) : undefined);

describe('FragmentCache', () => {
  it('follows a chain of writes from a created entity, each revision exact', () => {
    const cache = new FragmentCache(1 << 20);
    cache.apply([change({ created: true, rev: 10, set: [['a', () => f('a1')], ['key', () => f('k')]] })]);
    cache.apply([change({ previousRev: 10, rev: 11, set: [['b', () => f('b1')]] })]);
    cache.apply([change({ previousRev: 11, rev: 12, set: [['a', () => f('a2')]], removed: ['key'] })]);
    expect(names(cache.get(urn, 12))).toEqual({ a: 'a2', b: 'b1' });
    expect(cache.get(urn, 11)).toBeUndefined();
  });

  it('drops the copy when a write started from a revision it does not hold (another process wrote in between)', () => {
    const cache = new FragmentCache(1 << 20);
    cache.apply([change({ created: true, rev: 10, set: [['a', () => f('a1')]] })]);
    cache.apply([change({ previousRev: 15, rev: 16, set: [['b', () => f('b1')]] })]);
    expect(cache.get(urn, 16)).toBeUndefined();
    expect(cache.get(urn, 10)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops the copy when a written value has no fragment', () => {
    const cache = new FragmentCache(1 << 20);
    cache.apply([change({ created: true, rev: 10, set: [['a', () => f('a1')]] })]);
    cache.apply([change({ previousRev: 10, rev: 11, set: [['a', () => null]] })]);
    expect(cache.size).toBe(0);
  });

  it('starts over after a delete of the whole entity, and a write without changes only moves the revision', () => {
    const cache = new FragmentCache(1 << 20);
    cache.apply([change({ created: true, rev: 10, set: [['a', () => f('a1')]] })]);
    cache.apply([change({ previousRev: 10, rev: 11, wipedAll: true, set: [['b', () => f('b1')]] })]);
    cache.apply([change({ previousRev: 11, rev: 12 })]);
    expect(names(cache.get(urn, 12))).toEqual({ b: 'b1' });
  });

  it('keeps a newer copy over an older read or write', () => {
    const cache = new FragmentCache(1 << 20);
    cache.put(urn, 20, new Map([['a', f('read')]]));
    cache.put(urn, 19, new Map([['a', f('older')]]));
    cache.apply([change({ created: true, rev: 18, set: [['a', () => f('write')]] })]);
    expect(names(cache.get(urn, 20))).toEqual({ a: 'read' });
  });

  it('keeps text of any script exact beside other fragments (fragments are stored as UTF-8 bytes)', () => {
    const cache = new FragmentCache(1 << 20);
    cache.apply([change({ created: true, rev: 10, set: [['a', () => f('Größe 📈')], ['b', () => f('表')], ['c', () => f('plain')]] })]);
    cache.apply([change({ previousRev: 10, rev: 11, set: [['b', () => f('ß→表')]] })]);
    expect(names(cache.get(urn, 11))).toEqual({ a: 'Größe 📈', b: 'ß→表', c: 'plain' });
  });

  it('stays within its size bound', () => {
    const cache = new FragmentCache(1000);
    for (let i = 0; i < 50; i++) cache.put(`${urn}${i}`, 1, new Map([['a', f('x')]]));
    expect(cache.size).toBeLessThanOrEqual(5);
    expect(cache.get(`${urn}49`, 1)).toBeDefined();
  });
});
