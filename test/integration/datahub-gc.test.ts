import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, type DatahubClient } from '../support/datahub-client';
import { proposal } from '../support/samples';
import { mintToken, startTestService, uniqueId, type TestService } from '../support/service';

const DAY_MS = 24 * 3600_000;

/**
 * DataHub's garbage collection, the `datahub-gc` ingestion source of the official client, run against the service as
 * DataHub deployments schedule it. It reads a job's runs (GraphQL `DataJob.runs`, newest first), execution requests
 * (OpenAPI v2 entity scroll, newest first), expired access tokens (`listAccessTokens`) and soft-deleted entities, and
 * deletes what its retention settings let go. Each read that answered wrong would delete the wrong things.
 */
describe('datahub ingest of a datahub-gc recipe', () => {
  let svc: TestService;
  let client: DatahubClient;
  // Indices of its own: the GC finds what to delete by search, and must not purge what other tests soft-deleted.
  const prefix = `${uniqueId('gc').toLowerCase()}_`;

  beforeAll(async () => {
    svc = await startTestService({ SEARCH_INDEX_PREFIX: prefix });
    client = await datahubClient(svc.url);
  }, CLIENT_SETUP_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await client?.close();
    await svc?.indexer.stop();
    await svc?.search.deleteIndex(`${prefix}*`);
    await svc?.close();
  });

  const write = async (urn: string, aspect: string, value: unknown) => {
    const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value));
    expect(res.status).toBe(200);
  };
  const aspectOf = async (urn: string, aspect: string) => {
    const res = await svc.call('GET', `/aspects/${encodeURIComponent(urn)}?aspect=${aspect}&version=0`);
    return res.status === 200 ? Object.values(res.body.aspect)[0] : null;
  };

  it('keeps the newest runs and execution requests, deletes the rest, revokes expired tokens and purges soft-deleted entities', async () => {
    const id = uniqueId('gc').replace(/[^a-zA-Z0-9_]/g, '_');
    const now = Date.now();
    const admin = await mintToken({ scopes: ['admin'] });

    // A soft-deleted dataset (purged) beside a live one (kept).
    const removed = `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_removed,PROD)`;
    const live = `urn:li:dataset:(urn:li:dataPlatform:hive,${id}_live,PROD)`;
    await write(removed, 'datasetProperties', { name: 'removed', customProperties: {} });
    await write(removed, 'status', { removed: true });
    await write(live, 'datasetProperties', { name: 'live', customProperties: {} });

    // A job with eight runs, three recent and five older than the retention; written oldest last, so only a listing
    // newest first by `created` keeps the right ones.
    const flow = `urn:li:dataFlow:(airflow,${id}_dag,prod)`;
    const job = `urn:li:dataJob:(${flow},${id}_task)`;
    await write(flow, 'dataFlowInfo', { name: `${id}_dag`, customProperties: {} });
    await write(job, 'dataJobInfo', { name: `${id}_task`, type: { string: 'COMMAND' }, customProperties: {} });
    const created = [1, 2, 3].map((m) => now - m * 60_000).concat([20, 21, 22, 23, 24].map((d) => now - d * DAY_MS));
    const runs = created.map((_, i) => `urn:li:dataProcessInstance:${id}_run_${i}`);
    for (const i of [7, 0, 5, 1, 6, 2, 4, 3]) {
      await write(runs[i], 'dataProcessInstanceProperties', { name: `run ${i}`, created: { time: created[i], actor: 'urn:li:corpuser:airflow' }, customProperties: {} });
      await write(runs[i], 'dataProcessInstanceRelationships', { parentTemplate: job, upstreamInstances: [] });
    }

    // Three finished execution requests of one ingestion source: with at most two kept per source, only the newest stays.
    const source = `urn:li:dataHubIngestionSource:${id}`;
    const requests = [0, 1, 2].map((i) => `urn:li:dataHubExecutionRequest:${id}_${i}`);
    for (const i of [2, 0, 1]) {
      await write(requests[i], 'dataHubExecutionRequestInput', { task: 'RUN_INGEST', args: {}, executorId: 'default', source: { type: 'SCHEDULED_INGESTION_SOURCE', ingestionSource: source }, requestedAt: now - i * 3600_000 });
      await write(requests[i], 'dataHubExecutionRequestResult', { status: 'SUCCESS', startTimeMs: now - i * 3600_000, durationMs: 1000 });
    }

    // A token whose record says it expired (its signature is still good until its own expiry), and one that has not.
    const expired = await mintToken({ scopes: ['read'] });
    const current = await mintToken({ scopes: ['read'] });
    const tokenUrn = (jti: string) => `urn:li:dataHubAccessToken:${jti}`;
    const tokenInfo = (name: string, expiresAt: number) => ({ name, actorUrn: 'urn:li:corpuser:test-bot', ownerUrn: 'urn:li:corpuser:test-bot', createdAt: now - 2 * DAY_MS, expiresAt });
    await write(tokenUrn(expired.claims.jti), 'dataHubAccessTokenInfo', tokenInfo('expired', now - DAY_MS));
    await write(tokenUrn(current.claims.jti), 'dataHubAccessTokenInfo', tokenInfo('current', now + DAY_MS));
    const asReader = (token: string) => svc.call('POST', '/api/graphql', { query: '{ dataJob(urn: "x") { urn } }' }, { authorization: `Bearer ${token}` });
    expect((await asReader(expired.token)).status).toBe(200);

    await svc.indexer.waitUntilIndexed();
    const recipe = join(client.home, 'gc.yaml');
    await writeFile(
      recipe,
      [
        'pipeline_name: gc',
        'source:',
        '  type: datahub-gc',
        '  config:',
        '    dataprocess_cleanup: {retention_days: 10, keep_last_n: 5, delay: 0}',
        '    soft_deleted_entities_cleanup: {retention_days: 0, delay: 0}',
        '    execution_request_cleanup: {keep_history_min_count: 1, keep_history_max_count: 2}',
        'datahub_api:',
        `  server: ${svc.url}`,
        `  token: ${admin.token}`,
        'sink:',
        '  type: datahub-rest',
        '  config:',
        `    server: ${svc.url}`,
        `    token: ${admin.token}`,
        '',
      ].join('\n'),
    );
    const gc = await client.cli(['ingest', '-c', recipe]);
    const output = `${gc.stdout}\n${gc.stderr}`;
    expect(output).not.toMatch(/finished with at least \d+ failures|Error executing graphql/i);
    expect(gc.code).toBe(0);

    // Soft-deleted entity purged; the live one kept.
    expect(await aspectOf(removed, 'datasetProperties')).toBeNull();
    expect(await aspectOf(live, 'datasetProperties')).toEqual({ name: 'live', customProperties: {} });
    // The three newest runs kept; the five older soft-deleted (keep_last_n, then the retention).
    for (const [i, urn] of runs.entries()) expect([i, await aspectOf(urn, 'status')]).toEqual([i, i < 3 ? null : { removed: true }]);
    // The newest execution request kept, the older two deleted.
    expect(await Promise.all(requests.map(async (r) => (await aspectOf(r, 'dataHubExecutionRequestResult')) !== null))).toEqual([true, false, false]);
    // The expired token revoked and its record removed; the other untouched.
    expect(await aspectOf(tokenUrn(expired.claims.jti), 'dataHubAccessTokenInfo')).toBeNull();
    expect((await asReader(expired.token)).status).toBe(401);
    expect(await aspectOf(tokenUrn(current.claims.jti), 'dataHubAccessTokenInfo')).not.toBeNull();
    expect((await asReader(current.token)).status).toBe(200);

    // What the GC read, as GraphQL answers it now: the job's remaining runs, newest first.
    await svc.indexer.waitUntilIndexed();
    const query = `{ dataJob(urn: "${job}") { jobId lastIngested runs(start: 0, count: 10) { total runs { urn created { time actor } } } dataFlow { urn } }
                     dataFlow(urn: "${flow}") { orchestrator cluster } }`;
    const answer = await svc.call('POST', '/api/graphql', { query }, { authorization: `Bearer ${admin.token}` });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data).toEqual({
      dataJob: {
        jobId: `${id}_task`,
        lastIngested: null,
        runs: { total: 3, runs: [0, 1, 2].map((i) => ({ urn: runs[i], created: { time: created[i], actor: 'urn:li:corpuser:airflow' } })) },
        dataFlow: { urn: flow },
      },
      dataFlow: { orchestrator: 'airflow', cluster: 'prod' },
    });
  });
});
