import { DELETE_GRACE_MS, MARKER_SWEEP_AGE_MS } from '../../src/services/indexing/indexer';
import { DeletedHitGuard } from '../../src/services/search/deleted-hit-guard';
import { DeletedHitsStore } from '../../src/stores/graph/deleted-hits-store';
import { IndexNames } from '../../src/stores/search/mappings';
import { PendingDeleteMarkers } from '../../src/stores/search/pending-deletes';
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
    expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'browsePaths', { paths: [`/g_${id}`] }))).status).toBe(200);
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

  it('checks the hits themselves when the markers are not trusted (answered too late)', async () => {
    const [ghost, live] = [ds('fallback_ghost'), ds('fallback_live')];
    await ingest(a, ghost, `fallback_ghost_${id}`);
    await ingest(a, live, `fallback_live_${id}`);
    await a.indexer.waitUntilIndexed([ghost, live]);
    // Aspects removed behind the service's back: no marker, so only a check of the hits can see it.
    await a.graph.driver.executeQuery('MATCH (a:Aspect {urn: $urn}) DETACH DELETE a', { urn: ghost }, { database: 'neo4j' });
    const guard = (graceMs?: number) => new DeletedHitGuard(a.search, markers(), new DeletedHitsStore(a.graph), { graceMs });
    const run = (g: DeletedHitGuard) => g.search([{ index, body: { query: { terms: { urn: [ghost, live] } }, sort: [{ urn: 'asc' }] } }], ([r]) => r.hits);
    expect((await run(guard(-1))).hits.map((h) => h.id)).toEqual([live]);
    // Trusted markers alone do not see it (what they rely on is that every delete marks first).
    expect((await run(guard())).hits.map((h) => h.id)).toEqual([ghost, live].sort());
    await a.call('POST', '/entities?action=delete', { urn: ghost });
    await a.call('POST', '/entities?action=delete', { urn: live });
  });

  const markers = () => new PendingDeleteMarkers(a.search, new IndexNames(prefix));
  const markerUrns = async () => {
    await a.search.refresh(markers().index);
    return (await a.search.search(markers().index, { size: 100, query: { match_all: {} } })).hits.map((h) => ({ id: h.id, urn: h.source.urn }));
  };

  it('marks a deleted entity before the commit and removes the marker only after the grace that follows the engine delete', async () => {
    const gone = ds('marker_gone');
    await ingest(a, gone, `marker_gone_${id}`);
    await a.indexer.waitUntilIndexed([gone]);
    await Promise.all([a.indexer.stop(), b.indexer.stop()]);
    try {
      expect((await b.call('POST', '/entities?action=delete', { urn: gone })).status).toBe(200);
      const mine = (await markerUrns()).filter((m) => m.urn === gone);
      expect(mine).toHaveLength(1);
      const entry = await a.graph.driver.executeQuery('MATCH (o:Outbox {urn: $urn, ns: $ns}) RETURN o.markers AS markers', { urn: gone, ns: prefix }, { database: 'neo4j' });
      expect(entry.records[0].get('markers')).toEqual([mine[0].id]);
    } finally {
      a.indexer.start();
      b.indexer.start();
    }
    await a.indexer.waitUntilIndexed([gone]);
    const applied = Date.now();
    expect(await inEngine(gone)).toBe(0);
    const deadline = Date.now() + DELETE_GRACE_MS + 10_000;
    while ((await markerUrns()).some((m) => m.urn === gone) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect((await markerUrns()).some((m) => m.urn === gone)).toBe(false);
    expect(Date.now() - applied).toBeGreaterThanOrEqual(DELETE_GRACE_MS - 200);
  });

  it('refuses a delete the engine cannot mark, and changes nothing', async () => {
    const kept = ds('unmarked_kept');
    await ingest(a, kept, `unmarked_kept_${id}`);
    await a.indexer.waitUntilIndexed([kept]);
    const markerIndex = markers().index;
    await a.search.blockWrites(markerIndex);
    try {
      const res = await a.call('POST', '/entities?action=delete', { urn: kept });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 503, message: expect.stringContaining('nothing was deleted'), exceptionClass: 'UnavailableError' });
      const aspectDelete = await a.call('POST', '/aspects?action=ingestProposal', proposal(kept, 'browsePaths', null, 'DELETE'));
      expect(aspectDelete.status).toBe(503);
    } finally {
      const res = await fetch(`${engineUrl('opensearch')}/${markerIndex}/_settings`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ 'index.blocks.write': false }) });
      expect(res.status).toBe(200);
    }
    expect((await a.call('GET', `/aspects/${encodeURIComponent(kept)}?aspect=browsePaths&version=0`)).status).toBe(200);
    expect((await visible(b, `unmarked_`)).search).toEqual([kept]);
  });

  it('sweeps old markers that no outbox entry holds, and keeps the others', async () => {
    const [orphan, held, recent] = [ds('sweep_orphan'), ds('sweep_held'), ds('sweep_recent')];
    const old = Date.now() - MARKER_SWEEP_AGE_MS - 60_000;
    const [orphanId, heldId] = await markers().mark([orphan, held], old);
    const [recentId] = await markers().mark([recent]);
    await a.graph.driver.executeQuery('CREATE (:Outbox {urn: $urn, ns: $ns, rev: 1, updatedAt: 0, claimUntil: 9e15, markers: [$id]})', { urn: held, ns: prefix, id: heldId }, { database: 'neo4j' });
    try {
      await a.indexer.sweepMarkers(true);
      const left = (await markerUrns()).map((m) => m.id);
      expect(left).not.toContain(orphanId);
      expect(left).toEqual(expect.arrayContaining([heldId, recentId]));
    } finally {
      await a.graph.driver.executeQuery('MATCH (o:Outbox {urn: $urn, ns: $ns}) DELETE o', { urn: held, ns: prefix }, { database: 'neo4j' });
      await markers().remove([heldId, recentId]);
    }
  });
});
