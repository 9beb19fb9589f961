import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, deleteEntities, enc, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * The official DataHub Python client (acryl-datahub, pinned in test/python/requirements.txt) and its `datahub` CLI,
 * used unchanged against this service. test/python/setup-venv.sh installs them once into a cached virtualenv.
 */

const PYTHON_DIR = join(__dirname, '..', 'python');
const SETUP_TIMEOUT_MS = 15 * 60_000;
const PROCESS_TIMEOUT_MS = 5 * 60_000;

interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program with an argument list (no shell), resolving with its exit code and output whatever the code. */
function runProcess(file: string, args: string[], env: NodeJS.ProcessEnv, timeout = PROCESS_TIMEOUT_MS): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(new Error(`${file} failed to run: ${err.message}\n${stderr}`));
      resolve({ code: err ? (err.code as number) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

interface Check {
  check: string;
  ok: boolean;
  error?: string;
  [detail: string]: unknown;
}

describe('official DataHub Python client, unchanged', () => {
  let svc: TestService;
  let venv: string;
  let home: string;
  const created: string[] = [];

  /** The client's environment: only our service, no ~/.datahubenv, no telemetry, no inherited DATAHUB_* settings. */
  function clientEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DATAHUB_')) env[k] = v;
    return { ...env, HOME: home, DATAHUB_GMS_URL: svc.url, DATAHUB_SKIP_CONFIG: 'true', DATAHUB_TELEMETRY_ENABLED: 'false', PYTHONIOENCODING: 'utf-8' };
  }

  const datahub = (...args: string[]) => runProcess(join(venv, 'bin', 'datahub'), args, clientEnv());

  async function latest(urn: string, aspects?: string[]) {
    const res = await svc.call('GET', `/entitiesV2/${enc(urn)}${aspects ? `?aspects=List(${aspects.join(',')})` : ''}`);
    expect(res.status).toBe(200);
    return res.body.aspects as Record<string, { value: any; systemMetadata?: any }>;
  }

  const keyAspectStatus = async (urn: string) => (await svc.call('GET', `/aspects/${enc(urn)}?aspect=datasetKey&version=0`)).status;

  beforeAll(async () => {
    svc = await startTestService();
    home = await mkdtemp(join(tmpdir(), 'datahub-client-home-'));
    // Cold: creates the venv and installs the client from PyPI (a few minutes at most); warm: prints the cached path.
    const setup = await runProcess('bash', [join(PYTHON_DIR, 'setup-venv.sh')], process.env, SETUP_TIMEOUT_MS);
    if (setup.code !== 0) throw new Error(`setup-venv.sh failed (${setup.code}):\n${setup.stderr}`);
    venv = setup.stdout.trim().split('\n').pop()!;
  }, SETUP_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await deleteEntities(svc.call, created);
    await svc.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  describe('the Python library: DatahubRestEmitter and DataHubGraph', () => {
    const suffix = uniqueId('py');
    let checks: Check[];
    let urns: Record<string, string>;
    let run: ProcessResult;

    beforeAll(async () => {
      run = await runProcess(join(venv, 'bin', 'python'), [join(PYTHON_DIR, 'client_check.py'), svc.url, suffix], clientEnv());
      checks = run.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Check);
      urns = (checks.find((c) => c.check === 'plan')?.urns ?? {}) as Record<string, string>;
      created.push(...Object.values(urns));
      if (checks.length < 2) throw new Error(`client_check.py printed no checks (exit ${run.code}):\n${run.stderr.slice(-4000)}`);
    }, PROCESS_TIMEOUT_MS + 10_000);

    it.each([
      'emitter.test_connection',
      'graph.test_connection',
      'emitter.emit_mcp',
      'emitter.emit',
      'emitter.emit_mce',
      'emitter.emit_mcps',
      'graph.get_aspect',
      'graph.get_aspect(version=1)',
      'graph.get_aspect(missing)',
      'graph.get_aspect(key)',
      'graph.get_entity_raw',
      'graph.exists',
      'graph.get_related_entities',
      'graph.delete_entity(hard=False)',
      'graph.delete_entity(hard=True)',
    ])('%s passes', (name) => {
      const check = checks.find((c) => c.check === name) ?? { check: name, ok: false, error: `not reported; exit ${run.code}`, stderr: run.stderr.slice(-4000) };
      // The whole line is the failure message when it did not pass.
      expect(check.ok ? 'ok' : JSON.stringify(check, null, 2)).toBe('ok');
    });

    it('stays on the RPC transport (the service advertises no OpenAPI ingestion)', () => {
      const connection = checks.find((c) => c.check === 'graph.test_connection');
      expect(connection).toMatchObject({ ok: true, openapi_ingestion: false });
    });

    it('stored what emit_mcp wrote, with the client system metadata', async () => {
      const aspects = await latest(urns.mcp);
      expect(Object.keys(aspects)).toEqual(expect.arrayContaining(['datasetKey', 'datasetProperties', 'ownership', 'status', 'globalTags', 'browsePaths']));
      expect(aspects.datasetProperties.value).toMatchObject({ name: 'by_mcp', description: 'second description é ✓', customProperties: { team: 'core' } });
      expect(aspects.ownership.value.owners).toEqual([expect.objectContaining({ owner: urns.owner, type: 'DATAOWNER' })]);
      expect(aspects.status.value).toEqual({ removed: false });
      expect(aspects.globalTags.value.tags).toEqual([{ tag: urns.tag }]);
      expect(aspects.datasetProperties.systemMetadata).toMatchObject({ properties: { clientId: 'acryl-datahub' } });
      const tag = await latest(urns.tag, ['tagProperties']);
      expect(tag.tagProperties.value).toMatchObject({ description: 'made by emit()' });
    });

    it('soft-deleted the emit_mce entity (status.removed) and hides it from search, keeping the emit_mcp one', async () => {
      const aspects = await latest(urns.mce);
      expect(aspects.status.value).toEqual({ removed: true });
      expect(aspects.datasetProperties.value).toMatchObject({ description: 'from a snapshot' });
      await svc.indexer.waitUntilIndexed([urns.mcp, urns.mce, urns.batch]);
      const search = async (name: string) => {
        const res = await svc.call('POST', '/entities?action=search', { input: `client_${suffix}.${name}`, entity: 'dataset', start: 0, count: 10 });
        expect(res.status).toBe(200);
        return res.body.value.entities as string[];
      };
      expect(await search('by_mcp')).toContain(urns.mcp);
      expect(await search('by_mce')).not.toContain(urns.mce);
    });

    it('hard-deleted the emit_mcps entity: its key aspect is gone', async () => {
      expect(await keyAspectStatus(urns.batch)).toBe(404);
      expect(await keyAspectStatus(urns.never)).toBe(404);
      const aspects = await latest(urns.batch);
      expect(Object.keys(aspects)).toEqual(['datasetKey']);
    });
  });

  describe('the datahub CLI: put, get, delete --soft, delete --hard', () => {
    const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,cli_${uniqueId()}.orders,PROD)`;
    const properties = { description: 'written by datahub put', customProperties: { source: 'cli' } };
    beforeAll(() => {
      created.push(urn);
    });

    it('datahub put writes an aspect from a file', async () => {
      const file = join(home, 'datasetProperties.json');
      await writeFile(file, JSON.stringify(properties));
      const put = await datahub('put', '--urn', urn, '--aspect', 'datasetProperties', '-d', file);
      expect({ code: put.code, stderr: put.code === 0 ? '' : put.stderr }).toEqual({ code: 0, stderr: '' });
      expect(put.stdout).toContain('Update succeeded with status 200');
      expect((await latest(urn, ['datasetProperties'])).datasetProperties.value).toMatchObject(properties);
    });

    it('datahub get prints the aspect', async () => {
      const get = await datahub('get', '--urn', urn, '--aspect', 'datasetProperties');
      expect({ code: get.code, stderr: get.code === 0 ? '' : get.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(get.stdout)).toEqual({ datasetProperties: expect.objectContaining(properties) });
    });

    it('datahub delete --soft sets status.removed', async () => {
      const del = await datahub('delete', '--urn', urn, '--soft', '-f');
      expect({ code: del.code, stderr: del.code === 0 ? '' : del.stderr }).toEqual({ code: 0, stderr: '' });
      expect(del.stdout).toContain('Soft deleted 1 entities');
      expect((await latest(urn, ['status'])).status.value).toEqual({ removed: true });
      const get = await datahub('get', '--urn', urn, '--aspect', 'status');
      expect(JSON.parse(get.stdout)).toEqual({ status: { removed: true } });
    });

    it('datahub delete --hard removes the entity', async () => {
      const del = await datahub('delete', '--urn', urn, '--hard', '-f');
      expect({ code: del.code, stderr: del.code === 0 ? '' : del.stderr }).toEqual({ code: 0, stderr: '' });
      expect(del.stdout).toMatch(/Hard deleted 1 entities \(impacts [1-9]\d* versioned rows/);
      expect(await keyAspectStatus(urn)).toBe(404);
      const get = await datahub('get', '--urn', urn, '--aspect', 'status');
      expect(get.code).not.toBe(0);
      expect(get.stderr).toContain(`urn ${urn} not found`);
    });
  });

  describe('the emitter against an overloaded service', () => {
    // A queue of four writes: 16 emitters starting at once are mostly refused with 429 + Retry-After at first. (A queue
    // of one also refuses retries often enough, on a busy machine, to exhaust the client's retries.)
    let overloaded: TestService;
    beforeAll(async () => {
      overloaded = await startTestService({ WRITE_QUEUE_MAX_WRITES: '4', WRITE_CONCURRENCY: '1' });
    });
    afterAll(async () => {
      await overloaded?.close();
    });

    it('retries 429 with its default policy until every write lands', async () => {
      const suffix = uniqueId('retry');
      const run = await runProcess(join(venv, 'bin', 'python'), [join(PYTHON_DIR, 'retry_check.py'), overloaded.url, suffix, '16', '4'], clientEnv());
      const line = run.stdout.split('\n').find((l) => l.startsWith('{'));
      if (!line) throw new Error(`retry_check.py printed nothing (exit ${run.code}):\n${run.stderr.slice(-4000)}`);
      const result = JSON.parse(line) as { urns: string[]; acknowledged: number; failed: number; retried_429: number; errors: string[] };
      created.push(...result.urns);
      expect({ acknowledged: result.acknowledged, failed: result.failed, errors: result.errors }).toEqual({ acknowledged: 64, failed: 0, errors: [] });
      expect(result.retried_429).toBeGreaterThan(0);
      for (const urn of result.urns) {
        const res = await overloaded.call('GET', `/aspects/${enc(urn)}?aspect=datasetProperties&version=0`);
        expect(res.status).toBe(200);
      }
    }, PROCESS_TIMEOUT_MS);
  });

  describe('against a service that requires tokens (HOST=0.0.0.0, AUTH_REQUIRED_EVERYWHERE unset)', () => {
    let exposed: TestService;
    let token: string;
    let read: Record<string, string>;
    const actor = `urn:li:corpuser:${uniqueId('client')}`;
    const toDelete: string[] = [];

    /** As clientEnv, against the exposed service; DATAHUB_GMS_TOKEN only when given. */
    const exposedEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...clientEnv(), DATAHUB_GMS_URL: exposed.url, ...extra });
    const aspectOf = async (urn: string, aspect: string) => exposed.call('GET', `/aspects/${enc(urn)}?aspect=${aspect}&version=0`, undefined, read);
    /** The latest datasetProperties with its audit stamp: written by the token's actor. */
    const properties = async (urn: string) => (await exposed.call('GET', `/entitiesV2/${enc(urn)}?aspects=List(datasetProperties)`, undefined, read)).body.aspects.datasetProperties;

    beforeAll(async () => {
      exposed = await startTestService({ HOST: '0.0.0.0', CACHE_PEER_HOST: '127.0.0.1' });
      token = (await mintToken({ actor, scopes: ['write'] })).token;
      read = bearer((await mintToken({ scopes: ['read'] })).token);
    });
    afterAll(async () => {
      const admin = bearer((await mintToken({ scopes: ['admin'] })).token);
      for (const urn of toDelete) await exposed.call('POST', '/entities?action=delete', { urn }, admin);
      await exposed?.close();
    });

    it('the REST emitter and graph client with token= write, read and delete; without a token both are refused', async () => {
      const run = await runProcess(join(venv, 'bin', 'python'), [join(PYTHON_DIR, 'token_check.py'), exposed.url, token, uniqueId('tok')], exposedEnv());
      const checks = run.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Check);
      const urns = (checks.find((c) => c.check === 'plan')?.urns ?? {}) as Record<string, string>;
      toDelete.push(...Object.values(urns));
      expect(checks.filter((c) => !c.ok)).toEqual([]);
      expect(checks.map((c) => c.check)).toEqual([
        'plan',
        'emitter(no token).emit_mcp refused',
        'emitter(token=).emit_mcp',
        'graph(token=).get_aspect',
        'graph(no token).get_aspect refused',
        'graph(no token).delete_entity refused',
        'graph(token=).delete_entity',
      ]);
      expect(run.code).toBe(0);
      expect(await properties(urns.emitted)).toMatchObject({ value: { description: 'emitted with token=' }, created: { actor } });
      expect((await aspectOf(urns.anonymous, 'datasetKey')).status).toBe(404);
      expect((await aspectOf(urns.deleted, 'datasetKey')).status).toBe(404);
    }, PROCESS_TIMEOUT_MS);

    it('datahub ingest of a file source writes with DATAHUB_GMS_TOKEN, and fails writing nothing without it', async () => {
      const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,ingest_${uniqueId()}.orders,PROD)`;
      toDelete.push(urn);
      const file = join(home, `mcps-${uniqueId()}.json`);
      await writeFile(file, JSON.stringify([{ entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'datasetProperties', aspect: { json: { description: 'from datahub ingest' } } }]));
      const recipe = join(home, `recipe-${uniqueId()}.yml`);
      // The run reports itself as the dataHubExecutionRequest of its run_id, deleted afterwards too.
      const runId = uniqueId('token-ingest');
      toDelete.push(`urn:li:dataHubExecutionRequest:${runId}`);
      // No sink: the CLI's default datahub-rest sink takes its server and token from the environment.
      await writeFile(recipe, `run_id: ${runId}\nsource:\n  type: file\n  config:\n    path: ${file}\n`);

      const anonymous = await runProcess(join(venv, 'bin', 'datahub'), ['ingest', '-c', recipe], exposedEnv());
      expect(anonymous.code).not.toBe(0);
      expect(`${anonymous.stdout}${anonymous.stderr}`).toContain('Missing access token');
      expect((await aspectOf(urn, 'datasetKey')).status).toBe(404);

      const ingest = await runProcess(join(venv, 'bin', 'datahub'), ['ingest', '-c', recipe], exposedEnv({ DATAHUB_GMS_TOKEN: token }));
      expect({ code: ingest.code, output: ingest.code === 0 ? '' : `${ingest.stdout}\n${ingest.stderr}`.slice(-4000) }).toEqual({ code: 0, output: '' });
      expect(ingest.stdout).toContain('Pipeline finished successfully');
      expect(await properties(urn)).toMatchObject({ value: { description: 'from datahub ingest' }, created: { actor } });
    }, PROCESS_TIMEOUT_MS);

    it('datahub init --host --token stores the token, and later commands send it', async () => {
      const initHome = join(home, uniqueId('init'));
      await mkdir(initHome);
      // Configured by ~/.datahubenv alone: no server or token in the environment.
      const env: NodeJS.ProcessEnv = { ...exposedEnv({ HOME: initHome }) };
      delete env.DATAHUB_GMS_URL;
      delete env.DATAHUB_SKIP_CONFIG;
      const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,init_${uniqueId()}.orders,PROD)`;
      toDelete.push(urn);
      const init = await runProcess(join(venv, 'bin', 'datahub'), ['init', '--host', exposed.url, '--token', token, '--force'], env);
      expect({ code: init.code, stderr: init.code === 0 ? '' : init.stderr }).toEqual({ code: 0, stderr: '' });
      const file = join(home, `status-${uniqueId()}.json`);
      await writeFile(file, JSON.stringify({ removed: false }));
      const put = await runProcess(join(venv, 'bin', 'datahub'), ['put', '--urn', urn, '--aspect', 'status', '-d', file], env);
      expect({ code: put.code, stderr: put.code === 0 ? '' : put.stderr }).toEqual({ code: 0, stderr: '' });
      const get = await runProcess(join(venv, 'bin', 'datahub'), ['get', '--urn', urn, '--aspect', 'status'], env);
      expect(JSON.parse(get.stdout)).toEqual({ status: { removed: false } });
    }, PROCESS_TIMEOUT_MS);
  });
});
