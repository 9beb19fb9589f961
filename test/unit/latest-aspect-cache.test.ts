import { LatestAspectCache, packAspectRows, unpackAspectRows } from '../../src/stores/graph/latest-aspect-cache';

const entry = (rev: number, epoch = 1, bytes = 100) => ({ rev, packed: Buffer.alloc(bytes), epoch });

describe('LatestAspectCache invalidation', () => {
  it("drops every copy of an entity, whatever names were read, and leaves other entities' copies", () => {
    const cache = new LatestAspectCache(1_000_000);
    cache.set(LatestAspectCache.key('urn:a', null), entry(1));
    cache.set(LatestAspectCache.key('urn:a', ['ownership']), entry(1));
    cache.set(LatestAspectCache.key('urn:b', null), entry(2));
    cache.invalidate(['urn:a']);
    expect(cache.get(LatestAspectCache.key('urn:a', null))).toBeUndefined();
    expect(cache.get(LatestAspectCache.key('urn:a', ['ownership']))).toBeUndefined();
    expect(cache.get(LatestAspectCache.key('urn:b', null))?.rev).toBe(2);
  });

  it('keys: the same names in any order are one copy; a scope keeps copies of another shape apart, and an invalidation drops them too', () => {
    expect(LatestAspectCache.key('urn:a', ['status', 'ownership'])).toBe(LatestAspectCache.key('urn:a', ['ownership', 'status']));
    const page = LatestAspectCache.key('urn:a', ['ownership', 'status'], 'lineagePage');
    expect(page).not.toBe(LatestAspectCache.key('urn:a', ['ownership', 'status']));
    expect(page).not.toBe(LatestAspectCache.key('urn:a', null, 'lineagePage'));
    expect(LatestAspectCache.keyOf('urn:a', LatestAspectCache.namesKey(['status', 'ownership']), 'lineagePage')).toBe(page);
    const cache = new LatestAspectCache(1_000_000);
    cache.set(page, entry(3));
    cache.invalidate(['urn:a']);
    expect(cache.get(page)).toBeUndefined();
  });

  it('a read counts as overtaken by a write to its entity that finished after it began, not by earlier or other ones', () => {
    const cache = new LatestAspectCache(1_000_000);
    cache.invalidate(['urn:a']);
    const ticket = cache.beginRead();
    expect(cache.overtaken('urn:a', ticket)).toBe(false);
    cache.invalidate(['urn:b']);
    expect(cache.overtaken('urn:a', ticket)).toBe(false);
    cache.invalidate(['urn:a']);
    expect(cache.overtaken('urn:a', ticket)).toBe(true);
    const later = cache.beginRead();
    expect(cache.overtaken('urn:a', later)).toBe(false);
    cache.endRead();
    cache.endRead();
  });

  it('an entry evicted for space is forgotten by its entity, so invalidating it later does not touch a newer copy', () => {
    const cache = new LatestAspectCache(1_000);
    cache.set('urn:a', entry(1, 1, 600));
    cache.set('urn:b', entry(2, 1, 600)); // evicts urn:a
    expect(cache.get('urn:a')).toBeUndefined();
    cache.set('urn:a\nownership', entry(3, 1, 10));
    cache.invalidate(['urn:b']);
    expect(cache.get('urn:a\nownership')?.rev).toBe(3);
    cache.invalidate(['urn:a']);
    expect(cache.get('urn:a\nownership')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});

describe('packed aspect rows', () => {
  it('unpack to the rows packed, whatever their text holds', () => {
    const rows = [
      { name: 'datasetProperties', value: JSON.stringify({ description: 'Ünïcode 🚀 and a\nnewline', tags: ['日本語'] }), createdTime: 1_700_000_000_123, createdActor: 'urn:li:corpuser:jdoe', systemMetadata: '{"runId":"r1"}' },
      { name: 'status', value: '{"removed":false}', createdTime: 0, createdActor: '', systemMetadata: null },
      { name: 'odd\nname "quoted"', value: null, createdTime: 5, createdActor: 'urn:li:corpuser:x', systemMetadata: '' },
    ];
    expect(unpackAspectRows(packAspectRows(rows))).toEqual(rows);
    expect(unpackAspectRows(packAspectRows([]))).toEqual([]);
  });

  it('take a buffer of their own, not a slice of a shared pool one cached entry would keep alive', () => {
    const packed = packAspectRows([{ name: 'status', value: '{}', createdTime: 0, createdActor: '', systemMetadata: null }]);
    expect(packed.buffer.byteLength).toBe(packed.length);
  });
});
