import { UnavailableError } from '../../src/model/errors';
import type { BulkItemResult, BulkOperation, SearchEngine } from '../../src/stores/search/engine';
import { IndexNames } from '../../src/stores/search/mappings';
import { PendingDeleteMarkers } from '../../src/stores/search/pending-deletes';

/** How concurrent deletes' marks share bulk requests; the markers on a real engine are in deleted-hits.test.ts. */
describe('PendingDeleteMarkers.mark', () => {
  function engine(refuse: (op: BulkOperation) => boolean = () => false) {
    const bulks: { operations: BulkOperation[]; refresh: boolean; answer: () => void }[] = [];
    const fake = {
      indexExists: async () => true,
      bulk: (operations: BulkOperation[], refresh: boolean) =>
        new Promise<BulkItemResult[]>((resolve) => {
          const results = operations.map((o) => ({ id: o.id, index: o.index, ok: !refuse(o), superseded: false, status: refuse(o) ? 403 : 201, error: refuse(o) ? 'cluster_block_exception' : undefined }));
          bulks.push({ operations, refresh, answer: () => resolve(results) });
        }),
    } as unknown as SearchEngine;
    return { bulks, markers: new PendingDeleteMarkers(fake, new IndexNames('p_')) };
  }
  const tick = () => new Promise((r) => setImmediate(r));
  const urnsOf = (ops: BulkOperation[]) => ops.map((o) => (o.op === 'index' ? o.doc.urn : null));

  it('writes refreshed markers, and marks made while one bulk is written share the next', async () => {
    const { bulks, markers } = engine();
    const first = markers.mark(['a']);
    await tick();
    const second = markers.mark(['b', 'c']);
    const third = markers.mark(['d']);
    await tick();
    expect(bulks).toHaveLength(1);
    expect(bulks[0]).toMatchObject({ refresh: true });
    expect(urnsOf(bulks[0].operations)).toEqual(['a']);
    bulks[0].answer();
    expect(await first).toHaveLength(1);
    await tick();
    expect(bulks).toHaveLength(2);
    expect(urnsOf(bulks[1].operations)).toEqual(['b', 'c', 'd']);
    bulks[1].answer();
    const [ids2, ids3] = await Promise.all([second, third]);
    expect(ids2).toEqual(bulks[1].operations.slice(0, 2).map((o) => o.id));
    expect(ids3).toEqual([bulks[1].operations[2].id]);
  });

  it('refuses only the marks whose markers the engine refused', async () => {
    const { bulks, markers } = engine((o) => o.op === 'index' && o.doc.urn === 'bad');
    const blocker = markers.mark(['x']);
    await tick();
    const good = markers.mark(['ok']);
    const bad = markers.mark(['fine', 'bad']);
    bulks[0].answer();
    await blocker;
    await tick();
    bulks[1].answer();
    expect(await good).toHaveLength(1);
    await expect(bad).rejects.toBeInstanceOf(UnavailableError);
  });
});
