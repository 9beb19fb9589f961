import { Transaction } from 'neo4j-driver';
import { createRequire } from 'node:module';
import { commitWithoutStackCapture, decodeMapsByAssignment } from '../../src/stores/graph/neo4j-executor';

describe('driver commits without stack capture', () => {
  it('commits with stack traces off (the Result it builds captures none) and turns them back on after', () => {
    commitWithoutStackCapture();
    const before = Error.stackTraceLimit;
    let during: number | null = null;
    // The commit reads its state machine first; this one records the limit it runs under and fails there.
    const fake = { _state: { commit: () => { during = Error.stackTraceLimit; throw new Error('commit refused'); } } };
    expect(() => Transaction.prototype.commit.call(fake as unknown as Transaction)).toThrow('commit refused');
    expect(during).toBe(0);
    expect(Error.stackTraceLimit).toBe(before);
    expect(before).toBeGreaterThan(0);
  });
});

describe('driver maps decoded by plain stores', () => {
  /** The driver's map decoding, patched, fed keys and values in wire order by a stand-in for its value decoder. */
  function decodeMap(entries: [string, unknown][]): Record<string, unknown> {
    decodeMapsByAssignment();
    const proto = createRequire(require.resolve('neo4j-driver'))('neo4j-driver-bolt-connection/lib/packstream/packstream-v1.js').Unpacker.prototype;
    const wire = entries.flat();
    const unpacker = Object.assign(Object.create(proto), { unpack: () => wire.shift() });
    return proto._unpackMapWithSize.call(unpacker, entries.length, null, null);
  }

  it('is patched in the copy of the driver the driver loads', () => {
    decodeMapsByAssignment();
    const proto = createRequire(require.resolve('neo4j-driver'))('neo4j-driver-bolt-connection/lib/packstream/packstream-v1.js').Unpacker.prototype;
    expect(proto.__mapsPatched).toBe(true);
  });

  it('decodes keys and values in order, a repeated key keeping the last value', () => {
    const map = decodeMap([['name', 'ownership'], ['hash', 'h1'], ['edges', ['OwnedBy|urn:li:corpuser:x']], ['name', 'globalTags']]);
    expect(map).toEqual({ name: 'globalTags', hash: 'h1', edges: ['OwnedBy|urn:li:corpuser:x'] });
    expect(Object.keys(map)).toEqual(['name', 'hash', 'edges']);
  });

  it('keeps a key named __proto__ an own property: the prototype stays Object.prototype', () => {
    const map = decodeMap([['__proto__', { polluted: true }], ['toString', 'a string'], ['constructor', 1]]);
    expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
    expect((map as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(map, '__proto__')?.value).toEqual({ polluted: true });
    expect(map.toString).toBe('a string');
    expect(map.constructor).toBe(1);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
