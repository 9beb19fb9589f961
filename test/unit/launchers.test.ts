import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');

/** The environment assignments a script puts before the command that starts the service. */
function launcherPrefix(script: string, command: string): string {
  const at = script.indexOf(command);
  if (at <= 0) throw new Error(`'${command}' is not started by: ${script}`);
  return script.slice(0, at).replace(/^.*&&\s*/, '');
}

/** Each npm launcher's environment prefix. */
const launchers = () => [launcherPrefix(scripts.start, 'tsx src/cli/start.ts'), launcherPrefix(scripts.serve, 'node dist/main.js')];

/** The size V8 gives its young generation (both semi-spaces) in a node started with `prefix`, after garbage filled it. */
function youngGenerationMb(prefix: string, env: NodeJS.ProcessEnv = {}): number {
  const probe =
    "let k=[];for(let i=0;i<3e6;i++){k.push({i});if(k.length>2e5)k=[]}" +
    "console.log(require('v8').getHeapSpaceStatistics().find((s)=>s.space_name==='new_space').space_size/1048576)";
  const { NODE_OPTIONS: _ignored, ...base } = process.env;
  return Number(execFileSync('sh', ['-c', `${prefix} node -e "${probe}"`], { env: { ...base, ...env }, encoding: 'utf8' }).trim());
}

/** Whether graphql-js, loaded in a node started with `prefix`, runs its development checks (a second-copy test per type check). */
function graphqlDevelopmentChecks(prefix: string, env: NodeJS.ProcessEnv = {}): boolean {
  const probe = "console.log(/toStringTag/.test(String(require('graphql/jsutils/instanceOf.js').instanceOf)))";
  // Jest sets NODE_ENV=test: the launchers are checked as an operator's shell starts them, without one.
  const { NODE_ENV: _ignored, ...base } = process.env;
  return execFileSync('sh', ['-c', `${prefix} node -e "${probe}"`], { cwd: root, env: { ...base, ...env }, encoding: 'utf8' }).trim() === 'true';
}

describe('the launchers (npm start, npm run serve, the Docker image)', () => {
  it('start the service with the same process settings as the Docker image', () => {
    for (const prefix of launchers()) {
      expect(prefix).toContain('MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}');
      expect(prefix).toContain('--max-semi-space-size=8');
    }
    expect(dockerfile).toMatch(/^ENV MALLOC_ARENA_MAX=2$/m);
    expect(dockerfile).toMatch(/^ENV NODE_OPTIONS=--max-semi-space-size=8$/m);
    expect(dockerfile).toMatch(/^ENV NODE_ENV=production$/m);
  });

  it("run graphql-js without its development checks, unless the operator's NODE_ENV says otherwise", () => {
    for (const prefix of launchers()) {
      expect(graphqlDevelopmentChecks(prefix)).toBe(false);
      expect(graphqlDevelopmentChecks(prefix, { NODE_ENV: 'development' })).toBe(true);
    }
  });

  it("halve V8's young generation, and a flag the operator adds to NODE_OPTIONS wins", () => {
    for (const prefix of launchers()) {
      expect(youngGenerationMb(prefix)).toBe(16);
      expect(youngGenerationMb(prefix, { NODE_OPTIONS: '--max-semi-space-size=16' })).toBe(32);
    }
  });
});
