import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The official DataHub Python client (acryl-datahub, pinned in test/python/requirements.txt) and its `datahub` CLI, run
 * unchanged against a service. test/python/setup-venv.sh installs them once into a cached virtualenv.
 */

const PYTHON_DIR = join(__dirname, '..', 'python');
export const CLIENT_SETUP_TIMEOUT_MS = 15 * 60_000;
const PROCESS_TIMEOUT_MS = 5 * 60_000;

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program with an argument list (no shell), resolving with its exit code and output whatever the code. */
export function runProcess(file: string, args: string[], env: NodeJS.ProcessEnv, options: { timeout?: number; cwd?: string } = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, cwd: options.cwd, timeout: options.timeout ?? PROCESS_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(new Error(`${file} failed to run: ${err.message}\n${stderr}`));
      resolve({ code: err ? (err.code as number) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

export interface DatahubClient {
  venv: string;
  home: string;
  /** The client's environment: only this service, no ~/.datahubenv, no telemetry, no inherited DATAHUB_* settings. */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  /** The `datahub` CLI. */
  cli(args: string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<ProcessResult>;
  /** A Python script run with the client's interpreter. */
  python(script: string, args?: string[], options?: { env?: Record<string, string> }): Promise<ProcessResult>;
  close(): Promise<void>;
}

/** Sets the client up (cached venv) against the service at `serverUrl`. */
export async function datahubClient(serverUrl: string): Promise<DatahubClient> {
  const setup = await runProcess('bash', [join(PYTHON_DIR, 'setup-venv.sh')], process.env, { timeout: CLIENT_SETUP_TIMEOUT_MS });
  if (setup.code !== 0) throw new Error(`setup-venv.sh failed (${setup.code}):\n${setup.stderr}`);
  const venv = setup.stdout.trim().split('\n').pop()!;
  const home = await mkdtemp(join(tmpdir(), 'datahub-client-home-'));
  const env = (extra: Record<string, string> = {}) => {
    const inherited: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DATAHUB_')) inherited[k] = v;
    return { ...inherited, HOME: home, DATAHUB_GMS_URL: serverUrl, DATAHUB_SKIP_CONFIG: 'true', DATAHUB_TELEMETRY_ENABLED: 'false', PYTHONIOENCODING: 'utf-8', ...extra };
  };
  return {
    venv,
    home,
    env,
    cli: (args, options = {}) => runProcess(join(venv, 'bin', 'datahub'), args, env(options.env), { cwd: options.cwd ?? home }),
    python: (script, args = [], options = {}) => runProcess(join(venv, 'bin', 'python'), ['-c', script, ...args], env(options.env), { cwd: home }),
    close: () => rm(home, { recursive: true, force: true }),
  };
}
