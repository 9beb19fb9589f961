import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '../support/datahub-client';
import { deleteEntities, enc, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * The rest of the surface the official client (acryl-datahub) calls, driven through the client itself:
 * deleteReferences (graph client and `datahub delete references`), listUrns, getCount, the legacy usage endpoint and
 * the registry specifications. Effects are checked through the service's own endpoints.
 */

const PYTHON_DIR = join(__dirname, '..', 'python');
const SETUP_TIMEOUT_MS = 15 * 60_000;

describe('the rest of the official client surface', () => {
  let svc: TestService;
  let venv: string;
  let home: string;
  const id = uniqueId('surf');
  const created: string[] = [];

  const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${id}.${name},PROD)`;
  const tag = `urn:li:tag:${id}_gone`;
  const keptTag = `urn:li:tag:${id}_kept`;
  const owner = `urn:li:corpuser:${id}_gone`;
  const keptOwner = `urn:li:corpuser:${id}_kept`;
  const term = `urn:li:glossaryTerm:${id}_gone`;
  const keptTerm = `urn:li:glossaryTerm:${id}_kept`;
  const container = `urn:li:container:${id}`;
  const [a, c, d, up, keptUp] = [ds('a'), ds('c'), ds('d'), ds('up'), ds('kept_up')];
  const stamp = { time: 1700000000000, actor: 'urn:li:corpuser:surface' };

  function clientEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DATAHUB_')) env[k] = v;
    return { ...env, HOME: home, DATAHUB_GMS_URL: svc.url, DATAHUB_SKIP_CONFIG: 'true', DATAHUB_TELEMETRY_ENABLED: 'false', PYTHONIOENCODING: 'utf-8' };
  }

  /** One call of the official client (test/python/surface_check.py); fails the test with the client's error. */
  async function client(call: string, args: Record<string, unknown>): Promise<any> {
    const run = await runProcess(join(venv, 'bin', 'python'), [join(PYTHON_DIR, 'surface_check.py'), svc.url, call, JSON.stringify(args)], clientEnv());
    const line = run.stdout.split('\n').find((l) => l.startsWith('{'));
    const out = line ? JSON.parse(line) : { ok: false, error: `no answer (exit ${run.code}): ${run.stderr.slice(-3000)}` };
    if (!out.ok) throw new Error(`${call}: ${out.error}`);
    return out.result;
  }

  const datahub = (...args: string[]) => runProcess(join(venv, 'bin', 'datahub'), args, clientEnv());

  async function write(urn: string, aspectName: string, value: unknown) {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', {
      proposal: { entityUrn: urn, entityType: urn.split(':')[2], changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } },
    });
    expect(res.status).toBe(200);
    created.push(urn);
  }

  async function aspects(urn: string): Promise<Record<string, any>> {
    const res = await svc.call('GET', `/entitiesV2/${enc(urn)}`);
    expect(res.status).toBe(200);
    return Object.fromEntries(Object.entries(res.body.aspects as Record<string, { value: unknown }>).map(([k, v]) => [k, v.value]));
  }

  async function incoming(urn: string): Promise<{ type: string; entity: string }[]> {
    const res = await svc.call('GET', `/relationships?urn=${enc(urn)}&direction=INCOMING`);
    expect(res.status).toBe(200);
    return res.body.relationships;
  }

  /** Datasets whose search document carries the tag, once the index has caught up with `expected` (or the last answer). */
  async function taggedInSearch(t: string, expected: number): Promise<string[]> {
    const filter = { or: [{ and: [{ field: 'tags', values: [t], condition: 'EQUAL' }] }] };
    let urns: string[] = [];
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      const res = await svc.call('POST', '/entities?action=search', { input: '*', entity: 'dataset', start: 0, count: 10, filter });
      expect(res.status).toBe(200);
      urns = [...(res.body.value.entities as string[])].sort();
      if (urns.length === expected) break;
    }
    return urns;
  }

  const field = (fieldPath: string, tags: string[]) => ({
    fieldPath,
    type: { type: { 'com.linkedin.schema.StringType': {} } },
    nativeDataType: 'string',
    globalTags: { tags: tags.map((t) => ({ tag: t })) },
  });

  beforeAll(async () => {
    svc = await startTestService();
    home = await mkdtemp(join(tmpdir(), 'datahub-surface-home-'));
    const setup = await runProcess('bash', [join(PYTHON_DIR, 'setup-venv.sh')], process.env, { timeout: SETUP_TIMEOUT_MS });
    if (setup.code !== 0) throw new Error(`setup-venv.sh failed (${setup.code}):\n${setup.stderr}`);
    venv = setup.stdout.trim().split('\n').pop()!;

    await write(tag, 'tagProperties', { name: `${id} gone`, description: 'the referenced tag' });
    await write(keptTag, 'tagProperties', { name: `${id} kept` });
    await write(a, 'globalTags', { tags: [{ tag: keptTag }, { tag }] });
    await write(a, 'ownership', { owners: [{ owner, type: 'DATAOWNER' }, { owner: keptOwner, type: 'TECHNICAL_OWNER' }], lastModified: stamp });
    await write(a, 'schemaMetadata', {
      schemaName: 'a',
      platform: 'urn:li:dataPlatform:hive',
      version: 0,
      hash: '',
      platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
      fields: [field('id', [tag, keptTag]), field('name', [tag])],
    });
    await write(a, 'editableSchemaMetadata', {
      editableSchemaFieldInfo: [{ fieldPath: 'id', glossaryTerms: { terms: [{ urn: term }, { urn: keptTerm }], auditStamp: stamp } }],
    });
    await write(a, 'glossaryTerms', { terms: [{ urn: keptTerm }, { urn: term }], auditStamp: stamp });
    await write(a, 'upstreamLineage', { upstreams: [{ dataset: up, type: 'TRANSFORMED' }, { dataset: keptUp, type: 'COPY' }] });
    await write(c, 'globalTags', { tags: [{ tag }] });
    await write(c, 'ownership', { owners: [{ owner, type: 'DATAOWNER' }] });
    await write(container, 'containerProperties', { name: `${id} container` });
    await write(d, 'container', { container });
  }, SETUP_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await deleteEntities(svc.call, new Set(created));
    await svc?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  describe('deleteReferences', () => {
    const references = [
      { relationship: 'SchemaFieldTaggedWith', entity: a, aspect: 'schemaMetadata' },
      { relationship: 'TaggedWith', entity: a, aspect: 'globalTags' },
      { relationship: 'TaggedWith', entity: c, aspect: 'globalTags' },
    ];

    it('a dry run through the graph client lists every reference and changes nothing', async () => {
      const before = await aspects(a);
      const result = await client('delete_references', { urn: tag, dry_run: true });
      expect(result.total).toBe(3);
      expect(result.related).toEqual(expect.arrayContaining(references));
      expect(result.related).toHaveLength(3);
      expect(await aspects(a)).toEqual(before);
      expect((await aspects(c)).globalTags.tags).toEqual([{ tag }]);
      expect(await taggedInSearch(tag, 2)).toEqual([a, c].sort());
    });

    it('`datahub delete references --dry-run` prints them and changes nothing', async () => {
      const run = await datahub('delete', 'references', '--urn', tag, '--dry-run', '-f');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Found 3 references to ${tag}`);
      expect(run.stdout).toContain('SchemaFieldTaggedWith');
      expect((await incoming(tag)).length).toBe(3);
    });

    it('the graph client removes them: the tag leaves every aspect, everything else stays, the tag itself is untouched', async () => {
      const tagBefore = await aspects(tag);
      const result = await client('delete_references', { urn: tag, dry_run: false });
      expect(result.total).toBe(3);

      const after = await aspects(a);
      expect(after.globalTags.tags).toEqual([{ tag: keptTag }]);
      expect(after.schemaMetadata.fields.map((f: any) => [f.fieldPath, f.globalTags.tags])).toEqual([
        ['id', [{ tag: keptTag }]],
        ['name', []],
      ]);
      expect(after.schemaMetadata.schemaName).toBe('a');
      expect(after.ownership.owners.map((o: any) => o.owner)).toEqual([owner, keptOwner]);
      expect(after.glossaryTerms.terms).toEqual([{ urn: keptTerm }, { urn: term }]);
      expect((await aspects(c)).globalTags.tags).toEqual([]);
      expect(await aspects(tag)).toEqual(tagBefore);
      expect(await incoming(tag)).toEqual([]);
      expect(await taggedInSearch(tag, 0)).toEqual([]);
      expect(await taggedInSearch(keptTag, 1)).toEqual([a]);
      expect(await incoming(keptTag)).toEqual([
        { type: 'SchemaFieldTaggedWith', entity: a },
        { type: 'TaggedWith', entity: a },
      ]);

      // The rewrite is a new version of the aspect, as any write.
      const previous = await svc.call('GET', `/aspects/${enc(a)}?aspect=globalTags&version=1`);
      expect(previous.status).toBe(200);
      expect(previous.body.aspect['com.linkedin.common.GlobalTags'].tags).toEqual([{ tag: keptTag }, { tag }]);

      // Nothing is left to remove.
      expect(await client('delete_references', { urn: tag, dry_run: true })).toEqual({ total: 0, related: [] });
    });

    it('`datahub delete references -f` removes an owner from every ownership, keeping the other owners', async () => {
      const run = await datahub('delete', 'references', '--urn', owner, '-f');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Found 2 references to ${owner}`);
      expect((await aspects(a)).ownership.owners).toEqual([{ owner: keptOwner, type: 'TECHNICAL_OWNER' }]);
      expect((await aspects(c)).ownership.owners).toEqual([]);
      expect(await incoming(owner)).toEqual([]);
      expect((await incoming(keptOwner)).map((r) => r.entity)).toEqual([a]);
    });

    it('removes a glossary term from the entity and from nested field infos, and an upstream from lineage', async () => {
      const termResult = await client('delete_references', { urn: term, dry_run: false });
      expect(termResult.total).toBe(2);
      const after = await aspects(a);
      expect(after.glossaryTerms.terms).toEqual([{ urn: keptTerm }]);
      expect(after.editableSchemaMetadata.editableSchemaFieldInfo[0].glossaryTerms.terms).toEqual([{ urn: keptTerm }]);

      const lineage = await client('delete_references', { urn: up, dry_run: false });
      expect(lineage.related).toEqual([{ relationship: 'DownstreamOf', entity: a, aspect: 'upstreamLineage' }]);
      expect((await aspects(a)).upstreamLineage.upstreams).toEqual([{ dataset: keptUp, type: 'COPY' }]);
      const upstreams = await svc.call('GET', `/relationships?urn=${enc(a)}&direction=OUTGOING&types=DownstreamOf`);
      expect(upstreams.body.entities).toEqual([keptUp]);
    });

    it('`datahub delete --hard` of a tag also removes the references to it', async () => {
      const doomed = `urn:li:tag:${id}_doomed`;
      const f = ds('f');
      await write(doomed, 'tagProperties', { name: `${id} doomed` });
      await write(f, 'globalTags', { tags: [{ tag: doomed }, { tag: keptTag }] });
      const run = await datahub('delete', '--urn', doomed, '--hard', '-f');
      expect(run.code).toBe(0);
      expect((await aspects(f)).globalTags.tags).toEqual([{ tag: keptTag }]);
      expect(await incoming(doomed)).toEqual([]);
      expect((await svc.call('GET', `/aspects/${enc(doomed)}?aspect=tagProperties&version=0`)).status).toBe(404);
    });

    it('a required single-valued reference stays, and the answer says so', async () => {
      const dry = await svc.call('POST', '/entities?action=deleteReferences', { urn: container, dryRun: true });
      expect(dry.status).toBe(200);
      const reference = { relationship: 'IsPartOf', entity: d, aspect: 'container' };
      expect(dry.body.value).toMatchObject({ total: 1, relatedAspects: [reference], unremovable: [expect.objectContaining(reference)] });
      const real = await svc.call('POST', '/entities?action=deleteReferences', { urn: container, dryRun: false });
      expect(real.status).toBe(200);
      expect(real.body.value).toMatchObject({ total: 1, removed: 0, unremovable: [expect.objectContaining({ ...reference, reason: expect.stringMatching(/required/) })] });
      expect((await aspects(d)).container).toEqual({ container });
    });

    it('refuses a field it does not implement, and a bad urn, changing nothing', async () => {
      const unknown = await svc.call('POST', '/entities?action=deleteReferences', { urn: keptTag, dryRun: false, force: true });
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toContain("unknown field 'force'");
      expect((await svc.call('POST', '/entities?action=deleteReferences', { urn: 'not-a-urn' })).status).toBe(400);
      expect((await aspects(a)).globalTags.tags).toEqual([{ tag: keptTag }]);
    });
  });

  describe('listing and counting', () => {
    // An entity type no other test writes, so the listing is ours whole.
    const notebook = (n: number) => `urn:li:notebook:(querybook,${id}_${n})`;

    beforeAll(async () => {
      for (const n of [3, 1, 2]) await write(notebook(n), 'notebookInfo', { title: `notebook ${n}`, changeAuditStamps: { created: stamp, lastModified: stamp } });
    });

    it('list_all_entity_urns pages through the entities of one type, ordered by urn', async () => {
      const all: string[] = [];
      for (let start = 0; ; start += 2) {
        const page: string[] = await client('list_all_entity_urns', { entity_type: 'notebook', start, count: 2 });
        all.push(...page);
        if (page.length < 2) break;
      }
      const ours = all.filter((u) => u.includes(id));
      expect(ours).toEqual([notebook(1), notebook(2), notebook(3)]);
      expect([...all].sort()).toEqual(all);
      const res = await svc.call('POST', '/entities?action=listUrns', { entity: 'notebook', start: 0, count: 1 });
      expect(res.body.value).toMatchObject({ start: 0, count: 1, total: all.length });
    });

    it('listUrns refuses an unknown entity type and unknown fields', async () => {
      expect((await svc.call('POST', '/entities?action=listUrns', { entity: 'nope', start: 0, count: 1 })).status).toBe(400);
      const extra = await svc.call('POST', '/entities?action=listUrns', { entity: 'dataset', start: 0, count: 1, filter: {} });
      expect(extra.status).toBe(400);
      expect(extra.body.message).toContain("unknown field 'filter'");
    });

    it('get_aspect_counts counts the entities holding an aspect, narrowed by urnLike', async () => {
      const prefix = `urn:li:dataset:(urn:li:dataPlatform:hive,${id}.%`;
      // a, c and f (of the hard-delete test) carry globalTags.
      expect(await client('get_aspect_counts', { aspect: 'globalTags', urn_like: prefix })).toBe(3);
      expect(await client('get_aspect_counts', { aspect: 'ownership', urn_like: prefix })).toBe(2);
      expect(await client('get_aspect_counts', { aspect: 'container', urn_like: prefix })).toBe(1);
      expect(await client('get_aspect_counts', { aspect: 'globalTags', urn_like: a })).toBe(1);
      expect(await client('get_aspect_counts', { aspect: 'notebookInfo', urn_like: `urn:li:notebook:(querybook,${id}%` })).toBe(3);
      expect(await client('get_aspect_counts', { aspect: 'globalTags' })).toBeGreaterThanOrEqual(3);
      expect((await svc.call('POST', '/aspects?action=getCount', { aspect: 'noSuchAspect' })).status).toBe(400);
    });

    it('get_entity_aspect_specs reads the model from the registry specifications', async () => {
      const specs = await client('get_entity_aspect_specs', { entity_type: 'dataset', aspects: ['globalTags', 'datasetUsageStatistics', 'tagProperties'] });
      expect(specs).toEqual({ entity_types: svc.registry.entities.size, supports: { globalTags: true, datasetUsageStatistics: true, tagProperties: false }, schema_version: null });
      const page = await svc.call('GET', '/openapi/v1/registry/models/entity/specifications?start=0&count=2');
      expect(page.body).toMatchObject({ start: 0, count: 2, total: svc.registry.entities.size });
      expect(page.body.elements[0].keyAspectSpec.aspectAnnotation.name).toBe(page.body.elements[0].keyAspectName);
    });
  });

  describe('legacy usage (/usageStats)', () => {
    const usageDataset = ds('usage');
    const day = 24 * 3_600_000;
    const today = Math.floor(Date.now() / day) * day;
    const bucket = (at: number, users: [string, number][], queries: number) => ({
      bucket: at,
      duration: 'DAY',
      resource: usageDataset,
      metrics: {
        uniqueUserCount: users.length,
        users: users.map(([user, count]) => ({ user: `urn:li:corpuser:${user}`, count })),
        totalSqlQueries: queries,
        topSqlQueries: [`SELECT * FROM t${queries}`],
        fields: [{ fieldName: 'id', count: queries }],
      },
    });

    beforeAll(async () => {
      created.push(usageDataset);
      expect(await client('emit_usage', { buckets: [bucket(today - 2 * day, [['ann', 3], ['bob', 1]], 4), bucket(today - day, [['ann', 2]], 2)] })).toBe(2);
    });

    it('stores each bucket as a datasetUsageStatistics value, read back with getTimeseriesAspectValues', async () => {
      const res = await svc.call('POST', '/aspects?action=getTimeseriesAspectValues', { urn: usageDataset, entity: 'dataset', aspect: 'datasetUsageStatistics' });
      expect(res.status).toBe(200);
      const values = res.body.value.values.map((v: any) => JSON.parse(v.aspect.value));
      expect(values).toEqual([
        {
          timestampMillis: today - day,
          eventGranularity: { unit: 'DAY', multiple: 1 },
          uniqueUserCount: 1,
          totalSqlQueries: 2,
          topSqlQueries: ['SELECT * FROM t2'],
          userCounts: [{ user: 'urn:li:corpuser:ann', count: 2 }],
          fieldCounts: [{ fieldPath: 'id', count: 2 }],
        },
        expect.objectContaining({ timestampMillis: today - 2 * day, userCounts: [{ user: 'urn:li:corpuser:ann', count: 3 }, { user: 'urn:li:corpuser:bob', count: 1 }] }),
      ]);
      // The dataset exists (its key aspect was written with the usage).
      expect((await svc.call('GET', `/aspects/${enc(usageDataset)}?aspect=datasetKey&version=0`)).status).toBe(200);
    });

    it('queryRange answers DataHub\'s UsageQueryResult: buckets, summed users and fields', async () => {
      const res = await svc.call('POST', '/usageStats?action=queryRange', { resource: usageDataset, duration: 'DAY', rangeFromEnd: 'WEEK' });
      expect(res.status).toBe(200);
      expect(res.body.value).toEqual({
        buckets: [
          { bucket: today - 2 * day, duration: 'DAY', resource: usageDataset, metrics: { uniqueUserCount: 2, totalSqlQueries: 4, topSqlQueries: ['SELECT * FROM t4'] } },
          { bucket: today - day, duration: 'DAY', resource: usageDataset, metrics: { uniqueUserCount: 1, totalSqlQueries: 2, topSqlQueries: ['SELECT * FROM t2'] } },
        ],
        aggregations: {
          uniqueUserCount: 2,
          totalSqlQueries: 6,
          users: [
            { user: 'urn:li:corpuser:ann', count: 5 },
            { user: 'urn:li:corpuser:bob', count: 1 },
          ],
          fields: [{ fieldName: 'id', count: 6 }],
        },
      });
      // A range that ends before the buckets holds nothing.
      const past = await svc.call('POST', '/usageStats?action=query', { resource: usageDataset, duration: 'WEEK', endTime: today - 3 * day });
      expect(past.body.value).toEqual({ buckets: [], aggregations: { uniqueUserCount: 0, users: [], fields: [] } });
    });

    it('refuses what it cannot store or does not implement, writing nothing', async () => {
      const noUser = await svc.call('POST', '/usageStats?action=batchIngest', { buckets: [{ ...bucket(today, [], 1), metrics: { users: [{ count: 1, userEmail: 'x@example.com' }] } }] });
      expect(noUser.status).toBe(422);
      const notDataset = await svc.call('POST', '/usageStats?action=batchIngest', { buckets: [{ ...bucket(today, [], 1), resource: keptTag }] });
      expect(notDataset.status).toBe(400);
      const extra = await svc.call('POST', '/usageStats?action=queryRange', { resource: usageDataset, duration: 'DAY', rangeFromEnd: 'WEEK', timeZone: 'UTC' });
      expect(extra.status).toBe(400);
      expect(extra.body.message).toContain("unknown field 'timeZone'");
      const values = await svc.call('POST', '/aspects?action=getTimeseriesAspectValues', { urn: usageDataset, entity: 'dataset', aspect: 'datasetUsageStatistics' });
      expect(values.body.value.values).toHaveLength(2);
    });
  });

  it('`datahub delete by-registry` is refused with a clear message', async () => {
    const res = await svc.call('POST', '/entities?action=deleteAll', { registryId: 'mycompany-dq-model:0.0.1', dryRun: true, soft: false });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/not supported/);
    // The CLI prints the server's message (and exits 0 all the same).
    const run = await datahub('delete', 'by-registry', '--registry-id', 'mycompany-dq-model:0.0.1', '--dry-run');
    expect(run.stdout).toContain('Failed to execute operation');
    expect(run.stdout).toMatch(/deleteAll \(delete by registry id\) is not supported/);
  });
});
