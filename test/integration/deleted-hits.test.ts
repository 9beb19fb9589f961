import { DELETE_GRACE_MS } from '../../src/services/indexing/indexer';
import { DeletedHitGuard } from '../../src/services/search/deleted-hit-guard';
import { DeletedHitsStore } from '../../src/stores/graph/deleted-hits-store';
import type { SearchHit } from '../../src/stores/search/engine';
import { proposal } from '../support/samples';
import { engineUrl, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * The deleted-hit guarantee: an entity hard-deleted before a search starts is never in its results, even while the
 * engine still has its document, whichever service process deleted it. Two services share one Neo4j and one index set.
 */
describe('hard-deleted entities in search results', () => {
  const prefix = `delhits${Date.now().toString(36)}_`;
  let a: TestService;
  let b: TestService;
  const id = uniqueId().toLowerCase();
  const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name}_${id},PROD)`;
  const index = `${prefix}datasetindex_v2`;

  async function ingest(svc: TestService, urn: string, name: string) {
    expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'datasetProperties', { name }))).status).toBe(200);
    expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'browsePaths', { paths: [`/g_${id}/${name}`] }))).status).toBe(200);
  }

  /** What search, autocomplete and browse return on one service for this test's names. */
  async function visible(svc: TestService, name: string) {
    const search = await svc.call('POST', '/entities?action=search', { input: `${name}*`, entity: 'dataset', start: 0, count: 50 });
    const autocomplete = await svc.call('POST', '/entities?action=autocomplete', { query: name, entity: 'dataset', limit: 50 });
    const browse = await svc.call('POST', '/entities?action=browse', { path: `/g_${id}`, entity: 'dataset', start: 0, limit: 50 });
    for (const res of [search, autocomplete, browse]) expect(res.status).toBe(200);
    return {
      search: (search.body.value.entities as string[]).sort(),
      autocomplete: (autocomplete.body.value.entities as { urn: string }[]).map((e) => e.urn).sort(),
      browse: (browse.body.value.entities as { urn: string }[]).map((e) => e.urn).sort(),
    };
  }

  const inEngine = async (urn: string) => (await a.search.search(index, { query: { term: { urn } } })).total;

  const outboxEntry = async (urn: string) =>
    (await a.graph.driver.executeQuery('MATCH (o:Outbox {urn: $urn, ns: $ns}) RETURN o.rev AS rev, o.applied AS applied', { urn, ns: prefix }, { database: 'neo4j' })).records[0]?.toObject();

  beforeAll(async () => {
    a = await startTestService({ SEARCH_INDEX_PREFIX: prefix });
    b = await startTestService({ SEARCH_INDEX_PREFIX: prefix });
  });
  afterAll(async () => {
    await a.indexer.stop();
    await b.indexer.stop();
    await a.search.deleteIndex(`${prefix}*`);
    await Promise.all([a.close(), b.close()]);
  });

  it('hides an entity deleted through one service from searches on another while the engine still has its document', async () => {
    const [gone, kept] = [ds('paused_gone'), ds('paused_kept')];
    await ingest(a, gone, `paused_gone_${id}`);
    await ingest(a, kept, `paused_kept_${id}`);
    await a.indexer.waitUntilIndexed([gone, kept]);
    expect((await visible(b, `paused_`)).search).toEqual([gone, kept].sort());
    // No indexer runs: the document stays in the engine.
    await Promise.all([a.indexer.stop(), b.indexer.stop()]);
    expect((await a.call('POST', '/entities?action=delete', { urn: gone })).status).toBe(200);
    expect(await inEngine(gone)).toBe(1);
    for (const svc of [b, a]) expect(await visible(svc, `paused_`)).toEqual({ search: [kept], autocomplete: [kept], browse: [kept] });
    a.indexer.start();
    b.indexer.start();
    await a.indexer.waitUntilIndexed([gone]);
    expect(await inEngine(gone)).toBe(0);
    expect((await visible(b, `paused_`)).search).toEqual([kept]);
  });

  it('keeps hiding it while the engine refuses the delete (index writes blocked)', async () => {
    const gone = ds('blocked_gone');
    await ingest(a, gone, `blocked_gone_${id}`);
    await a.indexer.waitUntilIndexed([gone]);
    await a.search.blockWrites(index);
    try {
      expect((await b.call('POST', '/entities?action=delete', { urn: gone })).status).toBe(200);
      // The indexers try, fail and back off; the entry stays pending.
      await new Promise((r) => setTimeout(r, 1000));
      expect(await inEngine(gone)).toBe(1);
      expect((await outboxEntry(gone))?.applied ?? null).toBeNull();
      for (const svc of [a, b]) expect((await visible(svc, `blocked_`)).search).toEqual([]);
    } finally {
      const res = await fetch(`${engineUrl('opensearch')}/${index}/_settings`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ 'index.blocks.write': false }) });
      expect(res.status).toBe(200);
    }
    await a.indexer.waitUntilIndexed([gone]);
    expect(await inEngine(gone)).toBe(0);
  });

  it('keeps an applied delete in the outbox for the grace period without counting it as pending', async () => {
    const gone = ds('grace_gone');
    await ingest(a, gone, `grace_gone_${id}`);
    await a.indexer.waitUntilIndexed([gone]);
    expect((await a.call('POST', '/entities?action=delete', { urn: gone })).status).toBe(200);
    const started = Date.now();
    await a.indexer.waitUntilIndexed([gone]);
    expect(await inEngine(gone)).toBe(0);
    const entry = await outboxEntry(gone);
    // Applied, not yet acknowledged (unless this machine was very slow to get here).
    if (Date.now() - started < DELETE_GRACE_MS - 200) expect(entry).toEqual({ rev: entry!.rev, applied: entry!.rev });
    const deadline = Date.now() + DELETE_GRACE_MS + 10_000;
    while ((await outboxEntry(gone)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await outboxEntry(gone)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(DELETE_GRACE_MS - 50);
  });

  it('an entity re-created during the grace is searchable again', async () => {
    const urn = ds('again');
    await ingest(a, urn, `again_${id}`);
    await a.indexer.waitUntilIndexed([urn]);
    expect((await a.call('POST', '/entities?action=delete', { urn })).status).toBe(200);
    await a.indexer.waitUntilIndexed([urn]);
    await ingest(b, urn, `again_${id}`);
    await b.indexer.waitUntilIndexed([urn]);
    expect((await visible(a, `again_`)).search).toEqual([urn]);
    expect((await outboxEntry(urn)) ?? null).toBeNull();
  });

  it('checks the hits themselves when the snapshot is truncated or answered too late', async () => {
    const [ghost, live] = [ds('fallback_ghost'), ds('fallback_live')];
    await ingest(a, ghost, `fallback_ghost_${id}`);
    await ingest(a, live, `fallback_live_${id}`);
    await a.indexer.waitUntilIndexed([ghost, live]);
    // Aspects removed behind the service's back: no outbox entry, so only a check of the hits can see it.
    await a.graph.driver.executeQuery('MATCH (a:Aspect {urn: $urn}) DETACH DELETE a', { urn: ghost }, { database: 'neo4j' });
    const hits = [ghost, live].map((urn): SearchHit => ({ id: urn, index, score: 1, source: {} }));
    const store = new DeletedHitsStore(a.graph, prefix);
    for (const options of [{ scanLimit: 0 }, { graceMs: -1 }]) {
      const { hits: kept } = await new DeletedHitGuard(store, options).run(async () => hits, (r) => r);
      expect(kept.map((h) => h.id)).toEqual([live]);
    }
    // The snapshot alone does not see it (what a trusted snapshot relies on is the outbox).
    expect((await new DeletedHitGuard(store).run(async () => hits, (r) => r)).hits.map((h) => h.id)).toEqual([ghost, live]);
    await a.call('POST', '/entities?action=delete', { urn: ghost });
    await a.call('POST', '/entities?action=delete', { urn: live });
  });
});
