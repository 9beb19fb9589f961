import { join } from 'node:path';
import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, runProcess, type DatahubClient } from '../support/datahub-client';
import { startTestService, uniqueId, type TestService } from '../support/service';

/**
 * The official client's patch builders against the service, unchanged (test/python/patch_builders_check.py): each
 * addresses array elements by key (`/assets/<urn>`, `/editableSchemaFieldInfo/<fieldPath>/globalTags/tags/<urn>`,
 * `/actors/users/<urn>`), as DataHub's patch templates key them; without a template such a path was a 400.
 */
describe("the official client's patch builders", () => {
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

  it('apply keyed additions and removals, and the values read back are what DataHub would store', async () => {
    const suffix = uniqueId('pt');
    const run = await runProcess(join(client.venv, 'bin', 'python'), [join(__dirname, '..', 'python', 'patch_builders_check.py'), svc.url, suffix], client.env(), { cwd: client.home });
    expect(run.stderr).not.toMatch(/Traceback/);
    expect(run.code).toBe(0);
    const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
    const field = (name: string, path: string) => `urn:li:schemaField:(${dataset(name)},${path})`;
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toEqual({
      'dataProduct assets': [dataset(`pt_${suffix}`)],
      'field tags and terms': [['email', ['urn:li:tag:gdpr'], ['urn:li:glossaryTerm:Email']]],
      'structured property entity types': ['urn:li:entityType:datahub.dataset', 'urn:li:entityType:datahub.chart'],
      'form prompts and users': { prompts: ['p1', 'p2'], users: ['urn:li:corpuser:pt'] },
      'datajob fine-grained lineage and domain': { fgl: [[[field(`pt_other_${suffix}`, 'a')], [field(`pt_${suffix}`, 'b')]]], domains: ['urn:li:domain:pt'], domainAssociations: ['urn:li:domain:pt'] },
    });
  });
});
