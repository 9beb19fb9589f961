import { DeletedHitGuard } from '../../src/services/search/deleted-hit-guard';
import type { DeletedHitsStore } from '../../src/stores/graph/deleted-hits-store';
import type { SearchHit } from '../../src/stores/search/engine';

/** The guard's sharing of snapshot reads; the reads themselves are covered on real servers (deleted-hits.test.ts). */
describe('DeletedHitGuard snapshot sharing', () => {
  const hit = (id: string): SearchHit => ({ id, index: 'i', score: 1, source: {} });
  const hits = ['a', 'b', 'c'].map(hit);

  function store() {
    const reads: { resolve: (deleted: string[]) => void }[] = [];
    const fake = {
      deletions: () =>
        new Promise<{ deleted: Set<string>; complete: boolean }>((resolve) => {
          reads.push({ resolve: (deleted) => resolve({ deleted: new Set(deleted), complete: true }) });
        }),
      existing: async () => new Set<string>(),
    };
    return { reads, store: fake as unknown as DeletedHitsStore };
  }
  const tick = () => new Promise((r) => setImmediate(r));
  const ids = (list: SearchHit[]) => list.map((h) => h.id);

  it('never gives a request a read that started before it, and shares the next read among the requests waiting', async () => {
    const { reads, store: s } = store();
    const guard = new DeletedHitGuard(s);
    const first = guard.begin();
    expect(reads).toHaveLength(1);
    // Started while the first read is under way: must not use it.
    const second = guard.begin();
    const third = guard.begin();
    expect(reads).toHaveLength(1);
    const firstResult = first(hits);
    const laterResults = Promise.all([second(hits), third(hits)]);
    reads[0].resolve([]);
    expect(ids(await firstResult)).toEqual(['a', 'b', 'c']);
    await tick();
    expect(reads).toHaveLength(2);
    // A delete the first read missed is in the second read.
    reads[1].resolve(['b']);
    expect((await laterResults).map(ids)).toEqual([
      ['a', 'c'],
      ['a', 'c'],
    ]);
    // Idle again: the next request starts a read of its own at once.
    const fourth = guard.begin();
    expect(reads).toHaveLength(3);
    reads[2].resolve(['c']);
    expect(ids(await fourth(hits))).toEqual(['a', 'b']);
  });

  it('a failed read fails the requests waiting for it and does not block later ones', async () => {
    let fail = true;
    const s = {
      deletions: async () => {
        if (fail) throw new Error('Neo4j is unavailable');
        return { deleted: new Set(['a']), complete: true };
      },
      existing: async () => new Set<string>(),
    } as unknown as DeletedHitsStore;
    const guard = new DeletedHitGuard(s);
    await expect(guard.begin()(hits)).rejects.toThrow('unavailable');
    fail = false;
    expect(ids(await guard.begin()(hits))).toEqual(['b', 'c']);
  });

  it('does not wait for a read when there are no hits', async () => {
    const { reads, store: s } = store();
    expect(await new DeletedHitGuard(s).begin()([])).toEqual([]);
    expect(reads).toHaveLength(1);
  });
});
