import { deleteEntities, enc, startTestService, uniqueId, type TestService } from '../support/service';
import { proposal, samples } from '../support/samples';

describe('entities, versioned aspects and relationships', () => {
  let svc: TestService;
  const created: string[] = [];
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    await deleteEntities(svc.call, created);
    await svc.close();
  });

  async function ingestSnapshot(snapshot: unknown) {
    const res = await svc.call('POST', '/entities?action=ingest', { entity: { value: snapshot } });
    expect(res).toMatchObject({ status: 200 });
    const urn = (Object.values(snapshot as object)[0] as { urn: string }).urn;
    created.push(urn);
    return urn;
  }

  async function propose(urn: string, aspect: string, value: unknown, changeType = 'UPSERT') {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value, changeType), { 'X-RestLi-Protocol-Version': '2.0.0' });
    if (!created.includes(urn)) created.push(urn);
    return res;
  }

  async function related(urn: string, direction: string, types: string) {
    const res = await svc.call('GET', `/relationships?direction=${direction}&urn=${enc(urn)}&types=${types}`);
    expect(res.status).toBe(200);
    return [...res.body.entities].sort();
  }

  describe('sample entities through the legacy snapshot path', () => {
    const s = samples(uniqueId());
    beforeAll(async () => {
      for (const snap of Object.values(s.snapshots)) await ingestSnapshot(snap);
    });

    it('answers entitiesV2 with every aspect, the key aspect included, in the documented envelope', async () => {
      const { status, body } = await svc.call('GET', `/entitiesV2/${enc(s.urns.dataset)}`, undefined, { 'X-RestLi-Protocol-Version': '2.0.0' });
      expect(status).toBe(200);
      expect(body.urn).toBe(s.urns.dataset);
      expect(body.entityName).toBe('dataset');
      expect(Object.keys(body.aspects).sort()).toEqual(
        ['browsePaths', 'browsePathsV2', 'datasetKey', 'editableSchemaMetadata', 'globalTags', 'institutionalMemory', 'ownership', 'schemaMetadata', 'status', 'upstreamLineage'].sort(),
      );
      expect(body.aspects.datasetKey.value).toEqual({ platform: s.urns.platform, name: s.urns.dataset.split(',')[1], origin: 'PROD' });
      expect(body.aspects.ownership).toMatchObject({
        name: 'ownership',
        type: 'VERSIONED',
        version: 0,
        value: { owners: [{ owner: s.urns.user, type: 'DATAOWNER' }] },
        created: { time: expect.any(Number), actor: expect.stringMatching(/^urn:li:corpuser:/) },
        systemMetadata: { runId: 'no-run-id-provided', lastObserved: expect.any(Number) },
      });
      expect(body.aspects.browsePaths.value.paths[0]).toBe(`/prod/hive/${s.urns.dataset.split(',')[1].toLowerCase()}`);
    });

    it('limits entitiesV2 aspects with List(...)', async () => {
      const { body } = await svc.call('GET', `/entitiesV2/${enc(s.urns.dataset)}?aspects=List(ownership,status)`);
      expect(Object.keys(body.aspects).sort()).toEqual(['datasetKey', 'ownership', 'status']);
    });

    it('answers the legacy snapshot with fully qualified names and the key aspect', async () => {
      const { status, body } = await svc.call('GET', `/entities/${enc(s.urns.chart)}`);
      expect(status).toBe(200);
      const snap = body.value['com.linkedin.metadata.snapshot.ChartSnapshot'];
      expect(snap.urn).toBe(s.urns.chart);
      const names = snap.aspects.map((a: object) => Object.keys(a)[0]).sort();
      expect(names).toEqual(expect.arrayContaining(['com.linkedin.chart.ChartInfo', 'com.linkedin.common.Status', 'com.linkedin.metadata.key.ChartKey']));
    });

    it('puts ownership and glossaryTermInfo as direct members of a glossary term snapshot', async () => {
      const { body } = await svc.call('GET', `/entities/${enc(s.urns.term)}`);
      const snap = body.value['com.linkedin.metadata.snapshot.GlossaryTermSnapshot'];
      expect(snap.glossaryTermInfo).toMatchObject({ definition: 'Sensitive data', termSource: 'EXTERNAL' });
      expect(snap.ownership.owners[0].owner).toBe(s.urns.user);
    });

    it('answers versioned aspects keyed by fully qualified record name', async () => {
      const { status, body } = await svc.call('GET', `/aspects/${enc(s.urns.tag)}?aspect=tagProperties&version=0`);
      expect(status).toBe(200);
      expect(body).toEqual({ version: 0, aspect: { 'com.linkedin.tag.TagProperties': { name: expect.any(String), description: expect.any(String) } } });
    });

    it.each([
      ['OwnedBy', 'dataset', 'user', 'OUTGOING'],
      ['DownstreamOf', 'dataset', 'upstream', 'OUTGOING'],
      ['Consumes', 'chart', 'dataset', 'OUTGOING'],
      ['Contains', 'dashboard', 'chart', 'OUTGOING'],
      ['TaggedWith', 'dataset', 'tag', 'OUTGOING'],
      ['EditableSchemaFieldTaggedWith', 'dataset', 'tag', 'OUTGOING'],
      ['IsPartOf', 'group', 'user2', 'OUTGOING'],
    ] as const)('answers %s edges from %s in both directions', async (type, from, to, _direction) => {
      const source = s.urns[from];
      const target = s.urns[to];
      expect(await related(source, 'OUTGOING', type)).toContain(target);
      expect(await related(target, 'INCOMING', type)).toContain(source);
    });

    it('accepts types as List(...) and as repeated parameters', async () => {
      const list = await related(s.urns.dataset, 'OUTGOING', 'List(OwnedBy,TaggedWith)');
      expect(list).toEqual([s.urns.user, s.urns.tag].sort());
      const res = await svc.call('GET', `/relationships?direction=OUTGOING&urn=${enc(s.urns.dataset)}&types=OwnedBy&types=DownstreamOf`);
      expect([...res.body.entities].sort()).toEqual([s.urns.user, s.urns.upstream].sort());
      expect(res.body).toMatchObject({ start: 0, total: 2, count: 2 });
      expect(res.body.relationships).toEqual(expect.arrayContaining([{ type: 'OwnedBy', entity: s.urns.user }]));
    });

    it('pages relationships with start and count', async () => {
      const first = await svc.call('GET', `/relationships?direction=INCOMING&urn=${enc(s.urns.tag)}&types=List(TaggedWith,EditableSchemaFieldTaggedWith)&start=0&count=1`);
      expect(first.body).toMatchObject({ start: 0, count: 1, total: 2 });
      const second = await svc.call('GET', `/relationships?direction=INCOMING&urn=${enc(s.urns.tag)}&types=List(TaggedWith,EditableSchemaFieldTaggedWith)&start=1&count=1`);
      expect(second.body).toMatchObject({ start: 1, count: 1, total: 2 });
      expect(first.body.relationships[0]).not.toEqual(second.body.relationships[0]);
    });
  });

  describe('proposals', () => {
    it('writes through ingestProposal, answers the urn, and the same data reads back', async () => {
      const s = samples(uniqueId());
      const res = await propose(s.urns.dataset, 'ownership', { owners: [{ owner: s.urns.user, type: 'DATAOWNER' }], lastModified: s.stamp });
      expect(res).toMatchObject({ status: 200, body: { value: s.urns.dataset } });
      const read = await svc.call('GET', `/aspects/${enc(s.urns.dataset)}?aspect=ownership&version=0`);
      expect(read.body.aspect['com.linkedin.common.Ownership'].owners).toEqual([{ owner: s.urns.user, type: 'DATAOWNER' }]);
    });

    it('moves the OwnedBy edge when the owner changes', async () => {
      const s = samples(uniqueId());
      await propose(s.urns.dataset, 'ownership', { owners: [{ owner: s.urns.user, type: 'DATAOWNER' }], lastModified: s.stamp });
      await propose(s.urns.dataset, 'ownership', { owners: [{ owner: s.urns.user2, type: 'DATAOWNER' }], lastModified: s.stamp });
      expect(await related(s.urns.dataset, 'OUTGOING', 'OwnedBy')).toEqual([s.urns.user2]);
      expect(await related(s.urns.user, 'INCOMING', 'OwnedBy')).toEqual([]);
      expect(await related(s.urns.user2, 'INCOMING', 'OwnedBy')).toEqual([s.urns.dataset]);
    });

    it('answers IsMemberOfGroup both ways', async () => {
      const s = samples(uniqueId());
      await propose(s.urns.user, 'groupMembership', { groups: [s.urns.group] });
      expect(await related(s.urns.user, 'OUTGOING', 'IsMemberOfGroup')).toEqual([s.urns.group]);
      expect(await related(s.urns.group, 'INCOMING', 'IsMemberOfGroup')).toEqual([s.urns.user]);
    });

    it('keeps history: 0 is latest, 1..N oldest first, negative counts back; identical re-ingest adds no version', async () => {
      const urn = `urn:li:tag:versions_${uniqueId()}`;
      for (const d of ['one', 'two', 'three']) await propose(urn, 'tagProperties', { name: 'v', description: d });
      await propose(urn, 'tagProperties', { description: 'three', name: 'v' }); // same value, other key order
      const at = async (v: number) => svc.call('GET', `/aspects/${enc(urn)}?aspect=tagProperties&version=${v}`);
      expect((await at(0)).body).toEqual({ version: 0, aspect: { 'com.linkedin.tag.TagProperties': { name: 'v', description: 'three' } } });
      expect((await at(1)).body.aspect['com.linkedin.tag.TagProperties'].description).toBe('one');
      expect((await at(2)).body.aspect['com.linkedin.tag.TagProperties'].description).toBe('two');
      expect((await at(3)).status).toBe(404);
      expect((await at(-1)).body).toMatchObject({ version: 2 });
      expect((await at(-2)).body).toMatchObject({ version: 1 });
      expect((await at(-3)).status).toBe(404);
    });

    it('applies retention: latest plus the configured number of history versions', async () => {
      const short = await startTestService({ RETENTION_MAX_VERSIONS: '3' });
      try {
        const urn = `urn:li:tag:retention_${uniqueId()}`;
        created.push(urn);
        for (let i = 1; i <= 8; i++) {
          await short.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'tagProperties', { name: 'r', description: `d${i}` }));
        }
        const versions = [];
        for (let v = 1; v <= 7; v++) versions.push((await short.call('GET', `/aspects/${enc(urn)}?aspect=tagProperties&version=${v}`)).status);
        expect(versions).toEqual([404, 404, 404, 404, 200, 200, 200]);
      } finally {
        await short.close();
      }
    });

    it('drops unknown fields inside an aspect value', async () => {
      const urn = `urn:li:tag:unknown_${uniqueId()}`;
      expect((await propose(urn, 'tagProperties', { name: 'x', surprise: 42 })).status).toBe(200);
      const { body } = await svc.call('GET', `/aspects/${enc(urn)}?aspect=tagProperties&version=0`);
      expect(body.aspect['com.linkedin.tag.TagProperties']).toEqual({ name: 'x' });
    });

    it('creates the key aspect with any write, and the key aspect is 404 before any write', async () => {
      const urn = `urn:li:corpuser:fresh_${uniqueId()}`;
      expect((await svc.call('GET', `/aspects/${enc(urn)}?aspect=corpUserKey&version=0`)).status).toBe(404);
      const never = await svc.call('GET', `/entitiesV2/${enc(urn)}`);
      expect(never).toMatchObject({ status: 200, body: { urn, entityName: 'corpuser', aspects: { corpUserKey: { value: { username: urn.split(':')[3] } } } } });
      await propose(urn, 'status', { removed: false });
      expect((await svc.call('GET', `/aspects/${enc(urn)}?aspect=corpUserKey&version=0`)).status).toBe(200);
    });

    it('soft-deletes through status and keeps the entity readable', async () => {
      const urn = `urn:li:tag:soft_${uniqueId()}`;
      await propose(urn, 'tagProperties', { name: 'soft' });
      await propose(urn, 'status', { removed: true });
      const { status, body } = await svc.call('GET', `/entitiesV2/${enc(urn)}`);
      expect(status).toBe(200);
      expect(body.aspects.status.value).toEqual({ removed: true });
      expect(body.aspects.tagProperties.value).toEqual({ name: 'soft' });
    });

    it('DELETE removes one aspect with all its versions and its edges', async () => {
      const s = samples(uniqueId());
      await propose(s.urns.dataset, 'globalTags', { tags: [{ tag: s.urns.tag }] });
      await propose(s.urns.dataset, 'globalTags', { tags: [{ tag: s.urns.tag }, { tag: `${s.urns.tag}2` }] });
      expect((await propose(s.urns.dataset, 'globalTags', null, 'DELETE')).status).toBe(200);
      expect((await svc.call('GET', `/aspects/${enc(s.urns.dataset)}?aspect=globalTags&version=0`)).status).toBe(404);
      expect((await svc.call('GET', `/aspects/${enc(s.urns.dataset)}?aspect=globalTags&version=1`)).status).toBe(404);
      expect(await related(s.urns.dataset, 'OUTGOING', 'TaggedWith')).toEqual([]);
    });

    it('hard-deletes an entity with entities?action=delete', async () => {
      const s = samples(uniqueId());
      await propose(s.urns.dataset, 'ownership', { owners: [{ owner: s.urns.user, type: 'DATAOWNER' }] });
      await propose(s.urns.dataset, 'status', { removed: false });
      const res = await svc.call('POST', '/entities?action=delete', { urn: s.urns.dataset });
      expect(res.status).toBe(200);
      expect(res.body.value).toMatchObject({ urn: s.urns.dataset, rows: expect.any(Number), timeseriesRows: 0 });
      expect(res.body.value.rows).toBeGreaterThanOrEqual(4); // key, browsePaths, ownership, status
      expect((await svc.call('GET', `/aspects/${enc(s.urns.dataset)}?aspect=datasetKey&version=0`)).status).toBe(404);
      expect(await related(s.urns.user, 'INCOMING', 'OwnedBy')).toEqual([]);
    });

    it('ingestProposalBatch writes all proposals, or nothing when one is invalid', async () => {
      const a = `urn:li:tag:batchA_${uniqueId()}`;
      const b = `urn:li:tag:batchB_${uniqueId()}`;
      created.push(a, b);
      const ok = await svc.call('POST', '/aspects?action=ingestProposalBatch', {
        proposals: [proposal(a, 'tagProperties', { name: 'a' }).proposal, proposal(b, 'tagProperties', { name: 'b' }).proposal],
        async: 'false',
      });
      expect(ok).toMatchObject({ status: 200, body: { value: [a, b] } });
      const c = `urn:li:tag:batchC_${uniqueId()}`;
      const bad = await svc.call('POST', '/aspects?action=ingestProposalBatch', {
        proposals: [proposal(c, 'tagProperties', { name: 'c' }).proposal, proposal(c, 'tagProperties', { name: 7 }).proposal],
      });
      expect(bad.status).toBe(422);
      expect(bad.body.message).toMatch(/proposals\[1\]/);
      expect((await svc.call('GET', `/aspects/${enc(c)}?aspect=tagProperties&version=0`)).status).toBe(404);
    });
  });

  it('32 concurrent writers x 50 writes on one aspect: contiguous history, nothing lost, no 5xx', async () => {
    const wide = await startTestService({ RETENTION_MAX_VERSIONS: '5000' });
    const urn = `urn:li:tag:concurrent_${uniqueId()}`;
    created.push(urn);
    try {
      const statuses: number[] = [];
      await Promise.all(
        Array.from({ length: 32 }, async (_, writer) => {
          for (let i = 0; i < 50; i++) {
            const res = await wide.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'tagProperties', { name: 'c', description: `${writer}-${i}` }));
            statuses.push(res.status);
          }
        }),
      );
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      const history = await wide.graph.driver.executeQuery(
        'MATCH (a:Aspect {urn: $urn, name: "tagProperties"}) RETURN a.version AS v, a.value AS value ORDER BY v',
        { urn },
        { database: 'neo4j' },
      );
      const versions = history.records.map((r) => Number(r.get('v')));
      expect(versions).toEqual(Array.from({ length: 1600 }, (_, i) => i)); // 0 = latest, 1..1599 history
      const descriptions = new Set(history.records.map((r) => JSON.parse(r.get('value')).description));
      expect(descriptions.size).toBe(1600);
    } finally {
      await wide.close();
    }
  });
});
