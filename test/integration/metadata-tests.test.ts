import { proposal } from '../support/samples';
import { bearer, deleteEntities, enc, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

describe('metadata tests: definitions, evaluation and pushed results', () => {
  let svc: TestService;
  /** The test endpoint needs a token: read to evaluate, write to push. */
  let auth: Record<string, string>;
  const created = new Set<string>();
  const id = uniqueId();
  const tag = `urn:li:tag:pii_${id}`;
  const owner = `urn:li:corpuser:owner_${id}`;
  const hiveDataset = `urn:li:dataset:(urn:li:dataPlatform:hive,orders_${id},PROD)`;
  const kafkaDataset = `urn:li:dataset:(urn:li:dataPlatform:kafka,events_${id},PROD)`;
  const hasOwner = `urn:li:test:has-owner-${id}`;
  const taggedPii = `urn:li:test:tagged-pii-${id}`;
  const chartsOnly = `urn:li:test:charts-only-${id}`;
  const neverWritten = `urn:li:test:never-written-${id}`;

  async function propose(urn: string, aspect: string, value: unknown) {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value));
    created.add(urn);
    return res;
  }

  function testInfo(name: string, definition: unknown) {
    return { name, category: 'Governance', description: `${name} (${id})`, definition: { type: 'JSON', json: JSON.stringify(definition) } };
  }

  async function evaluate(body: Record<string, unknown>, path = '/test?action=evaluate') {
    return svc.call('POST', path, body, auth);
  }

  /** Only this suite's tests: the shared stack may hold other suites' tests, which `all tests` also evaluates. */
  function ours(results: { test: string; type: string }[]) {
    return results.filter((r) => r.test.endsWith(id)).sort((a, b) => a.test.localeCompare(b.test));
  }

  async function storedResults(urn: string) {
    const res = await svc.call('GET', `/aspects/${enc(urn)}?aspect=testResults&version=0`);
    expect(res.status).toBe(200);
    return res.body.aspect['com.linkedin.test.TestResults'] as { passing: { test: string }[]; failing: { test: string }[] };
  }

  async function related(urn: string, direction: 'INCOMING' | 'OUTGOING') {
    const res = await svc.call('GET', `/relationships?direction=${direction}&urn=${enc(urn)}&types=List(IsPassing,IsFailing)`);
    expect(res.status).toBe(200);
    return (res.body.relationships as { type: string; entity: string }[]).sort((a, b) => a.entity.localeCompare(b.entity));
  }

  beforeAll(async () => {
    svc = await startTestService();
    auth = bearer((await mintToken({ scopes: ['read', 'write'] })).token);
    expect((await propose(hiveDataset, 'ownership', { owners: [{ owner, type: 'DATAOWNER' }] })).status).toBe(200);
    expect((await propose(hiveDataset, 'globalTags', { tags: [{ tag }] })).status).toBe(200);
    expect((await propose(kafkaDataset, 'datasetProperties', { name: `events_${id}` })).status).toBe(200);
    const definitions: [string, string, unknown][] = [
      [
        hasOwner,
        'Hive datasets have an owner',
        { on: { types: ['dataset'], conditions: { property: 'datasetKey.platform', operator: 'equals', values: ['urn:li:dataPlatform:hive'] } }, rules: [{ property: 'ownership.owners.owner', operator: 'exists' }] },
      ],
      // Legacy spelling: query / operation / params, on.match.
      [taggedPii, 'Datasets are tagged pii', { on: { types: ['dataset'], match: [] }, rules: { or: [{ query: 'globalTags.tags.tag', operation: 'contains_any', params: { values: [tag] } }] } }],
      [chartsOnly, 'Charts have a title', { on: { types: ['chart'] }, rules: [{ property: 'chartInfo.title', operator: 'exists' }] }],
    ];
    for (const [urn, name, definition] of definitions) expect((await propose(urn, 'testInfo', testInfo(name, definition))).status).toBe(200);
  });

  afterAll(async () => {
    await deleteEntities(svc.call, [...created, neverWritten]);
    await svc.close();
  });

  it('puts eligible tests in passing or failing, leaves ineligible and unknown ones out', async () => {
    const res = await evaluate({ urn: hiveDataset, testUrns: [hasOwner, taggedPii, chartsOnly, neverWritten] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      value: {
        passing: [
          { test: hasOwner, type: 'SUCCESS' },
          { test: taggedPii, type: 'SUCCESS' },
        ].sort((a, b) => a.test.localeCompare(b.test)),
        failing: [],
      },
    });
  });

  it('leaves out a test whose selection excludes the entity', async () => {
    const res = await evaluate({ urn: kafkaDataset, testUrns: [hasOwner, taggedPii] });
    expect(res.body).toEqual({ value: { passing: [], failing: [{ test: taggedPii, type: 'FAILURE' }] } });
  });

  it('evaluates only the tests named (testUrns, or its alias tests), under /gms as well', async () => {
    expect((await evaluate({ urn: hiveDataset, testUrns: [taggedPii] })).body.value).toEqual({ passing: [{ test: taggedPii, type: 'SUCCESS' }], failing: [] });
    expect((await evaluate({ urn: hiveDataset, tests: [hasOwner] }, '/gms/test?action=evaluate')).body.value).toEqual({ passing: [{ test: hasOwner, type: 'SUCCESS' }], failing: [] });
    expect((await evaluate({ urn: hiveDataset, testUrns: [] })).body.value).toEqual({ passing: [], failing: [] });
    expect((await evaluate({ urn: hiveDataset, testUrns: [neverWritten] })).body.value).toEqual({ passing: [], failing: [] });
  });

  it('evaluates every test when no testUrns are given', async () => {
    const { status, body } = await evaluate({ urn: kafkaDataset });
    expect(status).toBe(200);
    expect(ours(body.value.passing)).toEqual([]);
    expect(ours(body.value.failing)).toEqual([{ test: taggedPii, type: 'FAILURE' }]);
  });

  it('does not write anything without push', async () => {
    await evaluate({ urn: hiveDataset, testUrns: [hasOwner] });
    expect((await svc.call('GET', `/aspects/${enc(hiveDataset)}?aspect=testResults&version=0`)).status).toBe(404);
  });

  it('merges pushed results when testUrns is given, replaces them otherwise, and projects IsPassing / IsFailing edges', async () => {
    const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,pushed_${id},PROD)`;
    const stale = `urn:li:test:deleted-long-ago-${id}`;
    created.add(stale);
    await propose(urn, 'ownership', { owners: [{ owner, type: 'DATAOWNER' }] });
    await propose(urn, 'testResults', { passing: [{ test: stale, type: 'SUCCESS' }], failing: [] });

    // Merge: the stale entry of a test not evaluated stays; the evaluated test's result is added.
    const first = await evaluate({ urn, push: true, testUrns: [hasOwner] });
    expect(first.body.value).toEqual({ passing: [{ test: hasOwner, type: 'SUCCESS' }], failing: [] });
    expect((await storedResults(urn)).passing.map((r) => r.test).sort()).toEqual([hasOwner, stale].sort());

    // Merge again after the entity changed: the evaluated test's entry is replaced, the rest kept.
    await propose(urn, 'ownership', { owners: [] });
    await evaluate({ urn, push: 'true', tests: [hasOwner, taggedPii] });
    let stored = await storedResults(urn);
    expect(stored.passing.map((r) => r.test)).toEqual([stale]);
    expect(stored.failing).toEqual(
      [
        { test: hasOwner, type: 'FAILURE' },
        { test: taggedPii, type: 'FAILURE' },
      ].sort((a, b) => a.test.localeCompare(b.test)),
    );
    expect(await related(urn, 'OUTGOING')).toEqual(
      [
        { type: 'IsPassing', entity: stale },
        { type: 'IsFailing', entity: hasOwner },
        { type: 'IsFailing', entity: taggedPii },
      ].sort((a, b) => a.entity.localeCompare(b.entity)),
    );

    // Replace: every test is evaluated and the stored results are exactly this run's; the stale entry and its edge go.
    await propose(urn, 'globalTags', { tags: [{ tag }] });
    const replaced = await evaluate({ urn, push: true });
    stored = await storedResults(urn);
    expect(stored).toEqual(replaced.body.value);
    expect(ours(stored.passing as never)).toEqual([{ test: taggedPii, type: 'SUCCESS' }]);
    expect(ours(stored.failing as never)).toEqual([{ test: hasOwner, type: 'FAILURE' }]);
    const edges = (await related(urn, 'OUTGOING')).filter((r) => r.entity.endsWith(id));
    expect(edges).toEqual([
      { type: 'IsFailing', entity: hasOwner },
      { type: 'IsPassing', entity: taggedPii },
    ].sort((a, b) => a.entity.localeCompare(b.entity)));

    // Both directions: the test sees the entities passing or failing it.
    expect(await related(taggedPii, 'INCOMING')).toContainEqual({ type: 'IsPassing', entity: urn });
    expect(await related(hasOwner, 'INCOMING')).toContainEqual({ type: 'IsFailing', entity: urn });
    expect(await related(stale, 'INCOMING')).toEqual([]);
    created.add(urn);
  });

  it('writes nothing when a merge run evaluated no known test', async () => {
    const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,untouched_${id},PROD)`;
    await propose(urn, 'status', { removed: false });
    const res = await evaluate({ urn, push: true, testUrns: [neverWritten] });
    expect(res.body.value).toEqual({ passing: [], failing: [] });
    expect((await svc.call('GET', `/aspects/${enc(urn)}?aspect=testResults&version=0`)).status).toBe(404);
  });

  it('rejects an invalid definition at ingest with a 422 naming the problem, writing nothing', async () => {
    const fresh = `urn:li:test:invalid-${id}`;
    const bad = testInfo('Broken', { on: { types: ['dataset'] }, rules: { or: [{ property: 'status.removed', operator: 'is_ture' }] } });
    const res = await propose(fresh, 'testInfo', bad);
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/definition\/json rules\.or\[0\]\.operator: unknown operator "is_ture"/);
    expect((await svc.call('GET', `/aspects/${enc(fresh)}?aspect=testKey&version=0`)).status).toBe(404);

    // An existing test keeps its valid definition.
    const update = await propose(hasOwner, 'testInfo', testInfo('Renamed', { on: { types: ['dataset'] }, rules: { property: 'globalTags.tags.tag', operator: 'exists', negate: 'no' } }));
    expect(update.status).toBe(422);
    expect(update.body.message).toMatch(/rules\.negate: must be true or false/);
    const kept = await svc.call('GET', `/aspects/${enc(hasOwner)}?aspect=testInfo&version=0`);
    expect(kept.body.aspect['com.linkedin.test.TestInfo'].name).toBe('Hive datasets have an owner');
    expect((await svc.call('GET', `/aspects/${enc(hasOwner)}?aspect=testInfo&version=1`)).status).toBe(404);

    const noSuchType = await propose(fresh, 'testInfo', testInfo('Typo', { on: { types: ['datasets'] }, rules: [] }));
    expect(noSuchType.status).toBe(422);
    expect(noSuchType.body.message).toMatch(/on\.types\[0\]: unknown entity type 'datasets'/);
  });

  it.each([
    ['a malformed entity urn', { urn: 'not-a-urn' }, 400],
    ['a missing urn', {}, 400],
    ['a test urn of another entity type', { urn: 'HIVE', testUrns: ['urn:li:tag:x'] }, 400],
    ['testUrns that are not a list', { urn: 'HIVE', testUrns: 'urn:li:test:x' }, 400],
  ])('answers 400 for %s', async (_name, body, status) => {
    const res = await evaluate(JSON.parse(JSON.stringify(body).replace('"HIVE"', JSON.stringify(hiveDataset))));
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ status, exceptionClass: 'InvalidInputError' });
  });

  it('answers 404 for an entity that does not exist', async () => {
    const res = await evaluate({ urn: `urn:li:dataset:(urn:li:dataPlatform:hive,missing_${id},PROD)` });
    expect(res.status).toBe(404);
  });

  it('needs a token, and a write scope to push', async () => {
    expect((await svc.call('POST', '/test?action=evaluate', { urn: hiveDataset })).status).toBe(401);
    const read = bearer((await mintToken({ scopes: ['read'] })).token);
    expect((await svc.call('POST', '/test?action=evaluate', { urn: hiveDataset, testUrns: [hasOwner] }, read)).status).toBe(200);
    const push = await svc.call('POST', '/test?action=evaluate', { urn: hiveDataset, push: true, testUrns: [hasOwner] }, read);
    expect(push.status).toBe(403);
    expect((await svc.call('GET', `/aspects/${enc(hiveDataset)}?aspect=testResults&version=0`)).status).toBe(404);
  });

  it('answers 422 when pushing to an entity type without testResults', async () => {
    const res = await evaluate({ urn: hasOwner, push: true });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/testResults/);
  });
});
