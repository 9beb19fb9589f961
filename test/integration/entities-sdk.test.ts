import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { deleteEntities, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * The official SDK v2 reads back every entity class it has: client.entities.upsert, then client.entities.get
 * (test/python/entities_check.py), unchanged. The get parses every aspect the service serves, defaults included.
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

type Check = { check: string; ok: boolean; urn?: string; urns?: string[]; types?: string[]; browse_path?: string[]; error?: string; trace?: string };

describe('official SDK v2 entities.upsert then entities.get, for every entity class', () => {
  let svc: TestService;
  let checks: Check[] = [];
  let stderr = '';

  beforeAll(async () => {
    svc = await startTestService();
    const setup = await run('bash', [join(PYTHON_DIR, 'setup-venv.sh')], process.env, 15 * 60_000);
    if (setup.code !== 0) throw new Error(`setup-venv.sh failed: ${setup.stderr}`);
    const venv = setup.stdout.trim().split('\n').pop()!;
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DATAHUB_')) env[k] = v;
    const { token } = await mintToken({ scopes: ['read', 'write'] });
    const result = await run(
      join(venv, 'bin', 'python'),
      [join(PYTHON_DIR, 'entities_check.py'), svc.url, token, uniqueId('sdk')],
      { ...env, DATAHUB_SKIP_CONFIG: 'true', DATAHUB_TELEMETRY_ENABLED: 'false' },
      5 * 60_000,
    );
    stderr = result.stderr;
    checks = result.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  }, 20 * 60_000);

  afterAll(async () => {
    await deleteEntities(svc.call, checks.find((c) => c.check === 'written')?.urns ?? []);
    await svc.close();
  });

  it('covers every class the SDK reads', () => {
    const types = checks.find((c) => c.check === 'classes')?.types;
    if (!types) throw new Error(`entities_check.py did not run: ${stderr.slice(-2000)}`);
    expect(types).toEqual(expect.arrayContaining(['container', 'dataset', 'dataFlow', 'dataJob', 'chart', 'dashboard', 'tag', 'glossaryTerm', 'mlModel']));
    for (const type of types) expect(checks.map((c) => c.check)).toContain(type);
  });

  it.each(['container', 'dataset', 'dataFlow', 'dataJob', 'chart', 'dashboard', 'tag', 'glossaryNode', 'glossaryTerm', 'mlModelGroup', 'mlModel', 'document', 'semanticModel', 'metric'])('%s', (type) => {
    const check = checks.find((c) => c.check === type);
    expect(check).toBeDefined();
    if (!check!.ok) throw new Error(`${check!.error}\n${check!.trace ?? ''}`);
  });

  it('reads back the browse path the SDK wrote, container chain included', () => {
    const dataset = checks.find((c) => c.check === 'dataset');
    const container = checks.find((c) => c.check === 'container');
    expect(container?.urn).toMatch(/^urn:li:container:/);
    expect(dataset?.browse_path).toContain(container!.urn);
  });
});
