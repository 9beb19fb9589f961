import { createSearchEngine } from '../../src/stores/search/adapters';
import type { EngineName, SearchEngine, SearchResult } from '../../src/stores/search/engine';
import { InvalidInputError } from '../../src/model/errors';
import { engineUrl, uniqueId } from '../support/service';

/**
 * One contract, every real engine: the SearchEngine seam behaves the same through @opensearch-project/opensearch and
 * @elastic/elasticsearch, with the same request bodies. Capabilities the engine lacks are reported, not faked.
 */
describe.each<[EngineName, { reindex: boolean }]>([
  ['opensearch', { reindex: true }],
  ['elasticsearch', { reindex: false }],
])('search seam contract on %s', (engineName, expected) => {
  let engine: SearchEngine;
  const index = `contract_${uniqueId()}`;
  const mappings = { dynamic: false, properties: { urn: { type: 'keyword' }, name: { type: 'text', fields: { keyword: { type: 'keyword' } } }, n: { type: 'long' } } };

  beforeAll(async () => {
    engine = createSearchEngine({ engine: engineName, url: engineUrl(engineName), timeoutMs: 10_000 });
    await engine.createIndex(index, { settings: { number_of_shards: 1, number_of_replicas: 0 }, mappings });
  });
  afterAll(async () => {
    await engine.deleteIndex(`${index}*`);
    await engine.close();
  });

  it('answers ping and reports its capabilities', async () => {
    await expect(engine.ping(2000)).resolves.toBeUndefined();
    expect(engine.engine).toBe(engineName);
    expect(await engine.supportsReindex()).toBe(expected.reindex);
  });

  it('creates indices idempotently and reports existence', async () => {
    await engine.createIndex(index, { mappings });
    expect(await engine.indexExists(index)).toBe(true);
    expect(await engine.indexExists(`${index}_missing`)).toBe(false);
    await engine.putMapping(index, { properties: { extra: { type: 'keyword' } } });
  });

  it('writes in bulk, never letting an older revision overwrite a newer one', async () => {
    const results = await engine.bulk(
      [
        { op: 'index', index, id: 'a', doc: { urn: 'a', name: 'Alpha one', n: 1 }, version: 5 },
        { op: 'index', index, id: 'b', doc: { urn: 'b', name: 'Beta two', n: 2 }, version: 5 },
        { op: 'index', index, id: 'c', doc: { urn: 'c', name: 'Gamma three', n: 3 } },
      ],
      true,
    );
    expect(results.map((r) => [r.id, r.ok])).toEqual([['a', true], ['b', true], ['c', true]]);
    const stale = await engine.bulk([{ op: 'index', index, id: 'a', doc: { urn: 'a', name: 'stale', n: 0 }, version: 4 }], true);
    expect(stale[0]).toMatchObject({ ok: true, superseded: true });
    const same = await engine.bulk([{ op: 'index', index, id: 'b', doc: { urn: 'b', name: 'Beta two again', n: 2 }, version: 5 }], true);
    expect(same[0]).toMatchObject({ ok: true, superseded: false });
    const hit = await engine.search(index, { query: { term: { urn: 'a' } } });
    expect(hit.hits[0].source.name).toBe('Alpha one');
  });

  it('answers several searches in one request, each with its own result or error', async () => {
    const [hits, counted, missingIgnored, missing] = await engine.msearch([
      { index, body: { query: { term: { urn: 'a' } } } },
      { index, body: { size: 0, aggs: { urns: { terms: { field: 'urn', size: 10 } } } } },
      { index: `${index}_missing`, body: { query: { match_all: {} } } },
      { index: `${index}_missing`, body: { query: { match_all: {} } }, ignoreUnavailable: false },
    ]);
    expect(hits).toMatchObject({ total: 1, hits: [{ id: 'a' }] });
    expect(((counted as SearchResult).aggregations?.urns as { buckets: unknown[] }).buckets.length).toBeGreaterThanOrEqual(3);
    expect(missingIgnored).toMatchObject({ total: 0, hits: [] });
    expect(missing).toBeInstanceOf(Error);
    // A body the engine cannot parse fails the whole request, as a single search would.
    await expect(engine.msearch([{ index, body: { query: { match_all: {} } } }, { index, body: { query: { no_such_query: {} } } }])).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('answers searches and counts of an index that is being created, once its primary has started', async () => {
    // The first write of an entity type creates its index; searches of that type in that moment must not fail.
    const failures: string[] = [];
    for (let round = 0; round < 5; round++) {
      const fresh = `${index}_fresh${round}`;
      let creating = true;
      const searching = (async () => {
        let searches = 0;
        while (creating || searches < 3) {
          const [answer] = await engine.msearch([{ index: fresh, body: { size: 0, query: { match_all: {} } } }]);
          if (answer instanceof Error) failures.push(`msearch: ${answer.message}`);
          await engine.search(fresh, { size: 0, query: { match_all: {} } }).catch((err: Error) => failures.push(`search: ${err.message}`));
          await engine.count(fresh).catch((err: Error) => failures.push(`count: ${err.message}`));
          searches++;
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 10));
      await engine.createIndex(fresh, { settings: { number_of_shards: 1, number_of_replicas: 0 }, mappings });
      creating = false;
      await searching;
    }
    await engine.deleteIndex(`${index}_fresh*`);
    expect(failures).toEqual([]);
  });

  it('searches with totals, sorting, aggregations and highlights', async () => {
    const result = await engine.search(index, {
      query: { match_all: {} },
      sort: [{ urn: 'asc' }],
      aggs: { big: { range: { field: 'n', ranges: [{ from: 2 }] } } },
      size: 2,
      highlight: { fields: { name: {} } },
    });
    expect(result.total).toBe(3);
    expect(result.hits.map((h) => h.id)).toEqual(['a', 'b']);
    expect(result.hits[0].sort).toEqual(['a']);
    expect((result.aggregations?.big as { buckets: { doc_count: number }[] }).buckets[0].doc_count).toBe(2);
    const highlighted = await engine.search(index, { query: { match: { name: 'gamma' } }, highlight: { fields: { name: {} } } });
    expect(highlighted.hits[0].highlight?.name?.[0]).toContain('Gamma');
    expect(await engine.count(index, { range: { n: { gte: 2 } } })).toBe(2);
  });

  it('turns a query the engine cannot parse into InvalidInputError', async () => {
    await expect(engine.search(index, { query: { query_string: { query: 'name:(a AND' } } })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('lists indices with sizes and document counts', async () => {
    const rows = await engine.listIndices(`${index}*`);
    expect(rows).toEqual([{ index, sizeBytes: expect.any(Number), docs: 3 }]);
  });

  it('deletes documents in bulk, a missing one included', async () => {
    const results = await engine.bulk([{ op: 'delete', index, id: 'c' }, { op: 'delete', index, id: 'nope' }], true);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(await engine.count(index)).toBe(2);
  });

  it('runs delete-by-query and reindex as tasks where the engine has them', async () => {
    if (!expected.reindex) return;
    const started = await engine.deleteByQuery(index, { term: { urn: 'b' } }, { waitForCompletion: false, batchSize: 100 });
    expect(started.task).toMatch(/^[\w-]+:\d+$/);
    let task = await engine.getTask(started.task!);
    // Polled for up to 10 s: right after other index operations the task can take longer than a tight loop of polls.
    for (let i = 0; i < 200 && !task?.completed; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      task = await engine.getTask(started.task!);
    }
    expect(task).toMatchObject({ completed: true, status: expect.objectContaining({ deleted: 1 }) });
    await engine.refresh(index);
    const copy = await engine.reindex({ source: { index }, dest: { index: `${index}_copy` } }, { waitForCompletion: true, refresh: true });
    expect(copy.created).toBe(1);
    expect(await engine.getTask('nosuchnode:12345')).toBeNull();
  });
});
