import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * CPU profile of a JVM (Neo4j, the engine) with Java Flight Recorder: Neo4j Community has no query log, so which part
 * of Neo4j a write's CPU goes to (Bolt, planning, the Cypher runtime, stores and indexes, the transaction log, GC) is
 * read from its execution samples. `jcmd` attaches to the running JVM (same user, here root); the recording's sampler
 * costs the JVM about 1 % of its CPU. Only threads running Java code are sampled: time in the garbage collector and the
 * JIT compilers is not in the samples (bench/lib.ts jitShare counts the compilers' threads).
 */
export function startJfr(pid: number, dir: string, name: string): { stop(): string } {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.jfr`);
  const jcmd = (args: string[]) => spawnSync('jcmd', [String(pid), ...args], { encoding: 'utf8' });
  const started = jcmd(['JFR.start', `name=${name}`, 'settings=profile', `filename=${file}`]);
  if (started.status !== 0) throw new Error(`JFR.start failed: ${started.stderr || started.stdout}`);
  let report: string | null = null;
  return {
    stop: () => {
      if (report !== null) return report;
      jcmd(['JFR.stop', `name=${name}`]);
      report = summarizeJfr(file);
      writeFileSync(join(dir, `${name}.txt`), report + '\n');
      return report;
    },
  };
}

/**
 * The phase a sample belongs to, from markers in its whole stack (first match wins): what part of a transaction's
 * life its CPU went to. Names are `package.Class.method`.
 */
const PHASES: [RegExp, string][] = [
  [/KernelTransactionImplementation\.commit/, 'commit'],
  [/\.frontend\.phases\.|\.compiler\.planner\.|\.preparser\.|\.parser\.|CypherPlanner\.|\.rewriting\./, 'planning + parsing'],
  [/\.cypher\.internal\.runtime|\.cypher\.operations/, 'cypher execution'],
  [/KernelTransactionImplementation\.(rollback|close)|TransactionImpl\.(rollback|close)/, 'transaction close'],
  [/\.bolt\.|io\.netty\./, 'bolt (messages, packstream, network)'],
  [/GBPTree|IndexSampl/, 'index maintenance (sampling, checkpoints)'],
  [/\.opensearch\.|\.elasticsearch\./, 'engine'],
];
/** Within a phase, what the sample's innermost recognisable frame was doing. */
const DETAILS: [RegExp, string][] = [
  [/IndexUpdat|IndexingUpdateService|IndexUpdater|\.index\.internal\.gbptree\.(Seek|Tree|Internal|Leaf|Gbp)|NativeIndex|RangeKey|TextType|GenericKey/, 'index (B-tree) work'],
  [/LogCommandSerialization|TransactionLogWriter|LogEntryWriter|PhysicalFlushableChannel|ChecksumChannel|LogAppend|TransactionAppender/, 'transaction log'],
  [/TransactionRecordState|RecordChanges|extractCommands|PropertyCreator|PropertyDeleter|RelationshipCreator|RelationshipDeleter|RecordAccess/, 'tx state to records'],
  [/NeoStoreTransactionApplier|TransactionApplier|CommandHandler|\.store\.(Property|Node|Relationship|DynamicRecord)Store|updateDynamicRecords/, 'store apply'],
  [/\.locking\.|\.lock\./, 'locks'],
  [/MuninnPage|\.pagecache\./, 'page cache'],
  [/\.api\.state\.|TxState/, 'transaction state'],
  [/Cursor|\.newapi\./, 'kernel reads (cursors)'],
  [/packstream|PackStream|\.bolt\.protocol\.common\.message|\.values\./, 'values + packstream'],
  [/io\.netty\./, 'netty'],
];

interface Frame { method: { type: { name: string }; name: string } }

/**
 * Top frames of a recording's execution samples: samples per phase (and detail within it), per thread, own samples
 * per method and inclusive samples per method.
 */
export function summarizeJfr(file: string): string {
  const out = spawnSync('jfr', ['print', '--json', '--stack-depth', '96', '--events', 'jdk.ExecutionSample', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (out.status !== 0) return `jfr print failed: ${out.stderr}`;
  const events = (JSON.parse(out.stdout).recording?.events ?? []) as { values: { stackTrace?: { frames: Frame[] }; sampledThread?: { javaName?: string } } }[];
  const own = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const phases = new Map<string, number>();
  const threads = new Map<string, number>();
  const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const e of events) {
    const frames = e.values.stackTrace?.frames ?? [];
    if (frames.length === 0) continue;
    const names = frames.map((f) => `${f.method.type.name.replace(/\//g, '.')}.${f.method.name}`);
    add(own, names[0]);
    for (const n of new Set(names)) add(inclusive, n);
    const stack = names.join(' ');
    const thread = (e.values.sampledThread?.javaName ?? '?').replace(/[-\d\s]+$/, '');
    const phase = PHASES.find(([marker]) => marker.test(stack))?.[1] ?? `other (${thread})`;
    const detail = names.map((n) => DETAILS.find(([marker]) => marker.test(n))?.[1]).find((d) => d) ?? 'other';
    add(phases, phase);
    add(phases, `${phase} / ${detail}`);
    add(threads, thread);
  }
  const total = events.length || 1;
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${((v / total) * 100).toFixed(1).padStart(6)}%  ${k}`);
  const byPhase = [...phases].filter(([k]) => !k.includes(' / ')).sort((a, b) => b[1] - a[1]).flatMap(([phase]) =>
    top(new Map([...phases].filter(([k]) => k === phase || k.startsWith(`${phase} / `))), 12).map((l) => (l.includes(' / ') ? `    ${l}` : l)));
  return [
    `${events.length} execution samples`,
    '', 'by phase (and what its innermost recognised frame did)', ...byPhase,
    '', 'by thread', ...top(threads, 10),
    '', 'own samples', ...top(own, 40),
    '', 'including callees', ...top(inclusive, 80),
  ].join('\n');
}

if (require.main === module) {
  const [file] = process.argv.slice(2);
  if (!file) {
    console.error('usage: npx tsx bench/jfr.ts <recording.jfr>');
    process.exit(2);
  }
  console.log(summarizeJfr(file));
}
