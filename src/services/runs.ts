import { status } from '../model/aspects';
import type { Logger } from 'pino';
import { systemActor } from '../auth';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { HistoryVersion, RunEntity, RunStore } from '../stores/graph/run-store';
import type { IngestionService } from './ingestion';
import type { TimeseriesService } from './timeseries';
import type { RevertTarget, WriteItem } from './write-path/plan';
import { DEFAULT_RUN_ID, indexedRunOf } from './write-path/prepare';

/** DataHub's IngestionRunSummary. */
export interface IngestionRunSummary {
  runId: string;
  rows: number;
  timestamp: number;
}

/** DataHub's AspectRowSummary: one latest aspect a run wrote or last observed. */
export interface AspectRowSummary {
  runId: string;
  aspectName: string;
  urn: string;
  timestamp: number;
  metadata: string;
  version: number;
  keyAspect: boolean;
  aspect?: Record<string, unknown>;
}

/** DataHub's RollbackResponse. */
export interface RollbackResponse {
  entitiesAffected: number;
  entitiesDeleted: number;
  aspectsReverted: number;
  aspectsAffected: number;
  unsafeEntitiesCount: number;
  unsafeEntities: { urn: string }[];
  aspectRowSummaries: AspectRowSummary[];
  /** Time-series rows the run wrote, deleted with it (a dry run counts them). */
  timeseriesRowsDeleted: number;
}

export interface RollbackRequest {
  runId: string;
  dryRun: boolean;
  /** Entities the run created but other runs also wrote to are kept (their aspects from the run are reverted). */
  safe: boolean;
}

/** Entities per page of a rollback: each page is read, planned and committed on its own, so a rollback can resume. */
const ENTITIES_PER_PAGE = 500;
/** Write items per transaction: a page in one (pages in sequence ran 1,564 aspects/s, units of 1,000 side by side 1,222: their edge deletes contend on the same hub tags and owners; bench/rollback.ts, 10,000 datasets). */
const ITEMS_PER_UNIT = 2500;
const SUMMARY_ROWS = 100;

function runIdOf(systemMetadata: string | null): string | null {
  if (!systemMetadata) return null;
  try {
    const parsed = JSON.parse(systemMetadata) as { runId?: unknown };
    return typeof parsed.runId === 'string' ? parsed.runId : null;
  } catch {
    return null;
  }
}

/**
 * Ingestion runs as DataHub's `/runs` resource serves them, from the version history in Neo4j: every latest aspect
 * carries the run that last wrote or observed it. A rollback takes each aspect whose latest version is the run's back
 * to the newest history version another run wrote (dropping the run's versions), or removes it when every version is
 * the run's. An entity whose key aspect the run wrote (the run created it) is, as in DataHub, soft-deleted by a safe
 * rollback (the default: its status becomes removed, its key stays, other runs' aspects stay) and removed whole by an
 * unsafe one. It goes page by page through the write path (edges, search documents and read caches follow as for any
 * write), so a large run is batched, and an interrupted rollback is finished by repeating it.
 */
export class RunService {
  constructor(
    private readonly registry: Registry,
    private readonly store: RunStore,
    private readonly ingestion: IngestionService,
    private readonly timeseries: TimeseriesService | null,
    private readonly logger: Logger,
  ) {}

  /** Fills the run index of aspects written by earlier versions of the service (once per database, in the background). */
  async indexEarlierWrites(): Promise<void> {
    const indexed = await this.store.indexUnindexedRuns((systemMetadata) => {
      let parsed: { runId?: unknown; lastObserved?: unknown } = {};
      try {
        parsed = systemMetadata ? (JSON.parse(systemMetadata) as typeof parsed) : {};
      } catch {
        /* unreadable metadata: no run */
      }
      return indexedRunOf(parsed);
    });
    if (indexed > 0) this.logger.info({ aspects: indexed }, 'indexed the runs of aspects written before runs were kept');
  }

  list(pageOffset: number, pageSize: number, includeSoft: boolean): Promise<IngestionRunSummary[]> {
    return this.store.list(pageOffset, pageSize, includeSoft, DEFAULT_RUN_ID);
  }

  async describe(runId: string, start: number, count: number, includeSoft: boolean, includeAspect: boolean): Promise<AspectRowSummary[]> {
    const rows = await this.store.describe(runId, start, count, includeSoft, includeAspect);
    return rows.map((r) => ({
      ...this.summary(runId, r.urn, r.name, r.lastObserved),
      ...(includeAspect && r.value !== null ? { aspect: JSON.parse(r.value) as Record<string, unknown> } : {}),
    }));
  }

  async rollback(request: RollbackRequest): Promise<RollbackResponse> {
    const { runId, dryRun, safe } = request;
    if (runId === DEFAULT_RUN_ID) {
      throw new InvalidInputError(`${DEFAULT_RUN_ID} is the run id of proposals sent without one; it names no run and cannot be rolled back`);
    }
    const response: RollbackResponse = {
      entitiesAffected: 0,
      entitiesDeleted: 0,
      aspectsReverted: 0,
      aspectsAffected: 0,
      unsafeEntitiesCount: 0,
      unsafeEntities: [],
      aspectRowSummaries: [],
      timeseriesRowsDeleted: 0,
    };
    // The next page is read and planned while this one is written (their entities are disjoint: urn order).
    const plan = async (after: string) => {
      const page = await this.store.entities(runId, after, ENTITIES_PER_PAGE);
      return { last: page.at(-1)?.urn ?? null, items: await this.planPage(runId, page, safe, dryRun, response) };
    };
    let next = plan('');
    for (;;) {
      const { last, items } = await next;
      if (last === null) break;
      next = plan(last);
      next.catch(() => undefined); // a failure surfaces when awaited
      if (dryRun) continue;
      for (let i = 0; i < items.length; i += ITEMS_PER_UNIT) await this.ingestion.submit(items.slice(i, i + ITEMS_PER_UNIT));
    }
    if (this.timeseries) response.timeseriesRowsDeleted = await this.timeseries.rowsOfRun(runId, !dryRun);
    this.logger.info({ runId, dryRun, safe, ...response, aspectRowSummaries: undefined, unsafeEntities: undefined }, 'rollback');
    return response;
  }

  /** Decides, for one page of entities, what the rollback writes; counts it into `response`. */
  private async planPage(runId: string, page: RunEntity[], safe: boolean, dryRun: boolean, response: RollbackResponse): Promise<WriteItem[]> {
    const items: WriteItem[] = [];
    const reverts: { entity: RunEntity; name: string; hash: string }[] = [];
    const softDeletes: string[] = [];
    for (const entity of page) {
      const spec = this.registry.entities.get(entity.entityType);
      const keyAspect = spec?.keyAspect;
      const ofRun = entity.aspects.filter((a) => a.runId === runId);
      // A safe rollback leaves a soft-deleted entity alone (DataHub finds no rows of one), unless this run deleted it.
      if (safe && entity.removed && !ofRun.some((a) => a.name === status.name)) continue;
      for (const a of ofRun) {
        // A safe rollback keeps key aspects; its dry run lists none (as DataHub's).
        if (dryRun && safe && a.name === keyAspect) continue;
        if (response.aspectRowSummaries.length < SUMMARY_ROWS) response.aspectRowSummaries.push(this.summary(runId, entity.urn, a.name, a.lastObserved ?? 0));
      }
      const created = ofRun.some((a) => a.name === keyAspect);
      // Another run's write of the key or status aspect does not make an entity unsafe to delete with this run (as in DataHub).
      const othersWrote = entity.aspects.filter((a) => a.runId !== runId && a.name !== keyAspect && a.name !== status.name);
      const unsafe = created && othersWrote.length > 0;
      if (unsafe) {
        response.unsafeEntitiesCount++;
        response.unsafeEntities.push({ urn: entity.urn });
        response.aspectsAffected += othersWrote.length;
      }
      if (ofRun.length > 0) response.entitiesAffected++;
      if (created) response.entitiesDeleted++;
      if (created && !safe) {
        items.push({ kind: 'deleteEntity', urn: entity.urn, entityType: entity.entityType });
        response.aspectsReverted += ofRun.length;
        continue;
      }
      // DataHub's soft rollback: the key aspect stays and the entity is marked removed (when its type has a status).
      if (created && spec?.aspects.has(status.name)) softDeletes.push(entity.urn);
      for (const a of ofRun) if (a.name !== keyAspect) reverts.push({ entity, name: a.name, hash: a.hash });
    }
    const histories = await this.store.history(reverts.map((r) => ({ urn: r.entity.urn, name: r.name })));
    for (const r of reverts) {
      const { survivor, drop } = this.survivorOf(runId, histories.get(`${r.entity.urn}|${r.name}`) ?? []);
      items.push({
        kind: 'revert',
        urn: r.entity.urn,
        entityType: r.entity.entityType,
        name: r.name,
        expectedHash: r.hash,
        survivor: survivor && this.revertTarget(r.name, survivor),
        drop,
      });
      response.aspectsReverted++;
    }
    // After the reverts, so a status the run wrote is reverted first and then marked removed.
    const removed = softDeletes.map((urn) => ({ urn, aspectName: status.name, transform: () => ({ removed: true }) }));
    items.push(...this.ingestion.transformItems(removed, { actor: systemActor(this.registry.urnNamespace), scopes: ['admin'], authenticated: false }));
    return items;
  }

  /** The newest history version another run wrote, and the versions the revert drops (it and every newer one). */
  private survivorOf(runId: string, newestFirst: HistoryVersion[]): { survivor: HistoryVersion | null; drop: number[] } {
    const drop: number[] = [];
    for (const version of newestFirst) {
      drop.push(version.version);
      if (runIdOf(version.systemMetadata) !== runId) return { survivor: version, drop };
    }
    return { survivor: null, drop };
  }

  private revertTarget(aspectName: string, version: HistoryVersion): RevertTarget {
    return {
      version: version.version,
      projected: this.ingestion.projectStored(aspectName, JSON.parse(version.value) as Record<string, unknown>),
      createdTime: version.createdTime,
      createdActor: version.createdActor,
      systemMetadata: version.systemMetadata ?? '{}',
    };
  }

  private summary(runId: string, urn: string, aspectName: string, timestamp: number): AspectRowSummary {
    const entityType = urn.split(':')[2];
    const keyAspect = this.registry.entities.get(entityType)?.keyAspect === aspectName;
    return { runId, aspectName, urn, timestamp, metadata: '', version: 0, keyAspect };
  }
}
