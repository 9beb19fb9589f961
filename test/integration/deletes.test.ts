import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, type DatahubClient } from '../support/datahub-client';
import { proposal } from '../support/samples';
import { enc, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * Destructive requests do exactly what they say, or nothing: every field the official client sends to a delete is
 * honoured with DataHub's meaning, and an unknown one is a 400 before anything changes. Each case checks what must
 * survive as well as what went.
 */

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 1);
const day = (i: number) => T0 + i * DAY;
const iso = (ms: number) => new Date(ms).toISOString();

const profile = (i: number) => ({ timestampMillis: day(i), rowCount: 100 + i, columnCount: 3 });

describe('deletes', () => {
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

  const datasetUrn = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;

  async function ingest(urn: string, aspect: string, value: unknown) {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value));
    expect(res.status).toBe(200);
  }

  /** A dataset with properties, tags and three profile rows (days 1, 2, 3). */
  async function seed(name: string) {
    const urn = datasetUrn(name);
    await ingest(urn, 'datasetProperties', { name, description: 'kept' });
    await ingest(urn, 'globalTags', { tags: [{ tag: 'urn:li:tag:pii' }] });
    for (const i of [1, 2, 3]) await ingest(urn, 'datasetProfile', profile(i));
    return urn;
  }

  async function aspects(urn: string) {
    const res = await svc.call('GET', `/entitiesV2/${enc(urn)}`);
    expect(res.status).toBe(200);
    return res.body.aspects as Record<string, { value: any }>;
  }

  async function profileDays(urn: string) {
    const res = await svc.call('POST', '/aspects?action=getTimeseriesAspectValues', { urn, entity: 'dataset', aspect: 'datasetProfile' });
    expect(res.status).toBe(200);
    return (res.body.value.values as { aspect: { value: string } }[]).map((v) => (JSON.parse(v.aspect.value).timestampMillis - T0) / DAY).sort();
  }

  async function tagEdges(urn: string) {
    const res = await svc.call('GET', `/relationships?urn=${enc(urn)}&direction=OUTGOING&types=TaggedWith`);
    expect(res.status).toBe(200);
    return res.body.entities as string[];
  }

  it('a time range of a time-series aspect removes only those rows; the entity and its other aspects stay', async () => {
    const urn = await seed(uniqueId('range'));
    const res = await svc.call('POST', '/entities?action=delete', { urn, aspectName: 'datasetProfile', startTimeMillis: day(2), endTimeMillis: day(2) });
    expect(res.status).toBe(200);
    expect(res.body.value).toEqual({ urn, rows: 0, timeseriesRows: 1 });
    expect(await profileDays(urn)).toEqual([1, 3]);
    const kept = await aspects(urn);
    expect(kept.datasetProperties.value.description).toBe('kept');
    expect(kept.globalTags.value.tags).toEqual([{ tag: 'urn:li:tag:pii' }]);
    expect(await tagEdges(urn)).toEqual(['urn:li:tag:pii']);
  });

  it('open bounds: from a start on, or up to an end', async () => {
    const urn = await seed(uniqueId('open'));
    let res = await svc.call('POST', '/entities?action=delete', { urn, aspectName: 'datasetProfile', startTimeMillis: day(3) });
    expect(res.body.value.timeseriesRows).toBe(1);
    res = await svc.call('POST', '/entities?action=delete', { urn, aspectName: 'datasetProfile', endTimeMillis: day(1) });
    expect(res.body.value.timeseriesRows).toBe(1);
    expect(await profileDays(urn)).toEqual([2]);
  });

  it('a versioned aspect goes with all its versions and edges; the rest of the entity stays', async () => {
    const urn = await seed(uniqueId('aspect'));
    await ingest(urn, 'globalTags', { tags: [{ tag: 'urn:li:tag:pii' }, { tag: 'urn:li:tag:gold' }] });
    const res = await svc.call('POST', '/entities?action=delete', { urn, aspectName: 'globalTags' });
    expect(res.status).toBe(200);
    expect(res.body.value).toEqual({ urn, rows: 2, timeseriesRows: 0 });
    const kept = await aspects(urn);
    expect(kept.globalTags).toBeUndefined();
    expect(kept.datasetProperties.value.description).toBe('kept');
    expect(await tagEdges(urn)).toEqual([]);
    expect(await profileDays(urn)).toEqual([1, 2, 3]);
  });

  it.each([
    ['an unknown field', (urn: string) => ({ urn, hard: true }), /unknown field 'hard'/],
    ['a time range on a versioned aspect', (urn: string) => ({ urn, aspectName: 'globalTags', startTimeMillis: day(1) }), /only to time-series aspects/],
    ['a range whose start is after its end', (urn: string) => ({ urn, aspectName: 'datasetProfile', startTimeMillis: day(3), endTimeMillis: day(1) }), /after endTimeMillis/],
    ['an aspect the entity type does not have', (urn: string) => ({ urn, aspectName: 'chartInfo' }), /chartInfo/],
  ])('%s is refused and changes nothing', async (_name, body, message) => {
    const urn = await seed(uniqueId('refused'));
    const res = await svc.call('POST', '/entities?action=delete', body(urn));
    expect([400, 422]).toContain(res.status);
    expect(res.body.message).toMatch(message);
    const kept = await aspects(urn);
    expect(kept.datasetProperties.value.description).toBe('kept');
    expect(kept.globalTags.value.tags).toHaveLength(1);
    expect(await profileDays(urn)).toEqual([1, 2, 3]);
  });

  it('the whole entity, with a time range: the entity goes, time-series rows outside the range stay (as in DataHub)', async () => {
    const urn = await seed(uniqueId('entity'));
    const other = await seed(uniqueId('bystander'));
    const res = await svc.call('POST', '/entities?action=delete', { urn, startTimeMillis: day(1), endTimeMillis: day(2) });
    expect(res.status).toBe(200);
    expect(res.body.value.timeseriesRows).toBe(2);
    expect(res.body.value.rows).toBeGreaterThanOrEqual(3);
    expect((await svc.call('GET', `/aspects/${enc(urn)}?aspect=datasetKey&version=0`)).status).toBe(404);
    expect(await profileDays(urn)).toEqual([3]);
    expect((await aspects(other)).datasetProperties.value.description).toBe('kept');
    expect(await profileDays(other)).toEqual([1, 2, 3]);
  });

  it('proposal fields the service does not implement are refused, not ignored', async () => {
    const urn = await seed(uniqueId('headers'));
    const body = proposal(urn, 'datasetProperties', { name: 'x', description: 'changed' });
    const res = await svc.call('POST', '/aspects?action=ingestProposal', { ...body, proposal: { ...body.proposal, entityKeyAspect: { name: 'x' } } });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/entityKeyAspect/);
    const batch = await svc.call('POST', '/aspects?action=ingestProposalBatch', { proposals: [{ ...body.proposal, unexpected: 1 }] });
    expect(batch.status).toBe(400);
    expect(batch.body.message).toMatch(/unexpected/);
    expect((await aspects(urn)).datasetProperties.value.description).toBe('kept');
  });

  describe('datahub delete (the official CLI)', () => {
    it('--aspect with --start-time/--end-time removes only the rows in the range', async () => {
      const urn = await seed(uniqueId('cli-range'));
      const run = await client.cli(['delete', '--urn', urn, '--aspect', 'datasetProfile', '--start-time', iso(day(2)), '--end-time', iso(day(3)), '--hard', '-f']);
      expect(run.code).toBe(0);
      expect(await profileDays(urn)).toEqual([1]);
      expect((await aspects(urn)).datasetProperties.value.description).toBe('kept');
    });

    it('--urn soft-deletes by default: status.removed, every aspect kept', async () => {
      const urn = await seed(uniqueId('cli-soft'));
      const run = await client.cli(['delete', '--urn', urn, '-f']);
      expect(run.code).toBe(0);
      const kept = await aspects(urn);
      expect(kept.status.value).toEqual({ removed: true });
      expect(kept.datasetProperties.value.description).toBe('kept');
      expect(await profileDays(urn)).toEqual([1, 2, 3]);
    });

    it('--urn --hard removes the entity and its rows, and nothing else', async () => {
      const urn = await seed(uniqueId('cli-hard'));
      const other = await seed(uniqueId('cli-bystander'));
      const run = await client.cli(['delete', '--urn', urn, '--hard', '-f']);
      expect(run.code).toBe(0);
      expect((await svc.call('GET', `/aspects/${enc(urn)}?aspect=datasetKey&version=0`)).status).toBe(404);
      expect(await profileDays(urn)).toEqual([]);
      expect((await aspects(other)).datasetProperties.value.description).toBe('kept');
      expect(await tagEdges(other)).toEqual(['urn:li:tag:pii']);
    });

    const tokenEnv = async () => ({ DATAHUB_GMS_TOKEN: (await mintToken({ scopes: ['read', 'write'] })).token });

    /** Waits until search shows `expected` for the query (the index follows Neo4j within about a second). */
    async function eventuallyFound(query: string, expected: string[], extra: Record<string, unknown> = {}) {
      const deadline = Date.now() + 15_000;
      let found: string[] = [];
      while (Date.now() < deadline) {
        const res = await svc.call('POST', '/entities?action=search', { input: query, entity: 'dataset', start: 0, count: 100, ...extra });
        found = [...(res.body.value.entities as string[])].sort();
        if (JSON.stringify(found) === JSON.stringify([...expected].sort())) return;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(found).toEqual([...expected].sort());
    }

    it('--urn <container> --recursive removes the container and what it contains, and nothing else', async () => {
      const id = uniqueId('rec').toLowerCase();
      const container = `urn:li:container:${id}`;
      await ingest(container, 'containerProperties', { name: `schema_${id}` });
      const inside = [datasetUrn(`${id}_in1`), datasetUrn(`${id}_in2`)];
      const outside = datasetUrn(`${id}_out`);
      // As sources write them: the container first, so the default browsePathsV2 (what the CLI's filter reads) has it.
      for (const urn of inside) {
        await ingest(urn, 'container', { container });
        await ingest(urn, 'datasetProperties', { name: urn });
      }
      await ingest(outside, 'datasetProperties', { name: outside });
      // The CLI finds the children by search: wait until the index has their container.
      await eventuallyFound(id, inside, { filter: { or: [{ and: [{ field: 'container', value: container, condition: 'EQUAL' }] }] } });
      // Finding what a container holds is a GraphQL search, which always needs a token (as do the filter forms below).
      const run = await client.cli(['delete', '--urn', container, '--recursive', '--hard', '-f'], { env: await tokenEnv() });
      expect(run.code).toBe(0);
      expect(run.stdout + run.stderr).toMatch(/Hard deleted 3 entities/);
      for (const urn of inside) expect((await svc.call('GET', `/aspects/${enc(urn)}?aspect=datasetKey&version=0`)).status).toBe(404);
      expect((await svc.call('GET', `/aspects/${enc(container)}?aspect=containerKey&version=0`)).status).toBe(404);
      expect((await aspects(outside)).datasetProperties.value.name).toBe(outside);
    });

    it('--only-soft-deleted hard-deletes the soft-deleted matches only; --query selects by text', async () => {
      const id = uniqueId('osd').toLowerCase();
      const platform = `p${id}`;
      const urn = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;
      const [live, gone] = [urn(`${id}_live`), urn(`${id}_gone`)];
      for (const u of [live, gone]) await ingest(u, 'datasetProperties', { name: u });
      await ingest(gone, 'status', { removed: true });
      // The CLI finds soft-deleted entities by search: wait until the index has `gone` soft-deleted (not only `live`
      // alone in the default view, which also holds while `gone` is not indexed yet).
      await eventuallyFound(id, [live]);
      const softDeleted = { or: [{ and: [{ field: 'removed', value: 'true', condition: 'EQUAL' }] }] };
      let softDeletedFound: string[] = [];
      for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
        const res = await svc.call('POST', '/entities?action=searchAcrossEntities', { input: id, entities: ['dataset'], start: 0, count: 10, filter: softDeleted });
        softDeletedFound = (res.body.value.entities as { entity: string }[]).map((e) => e.entity);
        if (softDeletedFound.length > 0) break;
      }
      expect(softDeletedFound).toEqual([gone]);
      const run = await client.cli(['delete', '--platform', platform, '--only-soft-deleted', '--hard', '-f'], { env: await tokenEnv() });
      expect(run.code).toBe(0);
      expect(run.stdout + run.stderr).toMatch(/Hard deleted 1 entities/);
      expect((await svc.call('GET', `/aspects/${enc(gone)}?aspect=datasetKey&version=0`)).status).toBe(404);
      expect((await aspects(live)).datasetProperties.value.name).toBe(live);

      await eventuallyFound(`${id}_live`, [live]);
      const byQuery = await client.cli(['delete', '--entity-type', 'dataset', '--query', `${id}_live`, '-f'], { env: await tokenEnv() });
      expect(byQuery.code).toBe(0);
      expect((await aspects(live)).status.value.removed).toBe(true);
      expect((await aspects(live)).datasetProperties.value.name).toBe(live);
    });

    it('--dry-run changes nothing', async () => {
      const urn = await seed(uniqueId('cli-dry'));
      const run = await client.cli(['delete', '--urn', urn, '--hard', '--dry-run']);
      expect(run.code).toBe(0);
      expect((await aspects(urn)).datasetProperties.value.description).toBe('kept');
      expect(await profileDays(urn)).toEqual([1, 2, 3]);
    });
  });
});
