import { UnavailableError } from '../../src/model/errors';
import { asksSearchableOnReturn, SearchSync, searchableRequested, writesSearchableIn } from '../../src/services/indexing/search-sync';
import type { SearchEngine } from '../../src/stores/search/engine';
import { IndexNames } from '../../src/stores/search/mappings';

/** An engine whose refreshes finish when the test says so, counting how many were started per index. */
function controlledRefreshes() {
  const started: string[] = [];
  const finishers: (() => void)[] = [];
  const engine = {
    refresh: (index: string) => {
      started.push(index);
      return new Promise<void>((resolve) => finishers.push(resolve));
    },
  } as unknown as SearchEngine;
  const finishNext = async () => {
    finishers.shift()!();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { engine, started, finishNext };
}

const dataset = (n: number) => ({ urn: `urn:li:dataset:(urn:li:dataPlatform:hive,t${n},PROD)`, entityType: 'dataset' });
const indexed = { indexedBy: async () => true };

describe('writes that answer once searchable', () => {
  it("are asked by DataHub's sync header (any case) or a UI source, and by nothing else", () => {
    expect(asksSearchableOnReturn({ headers: { 'X-DataHub-Sync-Index-Update': 'true' } })).toBe(true);
    expect(asksSearchableOnReturn({ headers: { 'x-datahub-sync-index-update': 'TRUE' } })).toBe(true);
    expect(asksSearchableOnReturn({ systemMetadata: { properties: { appSource: 'ui' } } })).toBe(true);
    expect(asksSearchableOnReturn({ headers: { 'X-DataHub-Sync-Index-Update': 'false' } })).toBe(false);
    expect(asksSearchableOnReturn({ headers: { 'If-None-Match': '*' }, systemMetadata: { properties: { appSource: 'cli' } } })).toBe(false);
    expect(asksSearchableOnReturn({ headers: null, systemMetadata: null })).toBe(false);
    expect(asksSearchableOnReturn('not a proposal')).toBe(false);
  });

  it('a scope marks every call inside it, including after awaits, and none outside', async () => {
    expect(searchableRequested()).toBe(false);
    const inside = await writesSearchableIn(async () => {
      await new Promise((r) => setTimeout(r, 1));
      return searchableRequested();
    });
    expect(inside).toBe(true);
    expect(searchableRequested()).toBe(false);
  });

  it('refreshes each written index once the entries are indexed; callers during a refresh share the next one', async () => {
    const { engine, started, finishNext } = controlledRefreshes();
    const sync = new SearchSync(indexed, engine, new IndexNames('t_'), 1000);
    let done = 0;
    const first = sync.untilSearchable([dataset(1), { urn: 'urn:li:tag:pii', entityType: 'tag' }]).then(() => done++);
    await new Promise((r) => setImmediate(r));
    expect(started.sort()).toEqual(['t_datasetindex_v2', 't_tagindex_v2']);
    // Three writes while the dataset index refreshes: one refresh after it serves them all (it sees their documents).
    const later = [2, 3, 4].map((n) => sync.untilSearchable([dataset(n)]).then(() => done++));
    await new Promise((r) => setImmediate(r));
    expect(started).toHaveLength(2);
    await finishNext();
    await finishNext();
    await first;
    expect(done).toBe(1);
    expect(started.filter((i) => i === 't_datasetindex_v2')).toHaveLength(2);
    await finishNext();
    await Promise.all(later);
    expect(done).toBe(4);
    expect(started).toHaveLength(3);
  });

  it('past its time limit says the write is committed but not yet searchable (503), and refreshes nothing', async () => {
    const { engine, started } = controlledRefreshes();
    const sync = new SearchSync({ indexedBy: async () => false }, engine, new IndexNames(''), 250);
    const err = await sync.untilSearchable([dataset(1)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as UnavailableError).status).toBe(503);
    expect((err as Error).message).toMatch(/committed.*250 ms/);
    expect(started).toEqual([]);
  });
});
