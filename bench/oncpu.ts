import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib';

/**
 * On-CPU profile of a Node process with Linux `perf` (root, or perf_event_paranoid <= 1): what its threads spent on a
 * CPU, kernel included, JIT-compiled JavaScript named through V8's jitdump. V8's own --cpu-prof samples the main thread
 * by wall time, so a thread descheduled inside a syscall shows as busy there: under ingestion it put `writev` at a
 * quarter of the service's time, where perf finds the whole kernel at 7-10 % of the process's CPU. The process must
 * run with ON_CPU_NODE_ARGS (V8 then writes jit-<pid>.dump into its working directory, ROOT for startServiceProcess).
 * Profiled runs measure the profile, not throughput: perf itself takes CPU from the machine. BENCH_PERF_SCRIPT=1 also
 * writes every sample's stack (perf.script) beside the report.
 */
export const ON_CPU_NODE_ARGS = ['--perf-prof', '--interpreted-frames-native-stack'];

/** Wrapper frames every stack has (event loop, microtask plumbing): left out of the inclusive list. */
const PLUMBING = /JSEntry|Invoke|Execution::|Microtask|Function::Call|PromiseFulfill|AwaitResolve|CallApiCallback|processTicks|libc_start|NodeMain|SpinEvent|node::Start|uv_run|uv__|MakeCallback|CallbackScope|StreamWrap|StreamBase|OnStreamRead|start_thread|PlatformWorkerThread|DefaultJobWorker/;

function perfReport(data: string, args: string[]): string[] {
  const out = spawnSync('perf', ['report', '-i', data, '--stdio', '-g', 'none', ...args], { encoding: 'utf8', maxBuffer: 256 << 20 });
  return out.stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
}

/**
 * Starts `perf record` on `pid`; `stop()` ends it, names the JIT frames (`perf inject --jit`), writes `dir`/report.txt
 * (CPU by binary, top frames by own CPU and by CPU including callees) and returns its first lines; a second call
 * returns the same.
 */
export function startOnCpuProfile(pid: number, dir: string): { stop(): Promise<string> } {
  mkdirSync(dir, { recursive: true });
  const data = join(dir, 'perf.data');
  const recorder = spawn('perf', ['record', '-k', '1', '-e', 'cpu-clock', '-F', '999', '-g', '-p', String(pid), '-o', data], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => recorder.once('exit', () => resolve()));
  let stopped: Promise<string> | null = null;
  return {
    stop: () => (stopped ??= finish()),
  };

  async function finish(): Promise<string> {
    recorder.kill('SIGINT');
    await exited;
    const named = join(dir, 'perf.jit.data');
    spawnSync('perf', ['inject', '--jit', '-i', data, '-o', named], { stdio: 'ignore' });
    // One line for all JIT-compiled JavaScript (perf names a file per compiled function).
    const binaries = new Map<string, number>();
    for (const line of perfReport(named, ['--no-children', '--sort', 'dso'])) {
      const [percent, dso] = line.trim().split(/\s+/);
      const name = dso?.startsWith('jitted-') ? 'JIT-compiled JavaScript' : dso;
      if (name) binaries.set(name, (binaries.get(name) ?? 0) + parseFloat(percent));
    }
    const byBinary = [...binaries].sort((x, y) => y[1] - x[1]).slice(0, 6).map(([name, percent]) => `${percent.toFixed(2).padStart(9)}%  ${name}`);
    const self = perfReport(named, ['--no-children', '--sort', 'sym']).slice(0, 40);
    const inclusive = perfReport(named, ['--children', '--sort', 'sym']).filter((l) => !PLUMBING.test(l)).slice(0, 60);
    const report = ['CPU by binary', ...byBinary, '', 'own CPU', ...self, '', 'CPU including callees', ...inclusive].join('\n');
    writeFileSync(join(dir, 'report.txt'), report + '\n');
    // BENCH_PERF_SCRIPT=1: every sample's stack as text too (perf.script), for folding by caller or callee.
    if (process.env.BENCH_PERF_SCRIPT) {
      const out = openSync(join(dir, 'perf.script'), 'w');
      spawnSync('perf', ['script', '-i', named], { stdio: ['ignore', out, 'ignore'] });
      closeSync(out);
    }
    // The symbol files perf inject wrote beside the jitdump (one per compiled function) and the dump itself.
    for (const file of readdirSync(ROOT)) {
      if (file === `jit-${pid}.dump` || file.startsWith(`jitted-${pid}-`)) rmSync(join(ROOT, file), { force: true });
    }
    for (const file of [data, named]) if (existsSync(file)) rmSync(file);
    return report.split('\n').slice(0, 30).join('\n');
  }
}
