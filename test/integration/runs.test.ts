import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, type DatahubClient } from '../support/datahub-client';
import { proposal } from '../support/samples';
import { enc, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * Ingestion runs, from the version history: `/runs` list, describe and rollback, through the API and the official
 * CLI (`datahub ingest list-runs | show | rollback`). Rollbacks are checked for what must come back and what must stay.
 */
describe('ingestion runs', () => {
  let svc: TestService;
  let client: DatahubClient;

  beforeAll(async () => {
    svc = await startTestService();
    client = await datahubClient(svc.url);
  }, CLIENT_SETUP_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;

  async function ingest(runId: string, urn: string, aspect: string, value: unknown) {
    const body = proposal(urn, aspect, value);
    const res = await svc.call('POST', '/aspects?action=ingestProposal', { proposal: { ...body.proposal, systemMetadata: { runId, lastObserved: Date.now() } } });
    expect(res.status).toBe(200);
  }

  async function latest(urn: string) {
    const res = await svc.call('GET', `/entitiesV2/${enc(urn)}`);
    expect(res.status).toBe(200);
    return res.body.aspects as Record<string, { value: any; version: number; systemMetadata?: { runId: string } }>;
  }

  const exists = async (urn: string) => (await svc.call('GET', `/aspects/${enc(urn)}?aspect=datasetKey&version=0`)).status === 200;

  async function outgoing(urn: string, type: string) {
    const res = await svc.call('GET', `/relationships?urn=${enc(urn)}&direction=OUTGOING&types=${type}`);
    return res.body.entities as string[];
  }

  const runs = (action: string, body: Record<string, unknown>) => svc.call('POST', `/runs?action=${action}`, body);

  const owners = (...users: string[]) => ({ owners: users.map((u) => ({ owner: `urn:li:corpuser:${u}`, type: 'DATAOWNER' })) });

  it('list, describe, and a rollback that takes each aspect back to its previous run and soft-deletes what the run created', async () => {
    const id = uniqueId('r');
    const [runA, runB] = [`${id}-a`, `${id}-b`];
    const [d1, d2, d3] = [dataset(`${id}_one`), dataset(`${id}_two`), dataset(`${id}_three`)];
    await ingest(runA, d1, 'datasetProperties', { name: 'one', description: 'from A' });
    await ingest(runA, d1, 'globalTags', { tags: [{ tag: 'urn:li:tag:a' }] });
    await ingest(runA, d2, 'datasetProperties', { name: 'two', description: 'from A' });
    await ingest(runB, d1, 'datasetProperties', { name: 'one', description: 'from B' });
    await ingest(runB, d1, 'datasetProperties', { name: 'one', description: 'from B again' });
    await ingest(runB, d2, 'ownership', owners('bob'));
    await ingest(runB, d3, 'datasetProperties', { name: 'three', description: 'from B' });

    const listed = await runs('list', { pageOffset: 0, pageSize: 1000 });
    expect(listed.status).toBe(200);
    const byId = new Map((listed.body.value as { runId: string; rows: number; timestamp: number }[]).map((r) => [r.runId, r]));
    // A: d1 key, browsePaths, browsePathsV2, globalTags; d2 key, browsePaths, browsePathsV2, datasetProperties.
    // B: d1 datasetProperties, d2 ownership, d3 key, browsePaths, browsePathsV2, datasetProperties.
    expect(byId.get(runA)?.rows).toBe(8);
    expect(byId.get(runB)?.rows).toBe(6);
    expect(byId.get(runB)!.timestamp).toBeGreaterThan(0);

    const described = await runs('describe', { runId: runB, start: 0, count: 100, includeAspect: true });
    expect(described.status).toBe(200);
    const rows = described.body.value as { urn: string; aspectName: string; runId: string; keyAspect: boolean; aspect?: any }[];
    expect(rows.map((r) => `${r.urn === d1 ? 'd1' : r.urn === d2 ? 'd2' : 'd3'}.${r.aspectName}`).sort()).toEqual(
      ['d1.datasetProperties', 'd2.ownership', 'd3.browsePaths', 'd3.browsePathsV2', 'd3.datasetKey', 'd3.datasetProperties'].sort(),
    );
    expect(rows.every((r) => r.runId === runB)).toBe(true);
    expect(rows.find((r) => r.aspectName === 'datasetKey')?.keyAspect).toBe(true);
    expect(rows.find((r) => r.urn === d1)?.aspect).toEqual({ name: 'one', description: 'from B again' });

    const dry = await runs('rollback', { runId: runB, dryRun: true });
    expect(dry.status).toBe(200);
    // A safe rollback keeps key aspects (DataHub's soft rollback): d3's is neither reverted nor listed.
    expect(dry.body.value).toMatchObject({ entitiesAffected: 3, entitiesDeleted: 1, aspectsReverted: 5, unsafeEntitiesCount: 0 });
    expect(dry.body.value.aspectRowSummaries.map((r: { aspectName: string }) => r.aspectName)).not.toContain('datasetKey');
    expect(await exists(d3)).toBe(true);
    expect((await latest(d1)).datasetProperties.value.description).toBe('from B again');

    const rolled = await runs('rollback', { runId: runB, dryRun: false, safe: true });
    expect(rolled.status).toBe(200);
    expect(rolled.body.value).toMatchObject({ entitiesAffected: 3, entitiesDeleted: 1, aspectsReverted: 5 });

    // d1: back to A's value, with A's system metadata; B's two versions are gone from the history.
    const one = await latest(d1);
    expect(one.datasetProperties.value.description).toBe('from A');
    expect(one.datasetProperties.systemMetadata?.runId).toBe(runA);
    expect(one.globalTags.value.tags).toEqual([{ tag: 'urn:li:tag:a' }]);
    expect((await svc.call('GET', `/aspects/${enc(d1)}?aspect=datasetProperties&version=1`)).status).toBe(404);
    // d2: B's ownership (the only version) goes with its edge; A's aspects stay.
    const two = await latest(d2);
    expect(two.ownership).toBeUndefined();
    expect(two.datasetProperties.value.description).toBe('from A');
    expect(await outgoing(d2, 'OwnedBy')).toEqual([]);
    // d3: created by B, soft-deleted as DataHub's safe rollback leaves it: its key stays, its status says removed, B's
    // aspects are gone.
    expect(await exists(d3)).toBe(true);
    const three = await latest(d3);
    expect(three.status.value).toEqual({ removed: true });
    expect(three.datasetProperties).toBeUndefined();

    // Nothing of B is left; a repeat changes nothing.
    expect((await runs('describe', { runId: runB, start: 0, count: 100 })).body.value).toEqual([]);
    const again = await runs('rollback', { runId: runB });
    expect(again.body.value).toMatchObject({ entitiesAffected: 0, aspectsReverted: 0 });
    expect((await latest(d1)).datasetProperties.value.description).toBe('from A');
  });

  it("leaves a soft-deleted entity's aspects out of list and describe, its status aspect too, unless asked for", async () => {
    const id = uniqueId('soft');
    const run = `${id}-run`;
    const [kept, removed] = [dataset(`${id}_kept`), dataset(`${id}_removed`)];
    await ingest(run, kept, 'datasetProperties', { name: 'kept' });
    await ingest(run, removed, 'datasetProperties', { name: 'removed' });
    // The run itself soft-deletes the second (as stateful ingestion does): its status aspect is the run's too.
    await ingest(run, removed, 'status', { removed: true });

    const rowsOf = async (includeSoft: boolean) => ((await runs('list', { pageOffset: 0, pageSize: 1000, includeSoft })).body.value as { runId: string; rows: number }[]).find((r) => r.runId === run)?.rows;
    // kept: key, browsePaths, browsePathsV2, datasetProperties; removed: the same and its status.
    expect(await rowsOf(false)).toBe(4);
    expect(await rowsOf(true)).toBe(9);
    const describedUrns = async (includeSoft: boolean) => [...new Set(((await runs('describe', { runId: run, start: 0, count: 100, includeSoft })).body.value as { urn: string }[]).map((r) => r.urn))].sort();
    expect(await describedUrns(false)).toEqual([kept]);
    expect(await describedUrns(true)).toEqual([kept, removed].sort());
  });

  it('rollbacks of consecutive runs peel them off one at a time, edges following', async () => {
    const id = uniqueId('chain');
    const urn = dataset(id);
    await ingest(`${id}-1`, urn, 'ownership', owners('ann'));
    await ingest(`${id}-2`, urn, 'ownership', owners('ann', 'bob'));
    await ingest(`${id}-3`, urn, 'ownership', owners('cid'));
    expect(await outgoing(urn, 'OwnedBy')).toEqual(['urn:li:corpuser:cid']);
    await runs('rollback', { runId: `${id}-3` });
    expect((await outgoing(urn, 'OwnedBy')).sort()).toEqual(['urn:li:corpuser:ann', 'urn:li:corpuser:bob']);
    await runs('rollback', { runId: `${id}-2` });
    expect(await outgoing(urn, 'OwnedBy')).toEqual(['urn:li:corpuser:ann']);
    expect((await latest(urn)).ownership.systemMetadata?.runId).toBe(`${id}-1`);
  });

  it("safe soft-deletes an entity the run created, keeping other runs' aspects (reported unsafe); nuke removes it", async () => {
    const id = uniqueId('safe');
    const urn = dataset(id);
    await ingest(`${id}-c`, urn, 'datasetProperties', { name: id, description: 'from C' });
    await ingest(`${id}-d`, urn, 'globalTags', { tags: [{ tag: 'urn:li:tag:d' }] });

    const kept = await runs('rollback', { runId: `${id}-c`, safe: true });
    expect(kept.body.value).toMatchObject({ entitiesDeleted: 1, unsafeEntitiesCount: 1, unsafeEntities: [{ urn }], aspectsAffected: 1 });
    const after = await latest(urn);
    expect(after.datasetProperties).toBeUndefined();
    expect(after.globalTags.value.tags).toEqual([{ tag: 'urn:li:tag:d' }]);
    expect(after.status.value).toEqual({ removed: true });
    expect(await exists(urn)).toBe(true);
    // A repeat leaves the soft-deleted entity alone.
    expect((await runs('rollback', { runId: `${id}-c` })).body.value).toMatchObject({ entitiesAffected: 0, entitiesDeleted: 0 });

    const nuked = await runs('rollback', { runId: `${id}-c`, safe: false });
    expect(nuked.body.value).toMatchObject({ entitiesDeleted: 1, unsafeEntitiesCount: 1 });
    expect(await exists(urn)).toBe(false);
  });

  it('refuses the default run id and unknown fields, changing nothing', async () => {
    const urn = dataset(uniqueId('norun'));
    const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'datasetProperties', { name: 'x' }));
    expect(res.status).toBe(200);
    const refused = await runs('rollback', { runId: 'no-run-id-provided' });
    expect(refused.status).toBe(400);
    const unknown = await runs('rollback', { runId: 'no-run-id-provided', everything: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/everything/);
    expect(await exists(urn)).toBe(true);
  });

  it('a write without a run id takes an aspect out of the run that wrote it before (the default run id is no run)', async () => {
    const id = uniqueId('unrun');
    const urn = dataset(id);
    await ingest(`${id}-a`, urn, 'datasetProperties', { name: id, description: 'from A' });
    await ingest(`${id}-a`, urn, 'globalTags', { tags: [{ tag: 'urn:li:tag:a' }] });
    const plain = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'globalTags', { tags: [{ tag: 'urn:li:tag:plain' }] }));
    expect(plain.status).toBe(200);

    const shown = await runs('describe', { runId: `${id}-a`, start: 0, count: 10 });
    expect(shown.body.value.map((r: { aspectName: string }) => r.aspectName).sort()).toEqual(['browsePaths', 'browsePathsV2', 'datasetKey', 'datasetProperties']);
    expect((await runs('list', { pageOffset: 0, pageSize: 100 })).body.value.map((r: { runId: string }) => r.runId)).not.toContain('no-run-id-provided');

    // The run created the entity but another writer (no run) wrote to it since: safe soft-deletes it, with the plain write kept.
    const kept = await runs('rollback', { runId: `${id}-a`, safe: true });
    expect(kept.body.value).toMatchObject({ entitiesDeleted: 1, unsafeEntitiesCount: 1 });
    const after = await latest(urn);
    expect(after.datasetProperties).toBeUndefined();
    expect(after.globalTags.value.tags).toEqual([{ tag: 'urn:li:tag:plain' }]);
    expect(after.status.value).toEqual({ removed: true });
  });

  it('the official CLI: list-runs, show, rollback --dry-run and rollback, after a datahub ingest', async () => {
    const id = uniqueId('cli');
    const runId = `${id}-run`;
    const urns = [dataset(`${id}_x`), dataset(`${id}_y`)];
    const mcps = urns.map((urn) => ({
      entityType: 'dataset',
      entityUrn: urn,
      changeType: 'UPSERT',
      aspectName: 'datasetProperties',
      aspect: { json: { name: urn, description: 'from the file source' } },
    }));
    const file = join(client.home, `${id}.json`);
    await writeFile(file, JSON.stringify(mcps));
    const recipe = join(client.home, `${id}.yml`);
    await writeFile(recipe, `run_id: ${runId}\nsource:\n  type: file\n  config:\n    path: ${file}\nsink:\n  type: datahub-rest\n  config:\n    server: ${svc.url}\n`);
    const ingested = await client.cli(['ingest', '-c', recipe]);
    expect(ingested.code).toBe(0);
    for (const urn of urns) expect(await exists(urn)).toBe(true);

    const list = await client.cli(['ingest', 'list-runs']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(runId);

    const show = await client.cli(['ingest', 'show', '--run-id', runId]);
    expect(show.code).toBe(0);
    for (const urn of urns) expect(show.stdout).toContain(urn);

    const dry = await client.cli(['ingest', 'rollback', '--run-id', runId, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/will delete 2 entities/);
    for (const urn of urns) expect(await exists(urn)).toBe(true);

    const rollback = await client.cli(['ingest', 'rollback', '--run-id', runId, '-f']);
    expect(rollback.code).toBe(0);
    expect(rollback.stdout).toMatch(/deleted 2 entities/);
    expect(rollback.stdout).not.toMatch(/Failed/);
    // Soft-deleted, as DataHub's default (safe) rollback leaves them: `datahub get` still finds them.
    for (const urn of urns) {
      expect(await exists(urn)).toBe(true);
      expect((await latest(urn)).status.value).toEqual({ removed: true });
    }
    const got = await client.cli(['get', '--urn', urns[0], '-a', 'datasetProperties']);
    expect([got.code, JSON.parse(got.stdout)]).toEqual([0, {}]);

    const nuke = await client.cli(['ingest', 'rollback', '--run-id', runId, '--nuke', '-f']);
    expect(nuke.code).toBe(0);
    for (const urn of urns) expect(await exists(urn)).toBe(false);
  });
});
