import { proposal } from '../support/samples';
import { bearer, engineUrl, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

const DAY = 86_400_000;
const YEAR = Date.UTC(2023, 0, 1);
const day = (i: number) => YEAR + i * DAY;
const ASPECT = 'datasetUsageStatistics';

function usage(i: number, extra: Record<string, unknown> = {}) {
  return {
    timestampMillis: day(i),
    eventGranularity: { unit: 'DAY', multiple: 1 },
    uniqueUserCount: i % 7,
    totalSqlQueries: i,
    fieldCounts: [{ fieldPath: 'id', count: i }],
    ...extra,
  };
}

function datasetUrn(name: string) {
  return `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
}

/** Helpers over one running service; operations carry an admin token. */
function client(svc: () => TestService) {
  let admin: Record<string, string> | undefined;
  const operation = async (action: string, body?: Record<string, unknown>) => {
    admin ??= bearer((await mintToken({ scopes: ['admin'] })).token);
    return svc().call('POST', `/operations?action=${action}`, body, admin);
  };
  return {
    async ingest(urn: string, values: Record<string, unknown>[]) {
      for (let i = 0; i < values.length; i += 500) {
        const proposals = values.slice(i, i + 500).map((v) => proposal(urn, ASPECT, v).proposal);
        const res = await svc().call('POST', '/aspects?action=ingestProposalBatch', { proposals });
        expect(res.status).toBe(200);
      }
    },
    async values(urn: string, extra: Record<string, unknown> = {}) {
      const res = await svc().call('POST', '/aspects?action=getTimeseriesAspectValues', { urn, entity: 'dataset', aspect: ASPECT, ...extra });
      expect(res.status).toBe(200);
      return res.body.value as { limit: number; aspectName: string; entityName: string; values: { aspect: { value: string; contentType: string } }[] } & Record<string, unknown>;
    },
    async events(urn: string, extra: Record<string, unknown> = {}) {
      return (await this.values(urn, extra)).values.map((v) => JSON.parse(v.aspect.value) as Record<string, any>);
    },
    truncate(body: Record<string, unknown>) {
      return operation('truncateTimeseriesAspect', { entityType: 'dataset', aspect: ASPECT, ...body });
    },
    async status(task: string) {
      const res = await operation('getEsTaskStatus', { task });
      expect(res.status).toBe(200);
      return JSON.parse(res.body.value);
    },
    /** Polls the engine task (an asynchronous engine job) until it reports completion. */
    async completed(task: string, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const status = await this.status(task);
        if (status.completed) return status;
        if (Date.now() > deadline) throw new Error(`task ${task} not completed within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async indexSizes() {
      const res = await operation('getIndexSizes');
      expect(res.status).toBe(200);
      return JSON.parse(res.body.value).indexSizes as { aspectName: string; sizeMb: number; indexName: string; entityName: string }[];
    },
  };
}

describe('time-series aspects and truncation on opensearch', () => {
  let svc: TestService;
  const api = client(() => svc);
  const id = uniqueId();
  const a = datasetUrn(`usage_a_${id}`);
  const b = datasetUrn(`usage_b_${id}`);
  const alias = 'ts_dataset_datasetusagestatisticsaspect_v1';

  beforeAll(async () => {
    svc = await startTestService({ SEARCH_INDEX_PREFIX: 'ts_' });
    await svc.search.deleteIndex('ts_*aspect_v1*');
    await api.ingest(a, Array.from({ length: 365 }, (_, i) => usage(i)));
  });
  afterAll(async () => {
    for (const urn of [a, b]) await svc.call('POST', '/entities?action=delete', { urn });
    await svc.search.deleteIndex('ts_*aspect_v1*');
    await svc.close();
  });

  it('creates the entity key aspect in Neo4j', async () => {
    const res = await svc.call('GET', `/aspects/${encodeURIComponent(a)}?aspect=datasetKey&version=0`);
    expect(res.status).toBe(200);
  });

  it('answers values in a range, bounds included, newest first', async () => {
    const value = await api.values(a, { startTimeMillis: day(10), endTimeMillis: day(19) });
    expect(value).toMatchObject({ limit: 10000, aspectName: ASPECT, entityName: 'dataset', startTimeMillis: day(10), endTimeMillis: day(19) });
    expect(value.values).toHaveLength(10);
    expect(value.values[0].aspect.contentType).toBe('application/json');
    const events = value.values.map((v) => JSON.parse(v.aspect.value));
    expect(events.map((e) => e.timestampMillis)).toEqual(Array.from({ length: 10 }, (_, i) => day(19 - i)));
    expect(events[0]).toEqual(usage(19));
  });

  it('honours limit, latestValue and a filter', async () => {
    expect((await api.values(a, { limit: 3 })).values).toHaveLength(3);
    const latest = await api.values(a, { latestValue: true });
    expect(latest.limit).toBe(1);
    expect(latest.values.map((v) => JSON.parse(v.aspect.value).timestampMillis)).toEqual([day(364)]);
    const filtered = await api.events(a, { filter: { or: [{ and: [{ field: 'totalSqlQueries', value: '360', condition: 'GREATER_THAN_OR_EQUAL_TO' }] }] } });
    expect(filtered.map((e) => e.totalSqlQueries)).toEqual([364, 363, 362, 361, 360]);
  });

  it('overwrites a re-sent event instead of adding one', async () => {
    await api.ingest(a, [usage(0, { uniqueUserCount: 99 })]);
    const events = await api.events(a, { startTimeMillis: day(0), endTimeMillis: day(0) });
    expect(events).toEqual([usage(0, { uniqueUserCount: 99 })]);
    expect(await svc.search.count(alias)).toBe(365);
  });

  it('stores typed documents with the event, its time and system metadata', async () => {
    const hits = await svc.search.search(alias, { query: { term: { urn: a } }, size: 1, sort: [{ timestampMillis: 'desc' }] });
    expect(hits.hits[0].source).toMatchObject({
      urn: a,
      timestampMillis: day(364),
      '@timestamp': day(364),
      partitionSpec: { type: 'FULL_TABLE', partition: 'FULL_TABLE_SNAPSHOT' },
      eventGranularity: { unit: 'DAY', multiple: 1 },
      runId: 'no-run-id-provided',
      event: usage(364),
      systemMetadata: expect.objectContaining({ runId: 'no-run-id-provided' }),
    });
    const mapping = await (await fetch(`${engineUrl('opensearch')}/${alias}/_mapping`)).json();
    const properties = (Object.values(mapping)[0] as any).mappings.properties;
    expect(properties.uniqueUserCount.type).toBe('long');
    expect(properties.timestampMillis).toMatchObject({ type: 'date', format: 'epoch_millis' });
    expect(properties['@timestamp'].type).toBe('date');
    expect(properties.fieldCounts.properties).toMatchObject({ fieldPath: { type: 'keyword' }, count: { type: 'long' } });
    expect(properties.event).toMatchObject({ type: 'object', enabled: false });
  });

  it('reports the size of time-series indices only', async () => {
    const sizes = await api.indexSizes();
    const ours = sizes.find((s) => s.indexName === alias);
    expect(ours).toMatchObject({ aspectName: 'datasetusagestatistics', entityName: 'dataset' });
    expect(ours!.sizeMb).toBeGreaterThan(0);
    expect(sizes.every((s) => s.indexName.endsWith('aspect_v1'))).toBe(true);
  });

  it('rejects unknown entity types and aspects, and both force flags', async () => {
    const unknownEntity = await api.truncate({ entityType: 'spaceship', endTimeMillis: day(1) });
    expect(unknownEntity.status).toBe(400);
    expect(unknownEntity.body.message).toMatch(/Unknown entity type 'spaceship'/);
    const unknownAspect = await api.truncate({ aspect: 'ownership', endTimeMillis: day(1) });
    expect(unknownAspect.status).toBe(400);
    expect(unknownAspect.body.message).toMatch(/Unknown time-series aspect 'ownership'/);
    expect((await api.truncate({ endTimeMillis: day(1), forceReindex: true, forceDeleteByQuery: true })).status).toBe(400);
    const values = await svc.call('POST', '/aspects?action=getTimeseriesAspectValues', { urn: a, entity: 'dataset', aspect: 'ownership' });
    expect(values.status).toBe(400);
  });

  it('dry runs report the documented sentence (names as getIndexSizes gives them work too)', async () => {
    const few = await api.truncate({ endTimeMillis: day(99) });
    expect(few.status).toBe(200);
    expect(few.body.value).toBe('Delete 100 out of 365 rows (27.40%). Issuing a delete by query request. This was a dry run. Run with dryRun = false to execute.');
    const many = await api.truncate({ aspect: 'datasetusagestatistics', endTimeMillis: day(299), dryRun: true });
    expect(many.body.value).toBe('Delete 300 out of 365 rows (82.19%). Reindexing the aspect without the deleted records. This was a dry run. Run with dryRun = false to execute.');
    const forced = await api.truncate({ endTimeMillis: day(299), forceDeleteByQuery: true });
    expect(forced.body.value).toBe('Delete 300 out of 365 rows (82.19%). Issuing a delete by query request. This was a dry run. Run with dryRun = false to execute.');
    expect(await svc.search.count(alias)).toBe(365);
  });

  it('deletes by query: the task reports the dry-run count and only newer rows remain', async () => {
    const res = await api.truncate({ endTimeMillis: day(99), dryRun: false, batchSize: 50, timeoutSeconds: 60 });
    expect(res.status).toBe(200);
    const task = res.body.value as string;
    expect(task).toMatch(/^[^:]+:\d+$/);
    const first = await api.status(task);
    expect(first.taskId).toBe(task);
    expect(typeof first.completed).toBe('boolean');
    const done = await api.completed(task);
    expect(done).toMatchObject({ completed: true, taskId: task, runTimeNanos: expect.any(Number) });
    expect(done.status).toMatchObject({ deleted: 100, total: 100, version_conflicts: 0, requests_per_second: -1 });
    expect(done.status.batches).toBe(2);
    const remaining = await api.events(a);
    expect(remaining.map((e) => e.timestampMillis)).toEqual(Array.from({ length: 265 }, (_, i) => day(364 - i)));
  });

  it('reindexes without losing rows written or re-sent while the copy runs', async () => {
    const B_ROWS = 1000;
    const minute = (i: number) => Date.UTC(2024, 0, 1) + i * 60_000;
    const bEvent = (i: number, extra: Record<string, unknown> = {}) => ({ timestampMillis: minute(i), eventGranularity: { unit: 'MINUTE', multiple: 1 }, totalSqlQueries: i, ...extra });
    await api.ingest(b, Array.from({ length: B_ROWS }, (_, i) => bEvent(i)));

    // Cut at day 299: 200 of a's 265 rows go, b's rows all stay. Batches of 5 keep the copy busy for a while.
    const res = await api.truncate({ endTimeMillis: day(299), dryRun: false, forceReindex: true, batchSize: 5 });
    expect(res.status).toBe(200);
    const task = res.body.value as string;
    const overwritten = new Map<number, number>();
    const added: number[] = [];
    let writesWhileRunning = 0;
    for (let n = 0; ; n++) {
      // Alternately re-send a kept row with a new value and add a new row, checking the task between writes.
      const running = !(await api.status(task)).completed;
      if (!running) break;
      if (n % 2 === 0) {
        const i = (n * 37) % B_ROWS;
        overwritten.set(i, 10_000 + n);
        await api.ingest(b, [bEvent(i, { totalSqlQueries: 10_000 + n })]);
      } else {
        added.push(B_ROWS + n);
        await api.ingest(b, [bEvent(B_ROWS + n)]);
      }
      writesWhileRunning++;
    }
    const done = await api.completed(task);
    expect(done.status.created + done.status.version_conflicts).toBe(65 + B_ROWS);
    expect(writesWhileRunning).toBeGreaterThan(0);

    // One generation is left behind the alias; a's old rows are gone, every write made during the copy is there.
    const targets = (await svc.search.getAliases(alias)).get(alias)!;
    expect(targets).toHaveLength(1);
    expect((await api.events(a)).map((e) => e.timestampMillis)).toEqual(Array.from({ length: 65 }, (_, i) => day(364 - i)));
    const bEvents = await api.events(b);
    expect(bEvents).toHaveLength(B_ROWS + added.length);
    const byTime = new Map(bEvents.map((e) => [e.timestampMillis, e.totalSqlQueries]));
    for (let i = 0; i < B_ROWS; i++) expect(byTime.get(minute(i))).toBe(overwritten.get(i) ?? i);
    for (const i of added) expect(byTime.get(minute(i))).toBe(i);
    expect(await svc.search.count(alias)).toBe(65 + B_ROWS + added.length);
    expect((await api.indexSizes()).filter((s) => s.indexName === alias)).toHaveLength(1);
  });

  it('deletes the time-series rows of a hard-deleted entity', async () => {
    const c = datasetUrn(`usage_c_${id}`);
    await api.ingest(c, [usage(1), usage(2), usage(3)]);
    const res = await svc.call('POST', '/entities?action=delete', { urn: c });
    expect(res.body.value).toMatchObject({ urn: c, timeseriesRows: 3 });
    expect(await api.events(c)).toEqual([]);
  });
});

describe('time-series aspects on elasticsearch (no reindex module)', () => {
  let svc: TestService;
  const api = client(() => svc);
  const urn = datasetUrn(`usage_es_${uniqueId()}`);

  beforeAll(async () => {
    svc = await startTestService({ SEARCH_INDEX_PREFIX: 'tses_' }, 'elasticsearch');
    await svc.search.deleteIndex('tses_*aspect_v1*');
    await api.ingest(urn, Array.from({ length: 30 }, (_, i) => usage(i)));
  });
  afterAll(async () => {
    await svc.call('POST', '/entities?action=delete', { urn });
    await svc.search.deleteIndex('tses_*aspect_v1*');
    await svc.close();
  });

  it('answers values newest first', async () => {
    const events = await api.events(urn, { startTimeMillis: day(5), endTimeMillis: day(7) });
    expect(events.map((e) => e.timestampMillis)).toEqual([day(7), day(6), day(5)]);
  });

  it('does dry runs but answers 501 to a real truncation', async () => {
    const dry = await api.truncate({ endTimeMillis: day(9) });
    expect(dry.body.value).toBe('Delete 10 out of 30 rows (33.33%). Issuing a delete by query request. This was a dry run. Run with dryRun = false to execute.');
    const real = await api.truncate({ endTimeMillis: day(9), dryRun: false });
    expect(real.status).toBe(501);
    expect(real.body).toMatchObject({ status: 501, exceptionClass: 'NotSupportedError' });
    expect(real.body.message).toMatch(/lacks delete-by-query\/reindex/);
    expect(await api.events(urn)).toHaveLength(30);
  });

  it('reports index sizes', async () => {
    const sizes = await api.indexSizes();
    expect(sizes).toEqual([expect.objectContaining({ indexName: 'tses_dataset_datasetusagestatisticsaspect_v1', aspectName: 'datasetusagestatistics', entityName: 'dataset' })]);
  });

  it('re-creates a dropped index with its typed mapping on the next write', async () => {
    await svc.search.deleteIndex('tses_*aspect_v1*');
    await api.ingest(urn, [usage(40)]);
    expect(await api.events(urn)).toEqual([usage(40)]);
    const mapping = await (await fetch(`${engineUrl('elasticsearch')}/tses_dataset_datasetusagestatisticsaspect_v1/_mapping`)).json();
    expect((Object.values(mapping)[0] as any).mappings.properties.totalSqlQueries).toEqual({ type: 'long' });
  });
});

describe('OpenAPI v2 time-series scroll, as DataHub smoke-tests it (test_timeseries_scroll.py)', () => {
  let svc: TestService;
  const id = uniqueId().toLowerCase().replace(/[^a-z0-9]/g, '');
  const prefix = `tsscroll_${id}_`;
  const profiled = datasetUrn(`profiled_${id}`);
  const other = datasetUrn(`other_${id}`);
  const base = 1_700_000_000_000;

  beforeAll(async () => {
    svc = await startTestService({ SEARCH_INDEX_PREFIX: prefix });
    const profile = async (urn: string, i: number, at: number) => {
      const res = await svc.call('POST', `/openapi/v3/entity/dataset/${encodeURIComponent(urn)}/datasetProfile?createIfNotExists=false&async=false`, {
        value: { timestampMillis: at, messageId: `scroll_test_msg_${i}`, rowCount: (i + 1) * 100, columnCount: 10 },
      });
      expect(res.status).toBe(200);
    };
    for (let i = 0; i < 5; i++) await profile(profiled, i, base + i * 1000);
    // Another entity's event: in the scroll (it covers the type), and one outside the range.
    await profile(other, 9, base + 2500);
    await profile(other, 10, base - 60_000);
  });
  afterAll(async () => {
    for (const urn of [profiled, other]) await svc.call('POST', '/entities?action=delete', { urn });
    await svc.search.deleteIndex(`${prefix}*`);
    await svc.close();
  });

  const scroll = async (query: Record<string, string | number>) => {
    const res = await svc.call('GET', `/openapi/v2/timeseries/dataset/datasetProfile?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`);
    expect(res.status).toBe(200);
    return res.body as { scrollId?: string; results: { urn: string; messageId: string; timestampMillis: number; systemMetadata: unknown; event: Record<string, unknown> }[] };
  };
  const range = { startTimeMillis: base - 1000, endTimeMillis: base + 6000 };

  it('pages newest first, every event once, with no scroll id after the last page', async () => {
    const pages = [];
    let scrollId: string | undefined;
    do {
      const page = await scroll({ count: 2, ...range, ...(scrollId ? { scrollId } : {}) });
      pages.push(page.results.map((r) => r.messageId));
      scrollId = page.scrollId;
    } while (scrollId && pages.length < 10);
    expect(pages).toEqual([['scroll_test_msg_4', 'scroll_test_msg_3'], ['scroll_test_msg_9', 'scroll_test_msg_2'], ['scroll_test_msg_1', 'scroll_test_msg_0']]);
    const whole = await scroll({ count: 20, ...range });
    expect(whole.scrollId).toBeUndefined();
    expect(whole.results[0]).toEqual({ urn: profiled, messageId: 'scroll_test_msg_4', timestampMillis: base + 4000, systemMetadata: null, event: { timestampMillis: base + 4000, messageId: 'scroll_test_msg_4', rowCount: 500, columnCount: 10 } });
    expect((await scroll({ count: 20 })).results.map((r) => r.messageId)).toContain('scroll_test_msg_10');
    expect((await scroll({ count: 1, systemMetadata: 'true', ...range })).results[0].systemMetadata).toMatchObject({ lastObserved: expect.any(Number) });
  });

  it('refuses a versioned aspect and a scroll id it did not issue', async () => {
    expect((await svc.call('GET', '/openapi/v2/timeseries/dataset/datasetProperties')).status).toBe(400);
    expect((await svc.call('GET', '/openapi/v2/timeseries/dataset/datasetProfile?scrollId=bogus')).status).toBe(400);
  });
});
