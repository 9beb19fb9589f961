import { DeletedHitGuard } from '../../src/services/search/deleted-hit-guard';
import type { DeletedHitsStore } from '../../src/stores/graph/deleted-hits-store';
import type { MultiSearchRequest, SearchEngine, SearchHit, SearchResult } from '../../src/stores/search/engine';
import { IndexNames } from '../../src/stores/search/mappings';
import { PendingDeleteMarkers } from '../../src/stores/search/pending-deletes';

/** What the guard decides from an engine answer; the markers' life on real servers is in deleted-hits.test.ts. */
describe('DeletedHitGuard', () => {
  const hit = (id: string): SearchHit => ({ id, index: 'p_datasetindex_v2', score: 1, source: {} });
  const hits = ['a', 'b', 'c'].map(hit);
  const result = (h: SearchHit[]): SearchResult => ({ total: h.length, hits: h });
  const marked = (urns: string[], more = 0): SearchResult => ({
    total: urns.length + more,
    hits: [],
    aggregations: { urns: { buckets: urns.map((key) => ({ key, doc_count: 1 })), sum_other_doc_count: more } },
  });

  /** An engine answering msearch with `answers` and recording what it was sent, and a Neo4j in which `live` exist. */
  function setup(answers: (SearchResult | Error)[], live: string[] = []) {
    const sent: MultiSearchRequest[][] = [];
    const checked: string[][] = [];
    const engine = {
      msearch: async (requests: MultiSearchRequest[]) => {
        sent.push(requests);
        return answers;
      },
    } as unknown as SearchEngine;
    const store = {
      existing: async (urns: string[]) => {
        checked.push(urns);
        return new Set(urns.filter((u) => live.includes(u)));
      },
    } as unknown as DeletedHitsStore;
    const markers = new PendingDeleteMarkers(engine, new IndexNames('p_'));
    return { sent, checked, guard: (graceMs?: number) => new DeletedHitGuard(engine, markers, store, { graceMs }) };
  }
  const request: MultiSearchRequest = { index: 'p_datasetindex_v2', body: { query: { match_all: {} } } };
  const ids = (r: { hits: SearchHit[] }) => r.hits.map((h) => h.id);
  const first = ([r]: SearchResult[]) => r.hits;

  it('sends the marker read in the same engine request and asks Neo4j nothing when no hit is marked', async () => {
    const { sent, checked, guard } = setup([result(hits), marked(['x'])]);
    expect(ids(await guard().search([request], first))).toEqual(['a', 'b', 'c']);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toEqual([request, expect.objectContaining({ index: 'p_pending_deletes_v1', ignoreUnavailable: false })]);
    expect(checked).toEqual([]);
  });

  it('checks only the marked hits against Neo4j and drops those that are gone', async () => {
    const { checked, guard } = setup([result(hits), marked(['b', 'c'])], ['c']);
    expect(ids(await guard().search([request], first))).toEqual(['a', 'c']);
    expect(checked).toEqual([['b', 'c']]);
  });

  it('checks every hit when the markers are more than one read returns, failed, or came too late', async () => {
    for (const [answers, graceMs] of [
      [[result(hits), marked(['b'], 5)], undefined],
      [[result(hits), Object.assign(new Error('index_not_found_exception'), { name: 'ResponseError' })], undefined],
      [[result(hits), marked([])], -1],
    ] as [(SearchResult | Error)[], number | undefined][]) {
      const { checked, guard } = setup(answers, ['a', 'b']);
      expect(ids(await guard(graceMs).search([request], first))).toEqual(['a', 'b']);
      expect(checked).toEqual([['a', 'b', 'c']]);
    }
  });

  it('fails with the error of a search of the request', async () => {
    const { guard } = setup([new Error('The search query could not be parsed'), marked([])]);
    await expect(guard().search([request], first)).rejects.toThrow('could not be parsed');
  });

  it('asks Neo4j nothing when there are no hits', async () => {
    const { checked, guard } = setup([result([]), Object.assign(new Error('failed'), {})]);
    expect((await guard().search([request], first)).hits).toEqual([]);
    expect(checked).toEqual([]);
  });
});
