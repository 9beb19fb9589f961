import { proposal } from '../support/samples';
import { bearer, enc, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * DataHub's retention policies: dataHubRetentionConfig aspects of urn:li:dataHubRetention:(<entity>,<aspect>) entities
 * decide how much history each later write of an aspect keeps. The suites share one database, so the policies here
 * name the notebook entity type only (no other suite writes notebooks), and are deleted afterwards.
 */
describe('retention policies', () => {
  let svc: TestService;
  let peer: TestService;
  const id = uniqueId('ret');
  const policyUrn = (entity: string, aspect: string) => `urn:li:dataHubRetention:(${entity},${aspect})`;
  const policies = [policyUrn('notebook', 'editableNotebookProperties'), policyUrn('notebook', '*'), policyUrn('*', 'notebookInfo')];
  const stamp = { time: 1_700_000_000_000, actor: 'urn:li:corpuser:tester' };

  beforeAll(async () => {
    [svc, peer] = await Promise.all([startTestService(), startTestService({ RETENTION_POLICY_REFRESH_MS: '200' })]);
  });
  afterAll(async () => {
    for (const urn of policies) await svc?.call('POST', '/entities?action=delete', { urn });
    await Promise.all([svc?.close(), peer?.close()]);
  });

  const setPolicy = (urn: string, retention: Record<string, unknown>, through = svc) =>
    through.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'dataHubRetentionConfig', { retention }));
  const writeVersions = async (urn: string, aspect: 'editableNotebookProperties' | 'notebookInfo', count: number, through = svc) => {
    for (let i = 1; i <= count; i++) {
      const value = aspect === 'notebookInfo' ? { title: `title ${i}`, changeAuditStamps: { created: stamp, lastModified: stamp } } : { created: stamp, lastModified: stamp, description: `version ${i}` };
      expect((await through.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value))).status).toBe(200);
    }
  };
  /** The history versions (1..upTo) still readable. */
  const kept = async (urn: string, aspect: string, upTo: number) => {
    const versions: number[] = [];
    for (let v = 1; v <= upTo; v++) {
      const res = await svc.call('GET', `/aspects/${enc(urn)}?aspect=${aspect}&version=${v}`);
      if (res.status === 200) versions.push(v);
      else expect(res.status).toBe(404);
    }
    return versions;
  };

  it("keeps what the most specific stored policy says, and the service's default where none applies", async () => {
    const notebook = `urn:li:notebook:(querybook,${id}_a)`;
    expect((await setPolicy(policies[0], { version: { maxVersions: 2 } })).status).toBe(200);
    expect((await setPolicy(policies[1], { version: { maxVersions: 3 } })).status).toBe(200);
    // (*, aspect) ranks below (entity, *): notebookInfo of a notebook follows the latter while it exists.
    expect((await setPolicy(policies[2], { version: { maxVersions: 1 } })).status).toBe(200);

    // Six values: history versions 1..5, of which the policy keeps the newest.
    await writeVersions(notebook, 'editableNotebookProperties', 6);
    expect(await kept(notebook, 'editableNotebookProperties', 6)).toEqual([4, 5]);
    await writeVersions(notebook, 'notebookInfo', 6);
    expect(await kept(notebook, 'notebookInfo', 6)).toEqual([3, 4, 5]);
    const latest = await svc.call('GET', `/aspects/${enc(notebook)}?aspect=editableNotebookProperties&version=0`);
    expect(Object.values(latest.body.aspect)[0]).toMatchObject({ description: 'version 6' });

    // Without (notebook, *), notebookInfo follows (*, notebookInfo): the next write trims to one history version.
    expect((await svc.call('POST', '/entities?action=delete', { urn: policies[1] })).status).toBe(200);
    await writeVersions(notebook, 'notebookInfo', 1);
    expect(await kept(notebook, 'notebookInfo', 7)).toEqual([6]);

    // A policy that keeps everything: no count bound at all, beyond the default of 20.
    expect((await setPolicy(policies[2], {})).status).toBe(200);
    const unbounded = `urn:li:notebook:(querybook,${id}_b)`;
    await writeVersions(unbounded, 'notebookInfo', 23);
    expect(await kept(unbounded, 'notebookInfo', 23)).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));

    // With no policy left for it, the service's default (20) applies again.
    expect((await svc.call('POST', '/entities?action=delete', { urn: policies[2] })).status).toBe(200);
    await writeVersions(unbounded, 'notebookInfo', 1);
    expect(await kept(unbounded, 'notebookInfo', 23)).toEqual(Array.from({ length: 20 }, (_, i) => i + 4));
  });

  it('applies a policy written through another process once that process has refreshed', async () => {
    expect((await setPolicy(policies[0], { version: { maxVersions: 1 } }, svc)).status).toBe(200);
    const notebook = `urn:li:notebook:(querybook,${id}_c)`;
    // The peer reads the policies every 200 ms.
    await new Promise((r) => setTimeout(r, 600));
    await writeVersions(notebook, 'editableNotebookProperties', 4, peer);
    expect(await kept(notebook, 'editableNotebookProperties', 4)).toEqual([3]);
  });

  it('applies a tightened policy to stored history at once (applyRetention), without a write of the aspect', async () => {
    const admin = bearer((await mintToken({ scopes: ['admin'] })).token);
    const notebook = `urn:li:notebook:(querybook,${id}_d)`;
    const other = `urn:li:notebook:(querybook,${id}_e)`;
    expect((await svc.call('POST', '/entities?action=delete', { urn: policies[0] })).status).toBe(200);
    await writeVersions(notebook, 'editableNotebookProperties', 6);
    await writeVersions(other, 'editableNotebookProperties', 4);
    await writeVersions(notebook, 'notebookInfo', 3);
    expect(await kept(notebook, 'editableNotebookProperties', 6)).toEqual([1, 2, 3, 4, 5]);

    expect((await setPolicy(policies[0], { version: { maxVersions: 2 } })).status).toBe(200);
    // Nothing is trimmed before the aspect's next write …
    expect(await kept(notebook, 'editableNotebookProperties', 6)).toEqual([1, 2, 3, 4, 5]);
    expect((await svc.call('POST', '/entities?action=applyRetention', { urn: notebook })).status).toBe(401);
    // … unless applyRetention brings it within the policy now: of one entity, then of every entity.
    const one = await svc.call('POST', '/entities?action=applyRetention', { urn: notebook, aspectName: 'editableNotebookProperties' }, admin);
    expect(one.status).toBe(200);
    expect(JSON.parse(one.body.value)).toEqual({ entitiesHandled: 1, aspectsApplied: 1, versionsDeleted: 3, nextStart: null, timeTakenMs: expect.any(Number) });
    expect(await kept(notebook, 'editableNotebookProperties', 6)).toEqual([4, 5]);
    expect(await kept(other, 'editableNotebookProperties', 4)).toEqual([1, 2, 3]);
    // Every entity: a batch per call, walked with nextStart.
    let deleted = 0;
    for (let start: number | null = 0; start !== null; ) {
      const batch = await svc.call('POST', '/entities?action=applyRetention', { aspectName: 'editableNotebookProperties', start, count: 5000 }, admin);
      const result = JSON.parse(batch.body.value) as { versionsDeleted: number; nextStart: number | null };
      deleted += result.versionsDeleted;
      start = result.nextStart;
    }
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect(await kept(other, 'editableNotebookProperties', 4)).toEqual([2, 3]);
    // Other aspects keep their own policy (the default here); as-of reads before what is left are refused.
    expect(await kept(notebook, 'notebookInfo', 3)).toEqual([1, 2]);
    const trimmed = await svc.call('GET', `/aspects/${enc(notebook)}?aspect=editableNotebookProperties&asOfTime=1`);
    expect(trimmed.status).toBe(410);
    expect((await svc.call('POST', '/entities?action=applyRetention', { urn: notebook, attemptWithVersion: 1 }, admin)).status).toBe(400);
  });

  it('refuses a bound that is not positive, and stores nothing', async () => {
    const bad = policyUrn('notebook', 'notebookContent');
    const versions = await setPolicy(bad, { version: { maxVersions: 0 } });
    expect(versions.status).toBe(422);
    expect(versions.body).toMatchObject({ status: 422, exceptionClass: expect.any(String) });
    expect(versions.body.message).toContain('maxVersions');
    const age = await setPolicy(bad, { time: { maxAgeInSeconds: -5 } });
    expect(age.status).toBe(422);
    expect((await svc.call('GET', `/aspects/${enc(bad)}?aspect=dataHubRetentionConfig&version=0`)).status).toBe(404);
  });
});
