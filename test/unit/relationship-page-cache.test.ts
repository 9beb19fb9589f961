import { RelationshipPageCache } from '../../src/stores/graph/relationship-page-cache';

const page = { total: 2, rows: ['OwnedBy|urn:li:dataset:a', 'OwnedBy|urn:li:dataset:b'] };
const key = RelationshipPageCache.key('INCOMING', 'urn:li:corpuser:o', ['OwnedBy'], 0, 100);

describe('RelationshipPageCache', () => {
  it('serves a page only in the epoch it was read in', () => {
    const cache = new RelationshipPageCache(1_000_000);
    cache.set(key, page, 3, cache.beginRead());
    expect(cache.get(key, 3)).toMatchObject(page);
    expect(cache.get(key, 4)).toBeUndefined();
  });

  it('drops every page on any write, and keeps nothing from a read that an invalidation overtook', () => {
    const cache = new RelationshipPageCache(1_000_000);
    const other = RelationshipPageCache.key('OUTGOING', 'urn:li:dataset:a', [], 0, 100);
    cache.set(key, page, 1, cache.beginRead());
    cache.set(other, page, 1, cache.beginRead());
    const overtaken = cache.beginRead();
    cache.invalidate();
    expect(cache.get(key, 1)).toBeUndefined();
    expect(cache.get(other, 1)).toBeUndefined();
    cache.set(key, page, 1, overtaken);
    expect(cache.get(key, 1)).toBeUndefined();
    cache.set(key, page, 1, cache.beginRead());
    expect(cache.get(key, 1)).toMatchObject(page);
  });

  it('keys pages by direction, entity, page and the set of types (not their order)', () => {
    expect(RelationshipPageCache.key('INCOMING', 'u', ['A', 'B'], 0, 10)).toBe(RelationshipPageCache.key('INCOMING', 'u', ['B', 'A'], 0, 10));
    const keys = new Set([
      RelationshipPageCache.key('INCOMING', 'u', ['A'], 0, 10),
      RelationshipPageCache.key('OUTGOING', 'u', ['A'], 0, 10),
      RelationshipPageCache.key('INCOMING', 'v', ['A'], 0, 10),
      RelationshipPageCache.key('INCOMING', 'u', ['A'], 10, 10),
      RelationshipPageCache.key('INCOMING', 'u', ['A'], 0, 20),
      RelationshipPageCache.key('INCOMING', 'u', [], 0, 10),
    ]);
    expect(keys.size).toBe(6);
  });

  it('stays within its size, evicting the least recently used page', () => {
    const cache = new RelationshipPageCache(2_000);
    const big = { total: 10, rows: Array.from({ length: 10 }, (_, i) => `OwnedBy|urn:li:dataset:table_${i}`) };
    for (let i = 0; i < 5; i++) cache.set(`k${i}`, big, 1, cache.beginRead());
    expect(cache.size).toBeLessThan(5);
    expect(cache.get('k4', 1)).toBeDefined();
    expect(cache.get('k0', 1)).toBeUndefined();
  });
});
