/**
 * Low-level helpers for the local stack: paths, Java 17 discovery, ports, processes (Linux /proc),
 * log tails, state files, the unprivileged run user for Elasticsearch.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export type ServerName = 'neo4j' | 'opensearch' | 'elasticsearch';
export const ALL_SERVERS: readonly ServerName[] = ['neo4j', 'opensearch', 'elasticsearch'];

/** Repository root, derived from this module's location (stack/ is a direct child of the repo root). */
export const REPO_ROOT = path.resolve(__dirname, '..');
/** The stack module folder (poms, launchers). */
export const STACK_DIR = __dirname;

export function defaultRoot(): string {
  return path.join(REPO_ROOT, '.stack');
}

/** Download/assembly cache shared across checkouts: $STACK_CACHE_DIR or ~/.cache/graph-metadata-stack. */
export function cacheRoot(): string {
  if (process.env.STACK_CACHE_DIR) return path.resolve(process.env.STACK_CACHE_DIR);
  const xdg = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(xdg, 'graph-metadata-stack');
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function mkdirp(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

// ---------------------------------------------------------------------------------------------
// Java 17

function javaMajor(home: string): number | undefined {
  try {
    const release = fs.readFileSync(path.join(home, 'release'), 'utf8');
    const m = /^JAVA_VERSION="(\d+)/m.exec(release);
    if (m) return Number(m[1]);
  } catch {
    /* no release file */
  }
  const r = spawnSync(path.join(home, 'bin', 'java'), ['-version'], { encoding: 'utf8' });
  const m = /version "(\d+)/.exec(`${r.stderr}${r.stdout}`);
  return m ? Number(m[1]) : undefined;
}

let cachedJava: string | undefined;
/**
 * JAVA_HOME of a Java 17 runtime. Order: $STACK_JAVA_HOME (taken as is), /usr/lib/jvm/java-17-openjdk-amd64,
 * $JAVA_HOME if it is 17, any /usr/lib/jvm/*17* . Never silently picks another major version.
 */
export function java17Home(): string {
  if (cachedJava) return cachedJava;
  const candidates: string[] = [];
  if (process.env.STACK_JAVA_HOME) {
    const h = process.env.STACK_JAVA_HOME;
    if (!fs.existsSync(path.join(h, 'bin', 'java'))) throw new Error(`STACK_JAVA_HOME=${h} has no bin/java`);
    return (cachedJava = h);
  }
  candidates.push('/usr/lib/jvm/java-17-openjdk-amd64', '/usr/lib/jvm/java-17-openjdk-arm64');
  if (process.env.JAVA_HOME) candidates.push(process.env.JAVA_HOME);
  try {
    for (const d of fs.readdirSync('/usr/lib/jvm')) if (/17/.test(d)) candidates.push(path.join('/usr/lib/jvm', d));
  } catch {
    /* no /usr/lib/jvm */
  }
  for (const c of candidates) {
    if (fs.existsSync(path.join(c, 'bin', 'java')) && javaMajor(c) === 17) return (cachedJava = fs.realpathSync(c));
  }
  throw new Error(
    'No Java 17 runtime found (looked at /usr/lib/jvm/java-17-*, $JAVA_HOME, /usr/lib/jvm/*17*). ' +
      'Install it (apt-get install openjdk-17-jdk-headless) or set STACK_JAVA_HOME.',
  );
}

export function javaBin(): string {
  return path.join(java17Home(), 'bin', 'java');
}

// ---------------------------------------------------------------------------------------------
// Ports

export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** Process-wide set of ports handed out recently, so parallel starts never pick the same one. */
const handedOut = new Set<number>();

/** Ask the OS for a free port on 127.0.0.1 (port 0), skipping ports handed out earlier in this process. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.once('error', reject);
      srv.listen({ port: 0, host, exclusive: true }, () => {
        const addr = srv.address();
        const p = typeof addr === 'object' && addr ? addr.port : 0;
        srv.close(() => resolve(p));
      });
    });
    if (port && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('could not obtain a free port from the OS');
}

export function reservePort(port: number): void {
  handedOut.add(port);
}

export function tcpConnect(port: number, host = '127.0.0.1', timeoutMs = 2000): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ port, host });
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`connect ${host}:${port} timed out`));
    }, timeoutMs);
    sock.once('connect', () => {
      clearTimeout(timer);
      sock.end();
      sock.destroy();
      resolve();
    });
    sock.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface HttpResult {
  status: number;
  headers: Headers;
  body: string;
}

export async function httpGet(url: string, timeoutMs = 3000): Promise<HttpResult> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

// ---------------------------------------------------------------------------------------------
// Processes (Linux /proc)

interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = s.lastIndexOf(')');
    const rest = s.slice(close + 2).split(' ');
    return { pid, state: rest[0], ppid: Number(rest[1]), pgrp: Number(rest[2]) };
  } catch {
    return undefined;
  }
}

/** Alive = exists and is not a zombie (a zombie left behind by a non-reaping init counts as dead). */
export function isAlive(pid: number | undefined): boolean {
  if (!pid || pid <= 0) return false;
  const st = readStat(pid);
  if (st) return st.state !== 'Z' && st.state !== 'X';
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** Live (non-zombie) members of a process group. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  let entries: string[] = [];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return isAlive(pgid) ? [pgid] : [];
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const st = readStat(Number(e));
    if (st && st.pgrp === pgid && st.state !== 'Z' && st.state !== 'X') out.push(st.pid);
  }
  return out;
}

export function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

/** SIGTERM the group, wait up to graceMs, then SIGKILL and wait until every member is gone. */
export async function terminateGroup(pgid: number, graceMs: number): Promise<'term' | 'kill'> {
  killGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (groupMembers(pgid).length === 0) return 'term';
    await sleep(200);
  }
  killGroup(pgid, 'SIGKILL');
  const hard = Date.now() + 10_000;
  while (Date.now() < hard) {
    if (groupMembers(pgid).length === 0) return 'kill';
    await sleep(100);
  }
  throw new Error(`process group ${pgid} survived SIGKILL`);
}

/** VmHWM / VmRSS (kB) of a pid. */
export function memoryOf(pid: number): { hwmKb?: number; rssKb?: number } {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = /VmHWM:\s+(\d+)/.exec(s);
    const rss = /VmRSS:\s+(\d+)/.exec(s);
    return { hwmKb: hwm ? Number(hwm[1]) : undefined, rssKb: rss ? Number(rss[1]) : undefined };
  } catch {
    return {};
  }
}

// ---------------------------------------------------------------------------------------------
// Logs

export function tailFile(file: string, lines = 40): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const len = Math.min(size, 256 * 1024);
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, size - len);
      const all = buf.toString('utf8').split('\n');
      if (all.length && all[all.length - 1] === '') all.pop();
      return all.slice(-lines).join('\n');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** Keep one previous generation of a log file (console.log -> console.log.1). */
export function rotate(file: string): void {
  try {
    if (fs.existsSync(file) && fs.statSync(file).size > 0) fs.renameSync(file, `${file}.1`);
  } catch {
    /* best effort */
  }
}

// ---------------------------------------------------------------------------------------------
// Run user (Elasticsearch refuses to run as root)

export interface RunUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * When running as root: make sure the unprivileged system user exists (idempotent) and return it.
 * When not root: undefined (servers run as the current user).
 */
export function ensureRunUser(log: (l: string) => void = () => {}): RunUser | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const name = process.env.STACK_RUN_USER || 'stackrun';
  const id = (flag: string) => spawnSync('id', [flag, name], { encoding: 'utf8' });
  let u = id('-u');
  if (u.status !== 0) {
    log(`creating system user ${name} (Elasticsearch refuses to run as root)`);
    const shell = fs.existsSync('/usr/sbin/nologin') ? '/usr/sbin/nologin' : '/bin/false';
    const r = spawnSync('useradd', ['--system', '--no-create-home', '--shell', shell, name], { encoding: 'utf8' });
    if (r.status !== 0 && r.status !== 9 /* already exists (race) */) {
      throw new Error(`useradd ${name} failed (${r.status}): ${r.stderr || r.error?.message}`);
    }
    u = id('-u');
    if (u.status !== 0) throw new Error(`user ${name} still missing after useradd: ${u.stderr}`);
  }
  const g = id('-g');
  return { name, uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
}

export function chownR(user: RunUser, ...paths: string[]): void {
  const existing = paths.filter((p) => fs.existsSync(p));
  if (!existing.length) return;
  const r = spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, ...existing], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`chown -R ${user.name} failed: ${r.stderr || r.error?.message}`);
}

/** Check that `user` can traverse/read `dir` (e.g. a repo under /root is not readable by a system user). */
export function assertReadableBy(user: RunUser, dir: string): void {
  const r = spawnSync('test', ['-r', dir, '-a', '-x', dir], { uid: user.uid, gid: user.gid });
  if (r.status !== 0) {
    throw new Error(
      `${dir} is not readable by user ${user.name}; Elasticsearch runs as ${user.name} because it refuses to run as root. ` +
        'Make the path traversable (chmod o+x on its parents) or pass a different root.',
    );
  }
}

// ---------------------------------------------------------------------------------------------
// State files

export interface ServerState {
  name: ServerName;
  version: string;
  pid?: number;
  port: number;
  /** all ports, e.g. { bolt, http } or { http, transport } */
  ports: Record<string, number>;
  url: string;
  dataDir: string;
  logsDir: string;
  persistent: boolean;
  heap: string;
  user?: string;
  startedAt?: string;
  readyMs?: number;
  stoppedAt?: string;
}

export function serverDir(root: string, name: ServerName): string {
  return path.join(root, name);
}

export function statePath(root: string, name: ServerName): string {
  return path.join(serverDir(root, name), 'state.json');
}

export function pidPath(root: string, name: ServerName): string {
  return path.join(serverDir(root, name), `${name}.pid`);
}

export function readState(root: string, name: ServerName): ServerState | undefined {
  try {
    return JSON.parse(fs.readFileSync(statePath(root, name), 'utf8')) as ServerState;
  } catch {
    return undefined;
  }
}

export function writeState(root: string, state: ServerState): void {
  const file = statePath(root, state.name);
  mkdirp(path.dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

/** A recorded pid is "ours" when alive and its command line mentions the server's folder (guards pid reuse). */
export function isOurProcess(root: string, name: ServerName, pid: number | undefined): boolean {
  if (!pid || !isAlive(pid)) return false;
  return cmdline(pid).includes(serverDir(root, name) + path.sep);
}

/** Live members of process group `pgid` that belong to this server (command line mentions its folder). */
export function ourGroup(root: string, name: ServerName, pgid: number | undefined): number[] {
  if (!pgid) return [];
  const dir = serverDir(root, name) + path.sep; // every launch command names a file/dir inside <root>/<name>/
  return groupMembers(pgid).filter((p) => cmdline(p).includes(dir));
}
