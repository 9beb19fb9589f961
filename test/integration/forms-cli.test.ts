import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, type DatahubClient } from '../support/datahub-client';
import { mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * `datahub forms upsert` (the official CLI) with `entities.urns`: the form is written by proposals, then assigned to
 * the entities with GraphQL `batchAssignForm`, which was missing (the CLI logged the error and exited 0, the form
 * assigned to nothing).
 */
describe('datahub forms upsert', () => {
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

  it('assigns the form to the entities it lists, once, and refuses entities that do not exist', async () => {
    const id = uniqueId('form').replace(/[^a-zA-Z0-9_]/g, '_');
    const dataset = `urn:li:dataset:(urn:li:dataPlatform:hive,${id},PROD)`;
    const env = { DATAHUB_GMS_TOKEN: (await mintToken({ scopes: ['read', 'write'] })).token };
    const cli = (args: string[]) => client.cli(args, { env });
    await writeFile(join(client.home, 'status.json'), JSON.stringify({ removed: false }));
    await writeFile(join(client.home, 'property.yaml'), `- id: ${id}_prop\n  qualified_name: ${id}_prop\n  type: string\n  entity_types: [dataset]\n`);
    const form = (urns: string[]) =>
      `- id: ${id}\n  name: Ownership check\n  type: COMPLETION\n  prompts:\n    - id: ${id}_prompt\n      title: Owner\n      type: STRUCTURED_PROPERTY\n` +
      `      structured_property_urn: urn:li:structuredProperty:${id}_prop\n      required: false\n  entities:\n    urns:\n${urns.map((u) => `      - ${u}\n`).join('')}`;
    expect((await cli(['put', '--urn', dataset, '--aspect', 'status', '-d', 'status.json'])).code).toBe(0);
    expect((await cli(['properties', 'upsert', '-f', 'property.yaml'])).code).toBe(0);
    await writeFile(join(client.home, 'form.yaml'), form([dataset]));
    for (let run = 0; run < 2; run++) {
      const upsert = await cli(['forms', 'upsert', '-f', 'form.yaml']);
      expect(upsert.code).toBe(0);
      expect(`${upsert.stdout}${upsert.stderr}`).not.toMatch(/Error executing graphql/);
    }
    const forms = await svc.call('GET', `/aspects/${encodeURIComponent(dataset)}?aspect=forms&version=0`);
    expect(forms.status).toBe(200);
    expect(forms.body.aspect['com.linkedin.common.Forms']).toEqual({
      incompleteForms: [{ urn: `urn:li:form:${id}`, incompletePrompts: [], completedPrompts: [] }],
      completedForms: [],
    });
    await writeFile(join(client.home, 'form.yaml'), form([`urn:li:dataset:(urn:li:dataPlatform:hive,${id}_missing,PROD)`]));
    const missing = await cli(['forms', 'upsert', '-f', 'form.yaml']);
    expect(`${missing.stdout}${missing.stderr}`).toMatch(/does not exist/);
  });
});
