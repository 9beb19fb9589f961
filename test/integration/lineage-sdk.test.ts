import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { deleteEntities, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * The official SDK v2 (acryl-datahub's DataHubClient) lineage calls, unchanged: entities.upsert/get/update (PATCH),
 * lineage.add_lineage and its deprecated variants, get_lineage (hops, platform filter, upstream, max_hops=3, a column).
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

describe('official SDK v2 lineage calls, unchanged', () => {
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
    const result = await run(
      join(venv, 'bin', 'python'),
      [join(PYTHON_DIR, 'lineage_check.py'), svc.url, token, uniqueId('sdk')],
      { ...env, DATAHUB_SKIP_CONFIG: 'true', DATAHUB_TELEMETRY_ENABLED: 'false' },
      5 * 60_000,
    );
    checks = result.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  }, 20 * 60_000);

  afterAll(async () => {
    await deleteEntities(svc.call, checks.find((c) => c.check === 'plan')?.urns ?? []);
    await svc.close();
  });

  test.each([
    'entities.upsert/get',
    'add_lineage',
    'add_dataset_copy_and_transform_lineage',
    'get_lineage downstream 2 hops platform filter',
    'get_lineage upstream',
    'get_lineage max_hops=3',
    'get_lineage column',
    'entities.update/get with PATCH',
    'add_lineage chart and dashboard',
  ])('%s', (name) => {
    const check = checks.find((c) => c.check === name);
    expect(check).toBeDefined();
    if (!check!.ok) throw new Error(`${check!.error}\n${check!.trace ?? ''}`);
  });
});
