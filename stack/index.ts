/**
 * Local stack: Neo4j, OpenSearch and Elasticsearch fetched from Maven Central and run as detached
 * processes on 127.0.0.1, each with data/logs/pid/state under <repo>/.stack/<server>/. See stack/README.md.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { engineVersion, fetchServer } from './fetch';
import { DEFAULT_HEAP, SERVERS } from './servers';
import {
  ALL_SERVERS,
  defaultRoot,
  freePort,
  groupMembers,
  isAlive as pidAlive,
  isPortFree,
  ourGroup,
  mkdirp,
  pidPath,
  readState,
  reservePort,
  rotate,
  ServerName,
  ServerState,
  serverDir,
  sleep,
  tailFile,
  terminateGroup,
  writeState,
} from './util';

export type { ServerName } from './util';
export { ALL_SERVERS } from './util';
export { VERSIONS } from './fetch';

export interface StartOptions {
  /** runtime folder, default <repo>/.stack */
  root?: string;
  servers: ServerName[];
  /** default: reuse the port recorded in state.json if free, else a free port from the OS */
  ports?: Partial<Record<ServerName, number>>;
  /** keep data between runs (npm start: true; default true). When false, a fresh data dir per start. */
  persistent?: boolean;
  /** progress messages */
  log?: (line: string) => void;
  /** JVM heap per server (e.g. '1g', '768m'); defaults in stack/servers.ts */
  heap?: Partial<Record<ServerName, string>>;
  /** readiness timeout per server, default 120 s (env STACK_START_TIMEOUT_MS) */
  timeoutMs?: number;
}

export interface ServerInfo {
  name: ServerName;
  /** bolt://127.0.0.1:p or http://127.0.0.1:p */
  url: string;
  pid: number;
  port: number;
}

const noop = () => {};

function resolveRoot(root?: string): string {
  return path.resolve(root ?? defaultRoot());
}

function defaultTimeout(): number {
  const env = Number(process.env.STACK_START_TIMEOUT_MS);
  return Number.isFinite(env) && env > 0 ? env : 120_000;
}

function infoOf(state: ServerState): ServerInfo {
  return { name: state.name, url: state.url, pid: state.pid ?? 0, port: state.port };
}

function checkHeap(name: ServerName, heap: string): string {
  if (!/^\d+[kmgKMG]?$/.test(heap)) throw new Error(`${name}: invalid heap size '${heap}' (expected e.g. 768m or 1g)`);
  return heap;
}

/**
 * The servers' environment without the malloc setting the service's launchers give it (`npm start` runs the stack from
 * the service's process): the JVMs run as `stack/cli.ts` and the benchmarks run them, on their own memory settings.
 */
function withoutServiceMallocSetting(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const rest = { ...env };
  delete rest.MALLOC_ARENA_MAX;
  return rest;
}

function uniq(names: ServerName[]): ServerName[] {
  const out: ServerName[] = [];
  for (const n of names) {
    if (!ALL_SERVERS.includes(n)) throw new Error(`unknown server '${n}' (expected one of ${ALL_SERVERS.join(', ')})`);
    if (!out.includes(n)) out.push(n);
  }
  return out;
}

/** mvn downloads + assembly into the cache; idempotent (a marker file makes repeated calls skip mvn). */
export async function fetchServers(servers: ServerName[], log: (line: string) => void = noop): Promise<void> {
  // sequential: parallel mvn runs can race on the same ~/.m2 files
  for (const name of uniq(servers)) await fetchServer(name, log);
}

// ---------------------------------------------------------------------------------------------

interface LaunchRequest {
  root: string;
  name: ServerName;
  ports: Record<string, number>;
  dataDir: string;
  persistent: boolean;
  heap: string;
  wipeData: boolean;
  timeoutMs: number;
  log: (l: string) => void;
}

function describeFailure(name: ServerName, dir: string, why: string): string {
  const def = SERVERS[name];
  const logsDir = path.join(dir, 'logs');
  const consoleLog = path.join(logsDir, 'console.log');
  const main = def.mainLog(logsDir);
  let msg = `${name} failed to start: ${why}`;
  const c = tailFile(consoleLog, 40);
  msg += `\n--- last lines of ${consoleLog} ---\n${c || '(empty)'}`;
  const m = tailFile(main, 40);
  if (m) msg += `\n--- last lines of ${main} ---\n${m}`;
  return msg;
}

async function launch(req: LaunchRequest): Promise<ServerInfo> {
  const { root, name, log } = req;
  const def = SERVERS[name];
  const dir = mkdirp(serverDir(root, name));
  const logsDir = mkdirp(path.join(dir, 'logs'));
  if (req.wipeData) fs.rmSync(req.dataDir, { recursive: true, force: true });
  mkdirp(req.dataDir);

  for (const [key, port] of Object.entries(req.ports)) {
    if (!(await isPortFree(port))) {
      throw new Error(`${name}: ${key} port ${port} on 127.0.0.1 is already in use`);
    }
  }

  const consoleLog = path.join(logsDir, 'console.log');
  rotate(consoleLog);
  rotate(def.mainLog(logsDir));
  const spec = def.prepare({ root, dir, dataDir: req.dataDir, logsDir, ports: req.ports, heap: req.heap, log });

  const url = def.url(req.ports);
  const mainPort = req.ports[def.portKeys[0]];
  log(`starting ${name} ${def.version} on ${url} (data ${req.dataDir}${spec.user ? `, as user ${spec.user.name}` : ''})`);

  const fd = fs.openSync(consoleLog, 'a');
  if (spec.user) fs.fchownSync(fd, spec.user.uid, spec.user.gid);
  fs.writeSync(fd, `# ${new Date().toISOString()} ${spec.niceness ? `nice -n ${spec.niceness} ` : ''}${spec.command} ${spec.args.join(' ')}\n`);
  const started = Date.now();
  let child: ChildProcess;
  try {
    // nice execs the server in place: the pid and the process group stay the server's.
    const [command, args] = spec.niceness ? ['nice', ['-n', String(spec.niceness), spec.command, ...spec.args]] : [spec.command, spec.args];
    child = spawn(command, args, {
      cwd: spec.cwd,
      env: withoutServiceMallocSetting(spec.env),
      detached: true, // own process group: survives the caller, stoppable as a group
      stdio: ['ignore', fd, fd],
      uid: spec.user?.uid,
      gid: spec.user?.gid,
    });
  } finally {
    fs.closeSync(fd);
  }
  const pid = child.pid;
  if (!pid) {
    const err = await new Promise<Error>((r) => child.once('error', r));
    throw new Error(`${name}: could not spawn ${spec.command}: ${err.message}`);
  }
  let exited: string | undefined;
  const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
    exited = signal ? `signal ${signal}` : `exit code ${code}`;
  };
  child.once('exit', onExit);
  child.once('error', (e) => (exited = `spawn error ${e.message}`));

  fs.writeFileSync(pidPath(root, name), `${pid}\n`);
  const state: ServerState = {
    name,
    version: def.version,
    pid,
    port: mainPort,
    ports: req.ports,
    url,
    dataDir: req.dataDir,
    logsDir,
    persistent: req.persistent,
    heap: req.heap,
    user: spec.user?.name,
    startedAt: new Date(started).toISOString(),
  };
  writeState(root, state);

  const deadline = started + req.timeoutMs;
  let lastErr = '';
  for (;;) {
    if (exited) {
      await cleanupFailed(root, name, pid, state);
      throw new Error(describeFailure(name, dir, `process ${pid} exited (${exited}) before answering`));
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      await cleanupFailed(root, name, pid, state);
      throw new Error(
        describeFailure(name, dir, `no answer on ${url} within ${Math.round(req.timeoutMs / 1000)}s (last probe: ${lastErr})`),
      );
    }
    try {
      await def.probe(req.ports, Math.min(5000, Math.max(1000, remaining)));
      break;
    } catch (e) {
      lastErr = (e as Error).message;
      await sleep(500);
    }
  }
  child.removeListener('exit', onExit);
  child.unref();
  const readyMs = Date.now() - started;
  writeState(root, { ...state, readyMs });
  log(`${name} up on ${url} in ${(readyMs / 1000).toFixed(1)}s (pid ${pid})`);
  return { name, url, pid, port: mainPort };
}

async function cleanupFailed(root: string, name: ServerName, pid: number, state: ServerState): Promise<void> {
  if (groupMembers(pid).length) await terminateGroup(pid, 5_000).catch(noop);
  fs.rmSync(pidPath(root, name), { force: true });
  writeState(root, { ...state, pid: undefined, stoppedAt: new Date().toISOString() });
}

async function answers(root: string, name: ServerName, state: ServerState, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await SERVERS[name].probe(state.ports, Math.min(5000, Math.max(1000, deadline - Date.now())));
      return true;
    } catch {
      if (Date.now() >= deadline || !ourGroup(root, name, state.pid).length) return false;
      await sleep(500);
    }
  }
}

async function choosePorts(
  name: ServerName,
  requested: number | undefined,
  previous: ServerState | undefined,
): Promise<Record<string, number>> {
  const def = SERVERS[name];
  const ports: Record<string, number> = {};
  for (const [i, key] of def.portKeys.entries()) {
    const wanted = i === 0 ? requested : undefined;
    if (wanted) {
      ports[key] = wanted;
    } else {
      const prev = previous?.ports?.[key];
      const taken = Object.values(ports);
      ports[key] = prev && !taken.includes(prev) && (await isPortFree(prev)) ? prev : await freePort();
    }
    reservePort(ports[key]);
  }
  return ports;
}

/**
 * Start the requested servers that are not already running (a server recorded in state.json whose
 * process is alive and answers is reused). Resolves when every server answers.
 */
export async function startServers(opts: StartOptions): Promise<Record<ServerName, ServerInfo>> {
  const root = resolveRoot(opts.root);
  const log = opts.log ?? noop;
  const persistent = opts.persistent ?? true;
  const timeoutMs = opts.timeoutMs ?? defaultTimeout();
  const names = uniq(opts.servers);
  mkdirp(root);
  await fetchServers(names, log);

  // per server (in parallel, each under its own lock): reuse a running one, else launch it
  const ensure = (name: ServerName) =>
    withLock(root, name, timeoutMs, async (): Promise<{ info: ServerInfo; launched: boolean }> => {
      const prev = readState(root, name);
      const requested = opts.ports?.[name];
      if (prev?.pid && ourGroup(root, name, prev.pid).length) {
        if (requested && requested !== prev.port) {
          log(`${name} is running on port ${prev.port} but port ${requested} was requested: restarting it`);
          await stopServer(name, root);
        } else if (await answers(root, name, prev, timeoutMs)) {
          if (prev.persistent !== persistent) {
            log(`${name}: reusing the running server (started with persistent=${prev.persistent})`);
          }
          log(`${name} already running on ${prev.url} (pid ${prev.pid})`);
          return { info: infoOf(prev), launched: false };
        } else {
          log(`${name} (pid ${prev.pid}) is alive but does not answer: stopping it`);
          await stopServer(name, root);
        }
      } else if (prev?.pid) {
        fs.rmSync(pidPath(root, name), { force: true }); // stale
      }
      const ports = await choosePorts(name, requested, readState(root, name));
      const dir = serverDir(root, name);
      const info = await launch({
        root,
        name,
        ports,
        dataDir: path.join(dir, persistent ? 'data' : 'data-ephemeral'),
        persistent,
        heap: checkHeap(name, opts.heap?.[name] ?? DEFAULT_HEAP[name]),
        wipeData: !persistent,
        timeoutMs,
        log,
      });
      return { info, launched: true };
    });

  const settled = await Promise.allSettled(names.map(ensure));
  const result = {} as Record<ServerName, ServerInfo>;
  const failures: string[] = [];
  settled.forEach((s, i) => {
    if (s.status === 'fulfilled') result[names[i]] = s.value.info;
    else failures.push((s.reason as Error).message);
  });
  if (failures.length) {
    // do not leave a half-started stack behind: stop what this call launched (reused servers stay up)
    for (const s of settled) {
      if (s.status === 'fulfilled' && s.value.launched) await stopServer(s.value.info.name, root).catch(noop);
    }
    throw new Error(failures.join('\n\n'));
  }
  return result;
}

/**
 * Serialise start/restart of one server across processes (e.g. jest global setup and a CLI start at once):
 * an O_EXCL lock file holding the owner's pid; a lock whose owner is dead is broken.
 */
async function withLock<T>(root: string, name: ServerName, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const file = path.join(mkdirp(serverDir(root, name)), '.lock');
  const deadline = Date.now() + timeoutMs + 60_000;
  const token = `${process.pid}:${Math.random().toString(36).slice(2)}`;
  for (;;) {
    try {
      fs.writeFileSync(file, token, { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder = 0;
      try {
        holder = Number(fs.readFileSync(file, 'utf8').split(':')[0]);
      } catch {
        continue; // vanished meanwhile
      }
      if (!holder || !pidAlive(holder)) {
        fs.rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${name}: timed out waiting for ${file} (held by pid ${holder})`);
      await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    try {
      if (fs.readFileSync(file, 'utf8') === token) fs.rmSync(file, { force: true });
    } catch {
      /* already gone */
    }
  }
}

/** Stop one server: SIGTERM to its process group, SIGKILL after a grace period, remove its pid file. */
export async function stopServer(name: ServerName, root?: string): Promise<void> {
  const r = resolveRoot(root);
  const state = readState(r, name);
  let pid = state?.pid;
  if (!pid) {
    try {
      pid = Number(fs.readFileSync(pidPath(r, name), 'utf8').trim()) || undefined;
    } catch {
      /* no pid file */
    }
  }
  // the group is ours if any live member's command line mentions <root>/<name> (guards against pid reuse);
  // this also catches an ES server JVM whose launcher (the group leader) already died
  if (pid && ourGroup(r, name, pid).length) {
    const how = await terminateGroup(pid, SERVERS[name].stopGraceMs);
    if (how === 'kill') process.emitWarning(`${name} (pid ${pid}) did not stop on SIGTERM within the grace period and was killed`);
  }
  fs.rmSync(pidPath(r, name), { force: true });
  if (state) writeState(r, { ...state, pid: undefined, stoppedAt: new Date().toISOString() });
}

/** Stop the given servers (default: all three), in parallel. */
export async function stopServers(names?: ServerName[], root?: string): Promise<void> {
  const list = uniq(names ?? [...ALL_SERVERS]);
  const res = await Promise.allSettled(list.map((n) => stopServer(n, root)));
  const errs = res.filter((x): x is PromiseRejectedResult => x.status === 'rejected').map((x) => String(x.reason));
  if (errs.length) throw new Error(errs.join('\n'));
}

/**
 * Start a server again on the SAME ports and data dir recorded in its state.json (stopping it first if it
 * is still running) and wait until it answers.
 */
export async function restartServer(
  name: ServerName,
  root?: string,
  log: (line: string) => void = noop,
): Promise<ServerInfo> {
  const r = resolveRoot(root);
  const state = readState(r, name);
  if (!state) throw new Error(`${name} has no ${path.join(serverDir(r, name), 'state.json')}; start it with startServers first`);
  return withLock(r, name, defaultTimeout(), async () => {
    if (ourGroup(r, name, state.pid).length) await stopServer(name, r);
    return launch({
      root: r,
      name,
      ports: state.ports,
      dataDir: state.dataDir,
      persistent: state.persistent,
      heap: checkHeap(name, state.heap || DEFAULT_HEAP[name]),
      wipeData: false,
      timeoutMs: defaultTimeout(),
      log,
    });
  });
}

/** Synchronous view of what is running (pid alive and belonging to this stack); no network probe. */
export function stackStatus(root?: string): Record<ServerName, { running: boolean; url?: string; pid?: number }> {
  const r = resolveRoot(root);
  const out = {} as Record<ServerName, { running: boolean; url?: string; pid?: number }>;
  for (const name of ALL_SERVERS) {
    const s = readState(r, name);
    out[name] = s?.pid && ourGroup(r, name, s.pid).length ? { running: true, url: s.url, pid: s.pid } : { running: false };
  }
  return out;
}

/** Details recorded for a server (ports, data dir, heap…), or undefined if it never started. */
export function serverState(name: ServerName, root?: string): ServerState | undefined {
  return readState(resolveRoot(root), name);
}

export { engineVersion };
export type { ServerState };
