import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backends, datahubVenv, flag, report, startServiceProcess } from './lib';

/**
 * Stateful ingestion of a real source through the official CLI: the generic SQL source (sqlalchemy) on a SQLite file of
 * N tables × 20 columns, with `stateful_ingestion.remove_stale_metadata`, run twice into the service; before the second
 * run a tenth of the tables are dropped. Reports records written, seconds and failures of each run, and checks that
 * exactly the dropped tables were soft-deleted.
 *   npx tsx bench/stateful-ingestion.ts [--tables 300]
 */
const tables = flag('tables', 300);
const venv = datahubVenv();
const python = join(venv, 'bin', 'python');

function sqlite(database: string, script: string): void {
  execFileSync(python, ['-c', 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()', database, script]);
}

function ingest(recipe: string, home: string): { seconds: number; records: number; failures: number; softDeleted: number; code: number } {
  const started = performance.now();
  let out = '';
  let code = 0;
  try {
    out = execFileSync(join(venv, 'bin', 'datahub'), ['ingest', '-c', recipe], {
      encoding: 'utf8',
      env: { ...process.env, HOME: home, DATAHUB_SKIP_CONFIG: 'true', DATAHUB_TELEMETRY_ENABLED: 'false' },
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch (err) {
    code = (err as { status?: number }).status ?? 1;
    out = String((err as { stdout?: string }).stdout ?? '');
  }
  const seconds = (performance.now() - started) / 1000;
  const records = Number(/'total_records_written': (\d+)/.exec(out)?.[1] ?? 0);
  const sinkFailures = /Sink \(datahub-rest\) report:[\s\S]*?'failures': \[(.*?)\]/.exec(out)?.[1] ?? '';
  const softDeleted = Number(/'dataset': \{[^}]*'soft_deleted_count': (\d+)/.exec(out)?.[1] ?? 0);
  return { seconds: Math.round(seconds * 100) / 100, records, failures: sinkFailures.trim() === '' ? 0 : sinkFailures.split("'").length / 2, softDeleted, code };
}

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const service = await startServiceProcess(b, { LOG_LEVEL: 'warn' });
  const home = mkdtempSync(join(tmpdir(), 'bench-stateful-'));
  const rows: Record<string, Record<string, unknown>> = {};
  try {
    const database = join(home, 'source.sqlite');
    const names = Array.from({ length: tables }, (_, i) => `t${String(i).padStart(4, '0')}`);
    const columns = Array.from({ length: 20 }, (_, c) => `c${c} ${c % 3 === 0 ? 'INTEGER' : 'TEXT'}`).join(', ');
    sqlite(database, names.map((t) => `CREATE TABLE ${t} (id INTEGER PRIMARY KEY, ${columns});`).join('\n'));
    const recipe = join(home, 'recipe.yml');
    writeFileSync(
      recipe,
      `pipeline_name: bench-stateful-${Date.now().toString(36)}\nsource:\n  type: sqlalchemy\n  config:\n    connect_uri: "sqlite:///${database}"\n    platform: sqlite\n` +
        `    stateful_ingestion:\n      enabled: true\n      remove_stale_metadata: true\nsink:\n  type: datahub-rest\n  config:\n    server: ${service.url}\n`,
    );
    rows['first run'] = ingest(recipe, home);
    const dropped = names.filter((_, i) => i % 10 === 0);
    sqlite(database, dropped.map((t) => `DROP TABLE ${t};`).join('\n'));
    rows['second run (a tenth of the tables dropped)'] = { ...ingest(recipe, home), expectedSoftDeleted: dropped.length };
  } finally {
    rmSync(home, { recursive: true, force: true });
    await service.stop();
    await b.stop();
  }
  report('stateful-ingestion', rows, { tables, columnsPerTable: 21 });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
