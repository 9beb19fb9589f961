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
  /** An engine query the test answers when it likes. */
  function engine() {
    let answer!: (hits: SearchHit[]) => void;
    const query = () => new Promise<SearchHit[]>((resolve) => (answer = resolve));
    return { query, answer: (h: SearchHit[]) => answer(h) };
  }
  const tick = () => new Promise((r) => setImmediate(r));
  const ids = (r: { hits: SearchHit[] }) => r.hits.map((h) => h.id);
  const same = (r: SearchHit[]) => r;

  it('a request alone reads its snapshot beside the engine query', async () => {
    const { reads, store: s } = store();
    const guard = new DeletedHitGuard(s);
    const e = engine();
    const result = guard.run(e.query, same);
    expect(reads).toHaveLength(1);
    reads[0].resolve(['b']);
    e.answer(hits);
    expect(ids(await result)).toEqual(['a', 'c']);
  });

  it('requests that start while others run share one snapshot, read after all of them started', async () => {
    const { reads, store: s } = store();
    const guard = new DeletedHitGuard(s);
    const [e1, e2, e3, e4] = [engine(), engine(), engine(), engine()];
    const first = guard.run(e1.query, same);
    const second = guard.run(e2.query, same);
    const third = guard.run(e3.query, same);
    // Only the first read so far: the others wait to share one.
    expect(reads).toHaveLength(1);
    reads[0].resolve([]);
    e1.answer(hits);
    expect(ids(await first)).toEqual(['a', 'b', 'c']);
    // The second's engine answers: the shared snapshot is read now, after both the second and the third started.
    e2.answer(hits);
    await tick();
    expect(reads).toHaveLength(2);
    // A request starting now (the third still runs) must not use that read: it joins the next one.
    const fourth = guard.run(e4.query, same);
    e3.answer(hits);
    await tick();
    expect(reads).toHaveLength(2);
    reads[1].resolve(['b']);
    expect(ids(await second)).toEqual(['a', 'c']);
    expect(ids(await third)).toEqual(['a', 'c']);
    e4.answer(hits);
    await tick();
    expect(reads).toHaveLength(3);
    reads[2].resolve(['c']);
    expect(ids(await fourth)).toEqual(['a', 'b']);
    // Idle again: the next request reads at once.
    const fifth = guard.run(async () => hits, same);
    expect(reads).toHaveLength(4);
    reads[3].resolve([]);
    expect(ids(await fifth)).toEqual(['a', 'b', 'c']);
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
    await expect(guard.run(async () => hits, same)).rejects.toThrow('unavailable');
    fail = false;
    expect(ids(await guard.run(async () => hits, same))).toEqual(['b', 'c']);
  });

  it('a failed engine query leaves the guard idle: the next request reads at once', async () => {
    const { reads, store: s } = store();
    const guard = new DeletedHitGuard(s);
    await expect(guard.run(async () => Promise.reject(new Error('engine down')), same)).rejects.toThrow('engine down');
    const next = guard.run(async () => hits, same);
    expect(reads).toHaveLength(2);
    reads[1].resolve([]);
    expect(ids(await next)).toEqual(['a', 'b', 'c']);
  });

  it('does not wait for a read when there are no hits', async () => {
    const { reads, store: s } = store();
    expect((await new DeletedHitGuard(s).run(async () => [], same)).hits).toEqual([]);
    expect(reads).toHaveLength(1);
  });
});
