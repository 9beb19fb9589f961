import { status } from '../../model/aspects';
import neo4j from 'neo4j-driver';
import { MIGRATIONS } from './migrations';
import type { Neo4jExecutor } from './neo4j-executor';

export interface RunSummaryRow {
  runId: string;
  rows: number;
  timestamp: number;
}

export interface RunAspectRow {
  urn: string;
  name: string;
  lastObserved: number;
  /** Serialized value, when asked for. */
  value: string | null;
}

/** An entity holding latest aspects of a run, with every latest aspect it has. */
export interface RunEntity {
  urn: string;
  entityType: string;
  aspects: { name: string; runId: string | null; hash: string; lastObserved: number | null }[];
  /** Soft-deleted: its status says removed. */
  removed: boolean;
}

export interface HistoryVersion {
  version: number;
  value: string;
  hash: string;
  createdTime: number;
  createdActor: string;
  systemMetadata: string | null;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** Reads of ingestion runs from the latest aspect nodes (cypher/runs.cypher). Rollbacks write through the write path. */
export class RunStore {
  /** Whether every entity carries the soft-delete flag (lineage-store's migration); once true, never asked again. */
  private flagged = false;

  constructor(private readonly neo4j: Neo4jExecutor) {}

  async list(offset: number, limit: number, includeSoft: boolean, defaultRunId: string): Promise<RunSummaryRow[]> {
    const page = { offset: neo4j.int(offset), limit: neo4j.int(limit), defaultRunId };
    const records = includeSoft
      ? await this.neo4j.query('runs.list', 'runs/listIncludingSoftDeleted', page)
      : (await this.softDeleteFlagged())
        ? await this.neo4j.query('runs.list', 'runs/listByFlag', page)
        : await this.neo4j.query('runs.list', 'runs/list', { ...page, statusAspect: status.name });
    return records.map((r) => ({ runId: r.get('runId') as string, rows: Number(r.get('rows')), timestamp: num(r.get('timestamp')) ?? 0 }));
  }

  private async softDeleteFlagged(): Promise<boolean> {
    this.flagged ||= (await this.neo4j.query('runs.list', 'migrations/done', { name: MIGRATIONS.softDeleteFlag })).length > 0;
    return this.flagged;
  }

  async describe(runId: string, start: number, count: number, includeSoft: boolean, includeAspect: boolean): Promise<RunAspectRow[]> {
    const records = await this.neo4j.query('runs.describe', 'runs/describe', { runId, start: neo4j.int(start), count: neo4j.int(count), includeSoft, includeAspect, statusAspect: status.name });
    return records.map((r) => ({ urn: r.get('urn') as string, name: r.get('name') as string, lastObserved: num(r.get('lastObserved')) ?? 0, value: r.get('value') as string | null }));
  }

  /** The next `limit` entities after `after` (urn order) holding latest aspects of the run. */
  async entities(runId: string, after: string, limit: number): Promise<RunEntity[]> {
    const records = await this.neo4j.query('runs.entities', 'runs/entities', { runId, after, limit: neo4j.int(limit), statusAspect: status.name });
    return records.map((r) => ({
      urn: r.get('urn') as string,
      entityType: r.get('entityType') as string,
      aspects: (r.get('aspects') as RunEntity['aspects']).map((a) => ({ ...a, lastObserved: num(a.lastObserved) })),
      removed: r.get('removed') as boolean,
    }));
  }

  /** History versions of each (urn, name), newest first, keyed by `<urn>|<name>`. */
  async history(aspects: { urn: string; name: string }[]): Promise<Map<string, HistoryVersion[]>> {
    const out = new Map<string, HistoryVersion[]>();
    if (aspects.length === 0) return out;
    const records = await this.neo4j.query('runs.history', 'runs/history', { aspects });
    for (const r of records) {
      const key = `${r.get('urn') as string}|${r.get('name') as string}`;
      const versions = out.get(key) ?? [];
      versions.push({
        version: Number(r.get('version')),
        value: r.get('value') as string,
        hash: r.get('hash') as string,
        createdTime: Number(r.get('createdTime') ?? 0),
        createdActor: String(r.get('createdActor') ?? ''),
        systemMetadata: r.get('systemMetadata') as string | null,
      });
      out.set(key, versions);
    }
    return out;
  }

  /**
   * Gives latest aspects written before runs were indexed their runId and lastObserved, entity by entity in urn order;
   * once through, it is recorded and never runs again. Safe beside live writes: it only fills what is still unset.
   */
  async indexUnindexedRuns(parse: (systemMetadata: string | null) => { runId: string; lastObserved: number | null } | null, batch = 2000): Promise<number> {
    const done = await this.neo4j.query('runs.migration', 'migrations/done', { name: MIGRATIONS.runIndex });
    if (done.length > 0) return 0;
    let after = '';
    let indexed = 0;
    for (;;) {
      const records = await this.neo4j.query('runs.backfill', 'runs/unindexedPage', { after, limit: neo4j.int(batch) });
      if (records.length === 0) break;
      after = records[records.length - 1].get('urn') as string;
      const rows = records.flatMap((r) =>
        (r.get('aspects') as { id: string | null; systemMetadata: string | null }[]).flatMap((a) => {
          const run = a.id === null ? null : parse(a.systemMetadata);
          return run ? [{ id: a.id, ...run }] : [];
        }),
      );
      if (rows.length > 0) await this.neo4j.query('runs.backfill', 'runs/indexRuns', { rows }, { mode: 'WRITE' });
      indexed += rows.length;
    }
    await this.neo4j.query('runs.migration', 'migrations/markDone', { name: MIGRATIONS.runIndex, now: Date.now() }, { mode: 'WRITE' });
    return indexed;
  }
}
