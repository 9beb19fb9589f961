import { LatestAspectCache } from '../../src/stores/graph/latest-aspect-cache';

const entry = (rev: number, epoch = 1) => ({ rev, bytes: 100, aspects: [], epoch });

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
    cache.set('urn:a', { ...entry(1), bytes: 600 });
    cache.set('urn:b', { ...entry(2), bytes: 600 }); // evicts urn:a
    expect(cache.get('urn:a')).toBeUndefined();
    cache.set('urn:a\nownership', { ...entry(3), bytes: 10 });
    cache.invalidate(['urn:b']);
    expect(cache.get('urn:a\nownership')?.rev).toBe(3);
    cache.invalidate(['urn:a']);
    expect(cache.get('urn:a\nownership')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
