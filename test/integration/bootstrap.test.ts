import { BOOTSTRAP_PLATFORM_COUNT } from '../../src/services/bootstrap/data-platforms';
import { proposal } from '../support/samples';
import { bearer, enc, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * DataHub's well-known data platforms, created at start where they have no info yet (BOOTSTRAP_DATA_PLATFORMS; the
 * other suites turn it off, as they share one database).
 */
describe('data platforms created at start', () => {
  const services: TestService[] = [];
  const prefix = `${uniqueId('boot').toLowerCase().replace(/[^a-z0-9]/g, '')}_`;
  const start = async () => {
    const svc = await startTestService({ BOOTSTRAP_DATA_PLATFORMS: 'true', SEARCH_INDEX_PREFIX: prefix });
    services.push(svc);
    return svc;
  };
  afterAll(async () => {
    for (const svc of services) await svc.close();
  });

  const info = async (svc: TestService, platform: string) => {
    const res = await svc.call('GET', `/aspects/${enc(`urn:li:dataPlatform:${platform}`)}?aspect=dataPlatformInfo&version=0`);
    return res.status === 200 ? (Object.values(res.body.aspect)[0] as Record<string, unknown>) : null;
  };
  const until = async <T>(read: () => Promise<T | null>): Promise<T> => {
    for (let i = 0; i < 200; i++) {
      const value = await read();
      if (value !== null) return value;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('not created within 10 s');
  };

  it("creates each platform's info as DataHub's bootstrap has it, keeps a platform's own info, and writes nothing again", async () => {
    // A platform whose info someone already wrote keeps it.
    const writer = await startTestService();
    services.push(writer);
    const ours = { name: 'hive', displayName: `Our Hive ${prefix}`, type: 'FILE_SYSTEM', datasetNameDelimiter: '.' };
    expect((await writer.call('POST', '/aspects?action=ingestProposal', proposal('urn:li:dataPlatform:hive', 'dataPlatformInfo', ours))).status).toBe(200);

    const first = await start();
    expect(await until(() => info(first, 'snowflake'))).toEqual({
      name: 'snowflake',
      displayName: 'Snowflake',
      type: 'RELATIONAL_DB',
      datasetNameDelimiter: '.',
      logoUrl: 'assets/platforms/snowflakelogo.png',
    });
    // The last platform of the list: the batch is one transaction, so all are there once one is.
    expect(await info(first, 'datahub')).toEqual({ name: 'datahub', displayName: 'DataHub', type: 'OTHERS', datasetNameDelimiter: '.' });
    expect(await info(first, 'unknown')).toMatchObject({ name: 'Unknown Platform', displayName: 'N/A' });
    expect(await info(first, 'hive')).toEqual(ours);
    expect(BOOTSTRAP_PLATFORM_COUNT).toBeGreaterThan(80);

    const { token } = await mintToken();
    const answer = await first.call('POST', '/api/graphql', { query: '{ dataPlatform(urn: "urn:li:dataPlatform:gcs") { name properties { displayName type datasetNameDelimiter } } }' }, bearer(token));
    expect(answer.body.data).toEqual({ dataPlatform: { name: 'gcs', properties: { displayName: 'Google Cloud Storage', type: 'FILE_SYSTEM', datasetNameDelimiter: '/' } } });

    // A second start finds them all and writes no new version.
    const versionOf = async (svc: TestService) => {
      const res = await svc.call('GET', `/aspects/${enc('urn:li:dataPlatform:snowflake')}?aspect=dataPlatformInfo&version=0`);
      return res.body.aspect && (await svc.call('GET', `/openapi/v3/entity/dataplatform/${enc('urn:li:dataPlatform:snowflake')}/dataplatforminfo?systemMetadata=true`)).body.systemMetadata.version;
    };
    const before = await versionOf(first);
    const second = await start();
    await new Promise((r) => setTimeout(r, 1000));
    expect(await versionOf(second)).toBe(before);
    expect(await info(second, 'hive')).toEqual(ours);
  });

  it("creates DataHub's retention policy for ingestion run results where none is stored, and keeps an admin's", async () => {
    const policy = 'urn:li:dataHubRetention:(dataHubExecutionRequest,dataHubExecutionRequestResult)';
    const writer = await startTestService();
    services.push(writer);
    const stored = async (svc: TestService) => {
      const res = await svc.call('GET', `/aspects/${enc(policy)}?aspect=dataHubRetentionConfig&version=0`);
      return res.status === 200 ? (Object.values(res.body.aspect)[0] as Record<string, unknown>) : null;
    };
    try {
      expect((await writer.call('POST', '/entities?action=delete', { urn: policy })).status).toBe(200);
      const first = await startTestService({ BOOTSTRAP_RETENTION_POLICIES: 'true', SEARCH_INDEX_PREFIX: prefix });
      services.push(first);
      expect(await until(() => stored(first))).toEqual({ retention: { version: { maxVersions: 1 } } });

      // A run's result written three times keeps only its newest history version.
      const run = `urn:li:dataHubExecutionRequest:${prefix}run`;
      for (const status of ['PENDING', 'RUNNING', 'SUCCESS']) {
        expect((await first.call('POST', '/aspects?action=ingestProposal', proposal(run, 'dataHubExecutionRequestResult', { status }))).status).toBe(200);
      }
      const version = (v: number) => first.call('GET', `/aspects/${enc(run)}?aspect=dataHubExecutionRequestResult&version=${v}`);
      expect((await version(1)).status).toBe(404);
      expect((await version(2)).body.aspect).toEqual({ 'com.linkedin.execution.ExecutionRequestResult': { status: 'RUNNING' } });

      // An admin's policy stays through the next start.
      const admin = { retention: { version: { maxVersions: 5 } } };
      expect((await first.call('POST', '/aspects?action=ingestProposal', proposal(policy, 'dataHubRetentionConfig', admin))).status).toBe(200);
      const second = await startTestService({ BOOTSTRAP_RETENTION_POLICIES: 'true', SEARCH_INDEX_PREFIX: prefix });
      services.push(second);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await stored(second)).toEqual(admin);
    } finally {
      await writer.call('POST', '/entities?action=delete', { urn: policy });
    }
  });

  it("creates DataHub's root user where it has no info, searchable as a user, and keeps an edited profile", async () => {
    const root = 'urn:li:corpuser:datahub';
    const writer = await startTestService();
    services.push(writer);
    const profile = async (svc: TestService) => {
      const res = await svc.call('GET', `/aspects/${enc(root)}?aspect=corpUserInfo&version=0`);
      return res.status === 200 ? (Object.values(res.body.aspect)[0] as Record<string, unknown>) : null;
    };
    try {
      expect((await writer.call('POST', '/entities?action=delete', { urn: root })).status).toBe(200);
      const first = await startTestService({ BOOTSTRAP_ROOT_USER: 'true', SEARCH_INDEX_PREFIX: prefix });
      services.push(first);
      expect(await until(() => profile(first))).toEqual({ active: true, displayName: 'DataHub', title: 'DataHub Root User' });
      // `datahub search --filter entity_type=corpuser` finds it (DataHub's search smoke test counts on one user at least).
      await first.indexer.waitUntilIndexed([root]);
      const { token } = await mintToken();
      const found = await first.call('POST', '/api/graphql', { query: '{ searchAcrossEntities(input: {query: "*", types: [CORP_USER], count: 10}) { total searchResults { entity { urn } } } }' }, bearer(token));
      expect(found.body.data.searchAcrossEntities.searchResults).toEqual([{ entity: { urn: root } }]);

      // An edited profile stays through the next start.
      const edited = { active: true, displayName: 'Root', title: 'Administrator' };
      expect((await first.call('POST', '/aspects?action=ingestProposal', proposal(root, 'corpUserInfo', edited))).status).toBe(200);
      const second = await startTestService({ BOOTSTRAP_ROOT_USER: 'true', SEARCH_INDEX_PREFIX: prefix });
      services.push(second);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await profile(second)).toEqual(edited);
    } finally {
      await writer.call('POST', '/entities?action=delete', { urn: root });
    }
  });
});
