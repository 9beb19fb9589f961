import { join } from 'node:path';
import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, runProcess, type DatahubClient } from '../support/datahub-client';
import { proposal } from '../support/samples';
import { startTestService, uniqueId, type TestService } from '../support/service';

/**
 * Lookups the official client makes through search, unchanged (test/python/lookups_check.py): a domain by name through
 * rest.li search, read as DataHub 1.x answers its client ({entity, matchedFields} per result), and platform resources
 * by key through the OpenAPI v3 scroll, which the client names in lower case.
 */
describe('the official client looks entities up through search', () => {
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

  it('finds a domain by name and a platform resource by its primary and secondary keys', async () => {
    const suffix = uniqueId('lookup');
    const run = await runProcess(join(client.venv, 'bin', 'python'), [join(__dirname, '..', 'python', 'lookups_check.py'), svc.url, suffix], client.env(), { cwd: client.home });
    expect(run.stderr).not.toMatch(/Traceback/);
    expect(run.code).toBe(0);
    const found = JSON.parse(run.stdout.trim().split('\n').pop()!);
    expect(found).toEqual({ domain: `urn:li:domain:d_${suffix}`, byKey: [found.resourceId], bySecondaryKey: [found.resourceId], resourceId: expect.any(String) });
  });

  it('answers other callers of rest.li search with the interface document\'s list of urns', async () => {
    const name = uniqueId('lookup_dataset');
    const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
    expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'datasetProperties', { name, description: 'looked up' }))).status).toBe(200);
    await svc.indexer.waitUntilIndexed([urn], 30_000);
    const query = { input: name, entity: 'dataset', start: 0, count: 10 };
    const res = await svc.call('POST', '/entities?action=search', query);
    expect(res.body.value.entities).toEqual([urn]);
    const official = await svc.call('POST', '/entities?action=search', query, { 'X-DataHub-Py-Cli-Version': '1.7.0' });
    expect(official.body.value.entities).toEqual([{ entity: urn, matchedFields: res.body.value.metadata.matches[0].matchedFields }]);
    expect(official.body.value.metadata).toEqual(res.body.value.metadata);
  });
});
