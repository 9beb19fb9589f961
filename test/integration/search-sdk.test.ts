import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * The official client's search and bulk reads, unchanged (test/python/search_check.py): the SDK v2's
 * client.search.get_urns with its filters, the graph client's get_urns_by_filter (status variants, paging, container, structured properties),
 * get_entities, scroll_entities / scroll_relationships / scroll_lineage, the CLI migrate command's batch get,
 * `datahub search`, and `datahub delete` by platform and entity type (dry runs, then a real hard delete).
 */
const PYTHON_DIR = join(__dirname, '..', 'python');

function run(file: string, args: string[], env: NodeJS.ProcessEnv, timeout: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(new Error(`${file} failed to run: ${err.message}\n${stderr}`));
      resolve({ code: err ? (err.code as number) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

describe('official client search, bulk reads and delete by filter, unchanged', () => {
  let svc: TestService;
  let checks: { check: string; ok: boolean; urns?: string[]; error?: string; trace?: string }[] = [];

  beforeAll(async () => {
    svc = await startTestService();
    const setup = await run('bash', [join(PYTHON_DIR, 'setup-venv.sh')], process.env, 15 * 60_000);
    if (setup.code !== 0) throw new Error(`setup-venv.sh failed: ${setup.stderr}`);
    const venv = setup.stdout.trim().split('\n').pop()!;
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DATAHUB_')) env[k] = v;
    const { token } = await mintToken();
    const result = await run(join(venv, 'bin', 'python'), [join(PYTHON_DIR, 'search_check.py'), svc.url, token, uniqueId('s')], { ...env, DATAHUB_TELEMETRY_ENABLED: 'false' }, 10 * 60_000);
    checks = result.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    if (checks.length === 0) throw new Error(`search_check.py printed nothing: ${result.stderr.slice(-3000)}`);
  }, 20 * 60_000);

  afterAll(async () => {
    for (const urn of checks.find((c) => c.check === 'plan')?.urns ?? []) await svc.call('POST', '/entities?action=delete', { urn });
    await svc.close();
  });

  test.each([
    'seed',
    'get_urns_by_filter platform, entity type, env',
    'get_urns_by_filter status variants',
    'get_urns_by_filter paging, query, extra filters, container',
    'get_urns_by_filter structured properties',
    'sdk search.get_urns filters',
    'get_entities',
    'entitiesV2 batch get',
    'scroll_entities',
    'scroll_relationships',
    'scroll_lineage',
    'datahub search',
    'datahub delete dry run',
    'datahub delete --hard by platform',
  ])('%s', (name) => {
    const check = checks.find((c) => c.check === name);
    expect(check).toBeDefined();
    if (!check!.ok) throw new Error(`${check!.error}\n${check!.trace ?? ''}`);
  });
});
