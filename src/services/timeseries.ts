import type { Logger } from 'pino';
import { contentHash } from '../model/canonical';
import { InvalidInputError, NotSupportedError, OverloadedError, UnavailableError, ValidationError } from '../model/errors';
import type { AspectSpec, EntitySpec, Registry } from '../model/registry';
import type { Body, BulkOperation, SearchEngine, SearchHit } from '../stores/search/engine';
import { timeseriesIndexDefinition, type IndexNames } from '../stores/search/mappings';
import type { TimeseriesDeleteRange, TimeseriesSink } from './ingestion';
import { filterQuery, parseFilter, SearchSchema } from './search/query-builder';
import type { TimeseriesEvent } from './write-path/prepare';

/** PDL default of PartitionSpec: events sent without one are whole-table snapshots. */
const DEFAULT_PARTITION = { type: 'FULL_TABLE', partition: 'FULL_TABLE_SNAPSHOT' };
const DEFAULT_LIMIT = 10_000;
const PAGE = 10_000;
/** Failed re-runs of a truncation's copy before it is left for an operator. */
const MAX_COPY_ATTEMPTS = 3;

function decodeTimeseriesScrollId(scrollId: string): unknown[] {
  try {
    const sort = JSON.parse(Buffer.from(scrollId, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(sort) && sort.length === 3) return sort;
  } catch {
    /* refused below */
  }
  throw new InvalidInputError('scrollId is not a time-series scroll id this service issued');
}

export interface TimeseriesValuesRequest {
  urn: unknown;
  entity: unknown;
  aspect: unknown;
  startTimeMillis?: number;
  endTimeMillis?: number;
  limit?: number;
  filter?: unknown;
  latestValue?: boolean;
}

/** A criterion as GraphQL's FacetFilterInput gives it (one value or several; EQUAL unless said). */
export interface EventCriterion {
  field: string;
  values?: string[] | null;
  value?: string | null;
  condition?: string | null;
  negated?: boolean | null;
}

/** Events of one entity's time-series aspect in a window (each bound and the limit optional), matching every criterion. */
export interface EventsRequest {
  urn: string;
  entity: string;
  aspect: string;
  startTimeMillis?: number | null;
  endTimeMillis?: number | null;
  limit?: number | null;
  criteria?: EventCriterion[];
}

export interface TruncateRequest {
  entityType: string;
  aspect: string;
  endTimeMillis: number;
  dryRun: boolean;
  batchSize: number;
  timeoutSeconds?: number;
  forceDeleteByQuery?: boolean;
  forceReindex?: boolean;
}

export interface IndexSize {
  aspectName: string;
  sizeMb: number;
  indexName: string;
  entityName: string;
}

/**
 * State of a truncation by reindex, kept in the `_meta` of the new index so any service process can finish it:
 * `source` is the old (read-only) index, `task` the engine task copying the kept rows, `deletedUrns` the entities
 * hard-deleted while the copy ran (their rows may still be copied from the old index and are deleted again at the end).
 */
interface Truncation {
  source: string;
  endTimeMillis: number;
  batchSize: number;
  timeoutSeconds?: number;
  task: string | null;
  attempts: number;
  deletedUrns: string[];
}

type TruncationState = 'none' | 'running' | 'finished';

export function truncationMessage(toDelete: number, total: number, reindex: boolean, dryRun: boolean): string {
  const percent = total === 0 ? 0 : (toDelete * 100) / total;
  let message = `Delete ${toDelete} out of ${total} rows (${percent.toFixed(2)}%). `;
  message += reindex ? 'Reindexing the aspect without the deleted records. ' : 'Issuing a delete by query request. ';
  if (dryRun) message += 'This was a dry run. Run with dryRun = false to execute.';
  return message;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Time-series aspects in the search engine. Each `<entity>_<aspect>aspect_v1` name is an alias over one concrete
 * index `<alias>_<generation>`; writes go through the alias (`require_alias`, so a dropped index is re-created with
 * its typed mapping instead of being auto-created untyped).
 *
 * Truncation by reindex never loses concurrent writes: a new generation is created and made the alias's write index
 * (the old one stays behind the alias for reads), the old index is then made read-only (which waits for in-flight
 * writes; any later write to it fails and is retried through the alias), and the engine copies the kept rows from
 * old to new with `op_type: create`, so a row re-sent during the copy is never overwritten by its older copy. When
 * the copy task completes, the old index is removed from the alias and deleted in one atomic alias update.
 */
export class TimeseriesService implements TimeseriesSink {
  private readonly ensured = new Map<string, Promise<void>>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly watchers = new Map<string, NodeJS.Timeout>();
  private readonly filterSchemas = new Map<string, SearchSchema>();
  private stopped = false;

  constructor(
    private readonly registry: Registry,
    private readonly engine: SearchEngine,
    private readonly names: IndexNames,
    private readonly logger: Logger,
    private readonly options: { pollMs?: number } = {},
  ) {}

  /** Picks up truncations left running by an earlier process. */
  start(): void {
    this.finishTruncations().catch((err) => this.logger.warn({ err: (err as Error).message }, 'could not check for running time-series truncations'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.watchers.values()) clearTimeout(timer);
    this.watchers.clear();
    await Promise.allSettled([...this.locks.values()]);
  }

  // ---- ingestion (TimeseriesSink)

  async write(events: TimeseriesEvent[]): Promise<void> {
    const operations: BulkOperation[] = [];
    for (const event of events) {
      const alias = await this.ensureIndex(event.entity, event.aspect);
      const { id, doc } = this.document(event);
      operations.push({ op: 'index', index: alias, id, doc, requireAlias: true });
    }
    let pending = operations;
    // One retry: an index dropped meanwhile is re-created, a write that met a truncation's read-only index goes to the new one.
    for (let attempt = 0; attempt < 2 && pending.length > 0; attempt++) {
      const results = await this.engine.bulk(pending, true);
      const failed = new Set<number>();
      results.forEach((r, i) => {
        if (r.ok) return;
        failed.add(i);
        if (r.error === 'index_not_found_exception') this.ensured.delete(pending[i].index);
      });
      const retry = pending.filter((_, i) => failed.has(i));
      if (retry.length === 0) return;
      const retryable = results.every((r) => r.ok || ['index_not_found_exception', 'cluster_block_exception'].includes(r.error ?? ''));
      if (!retryable || attempt === 1) {
        const status = results.find((r) => !r.ok)?.status ?? 500;
        if (status === 429 || status >= 500) throw new UnavailableError('The search engine did not accept the time-series documents', 'search');
        // The engine refused a document itself: a value its index mapping cannot hold is the caller's, not a fault.
        if (status === 400) throw new ValidationError(`Invalid ${events[0].aspect.name}: the time-series index cannot hold a value of this event`);
        throw new Error(`The search engine rejected ${retry.length} time-series document(s): ${results.find((r) => !r.ok)?.error}`);
      }
      for (const op of retry) {
        const event = events.find((e) => this.aliasOf(e.entity, e.aspect) === op.index)!;
        await this.ensureIndex(event.entity, event.aspect);
      }
      pending = retry;
    }
  }

  /**
   * Deletes time-series rows of the entity: of every time-series aspect, or only of `range.aspect`; all of them, or only
   * those with `startTimeMillis <= timestampMillis <= endTimeMillis` (each bound optional). Returns how many rows went.
   */
  async deleteForUrn(urn: string, range: TimeseriesDeleteRange = {}): Promise<number> {
    const entityType = urn.split(':')[2];
    const entity = this.registry.entities.get(entityType);
    if (!entity) return 0;
    const bounded = range.startTimeMillis !== undefined || range.endTimeMillis !== undefined;
    const query: Body = bounded
      ? {
          bool: {
            filter: [
              { term: { urn } },
              { range: { timestampMillis: { ...(range.startTimeMillis !== undefined ? { gte: range.startTimeMillis } : {}), ...(range.endTimeMillis !== undefined ? { lte: range.endTimeMillis } : {}) } } },
            ],
          },
        }
      : { term: { urn } };
    let deleted = 0;
    for (const aspect of this.timeseriesAspects(entity)) {
      if (range.aspect !== undefined && aspect.name !== range.aspect) continue;
      const alias = this.aliasOf(entity, aspect);
      const targets = (await this.engine.getAliases(alias)).get(alias);
      if (!targets) continue;
      const writeIndex = targets.find((t) => t.isWriteIndex)?.index ?? targets[targets.length - 1].index;
      if (targets.length > 1 && bounded) {
        // A truncation is copying rows from the old generation; only whole-entity deletes are replayed when it ends.
        throw new OverloadedError(`A truncation of '${aspect.name}' is running; delete a time range of its rows once it has finished`, 503, 30);
      }
      deleted += await this.deleteFromIndex(writeIndex, query);
      if (targets.length > 1) {
        // A truncation is copying from the read-only old index: its rows of this urn are deleted when it finishes.
        deleted += await this.engine.count(targets.filter((t) => t.index !== writeIndex).map((t) => t.index).join(','), { term: { urn } });
        await this.withLock(alias, async () => {
          const truncation = await this.truncationOf(writeIndex);
          if (truncation && !truncation.deletedUrns.includes(urn)) {
            truncation.deletedUrns.push(urn);
            await this.saveTruncation(writeIndex, truncation);
          }
        });
      }
    }
    return deleted;
  }

  /** Time-series rows an ingestion run wrote, of every entity type and aspect: counted, or deleted (a rollback). */
  async rowsOfRun(runId: string, remove: boolean): Promise<number> {
    let rows = 0;
    for (const entity of this.registry.entities.values()) {
      for (const aspect of this.timeseriesAspects(entity)) {
        const alias = this.aliasOf(entity, aspect);
        const targets = (await this.engine.getAliases(alias)).get(alias);
        if (!targets) continue;
        if (!remove) {
          rows += await this.engine.count(alias, { term: { runId } });
          continue;
        }
        if (targets.length > 1) throw new OverloadedError(`A truncation of '${aspect.name}' is running; roll the run back once it has finished`, 503, 30);
        rows += await this.deleteFromIndex(targets[0].index, { term: { runId } });
      }
    }
    return rows;
  }

  private async deleteFromIndex(index: string, query: Body): Promise<number> {
    let deleted = 0;
    for (;;) {
      const page = await this.engine.search(index, { size: 1000, query, _source: false });
      if (page.hits.length === 0) return deleted;
      const results = await this.engine.bulk(
        page.hits.map((h) => ({ op: 'delete' as const, index: h.index, id: h.id })),
        true,
      );
      const failed = results.filter((r) => !r.ok);
      if (failed.length > 0) throw new UnavailableError('The search engine did not delete the time-series documents', 'search');
      deleted += results.length;
    }
  }

  private document(event: TimeseriesEvent): { id: string; doc: Record<string, unknown> } {
    const value = event.value;
    const timestampMillis = value.timestampMillis;
    if (typeof timestampMillis !== 'number' || !Number.isFinite(timestampMillis)) {
      throw new ValidationError(`Invalid ${event.aspect.name}: /timestampMillis must be an epoch-millisecond integer`, [
        { path: '/timestampMillis', message: 'must be an integer' },
      ]);
    }
    const partitionSpec = isObject(value.partitionSpec) ? value.partitionSpec : DEFAULT_PARTITION;
    const eventGranularity = value.eventGranularity ?? null;
    const messageId = value.messageId ?? null;
    // Re-sending the same event overwrites its document rather than adding another.
    const id = contentHash([event.urn.raw, timestampMillis, eventGranularity, partitionSpec, messageId]);
    return {
      id,
      doc: {
        ...value,
        docId: id,
        urn: event.urn.raw,
        timestampMillis,
        '@timestamp': timestampMillis,
        partitionSpec,
        eventGranularity,
        messageId,
        runId: event.systemMetadata.runId ?? null,
        event: value,
        systemMetadata: event.systemMetadata,
      },
    };
  }

  // ---- reads

  async values(request: TimeseriesValuesRequest) {
    const { urn, entity } = this.registry.parseEntityUrn(request.urn);
    if (request.entity !== entity.name) {
      throw new InvalidInputError(`entity '${String(request.entity)}' does not match the urn's entity type '${entity.name}'`);
    }
    const aspect = this.registry.aspectFor(entity, request.aspect);
    if (!aspect.timeseries) throw new InvalidInputError(`'${aspect.name}' is not a time-series aspect; read it with GET /aspects or /entitiesV2`);
    const limit = request.latestValue ? 1 : (request.limit ?? DEFAULT_LIMIT);
    const range: Body = {
      ...(request.startTimeMillis !== undefined ? { gte: request.startTimeMillis } : {}),
      ...(request.endTimeMillis !== undefined ? { lte: request.endTimeMillis } : {}),
    };
    const filter = filterQuery(parseFilter(request.filter), this.filterSchema(aspect));
    const query: Body = {
      bool: {
        filter: [{ term: { urn: urn.raw } }, ...(Object.keys(range).length ? [{ range: { timestampMillis: range } }] : []), ...(filter ? [filter] : [])],
      },
    };
    const hits = await this.newestFirst(this.aliasOf(entity, aspect), query, limit);
    return {
      limit,
      aspectName: aspect.name,
      entityName: entity.name,
      ...(request.startTimeMillis !== undefined ? { startTimeMillis: request.startTimeMillis } : {}),
      ...(request.endTimeMillis !== undefined ? { endTimeMillis: request.endTimeMillis } : {}),
      values: hits.map((h) => ({ aspect: { value: JSON.stringify(h.source.event ?? {}), contentType: 'application/json' } })),
    };
  }

  /**
   * `GET /openapi/v2/timeseries/{entity}/{aspect}`: the aspect's events of every entity of the type, in an optional time
   * range, newest first (then by messageId, descending, as DataHub sorts them), `count` at a time. The scroll id holds the
   * last event's sort values; it is absent on the last page (one more event is asked for to know), so no page is empty.
   */
  async scroll(request: { entity: string; aspect: string; count: number; scrollId?: string; startTimeMillis?: number; endTimeMillis?: number; systemMetadata: boolean }) {
    const entity = this.registry.entityAnyCase(request.entity);
    const aspect = this.registry.aspectAnyCase(entity, request.aspect);
    if (!aspect.timeseries) throw new InvalidInputError(`Only time-series aspects are scrolled here; '${aspect.name}' is versioned`);
    const range: Body = {
      ...(request.startTimeMillis !== undefined ? { gte: request.startTimeMillis } : {}),
      ...(request.endTimeMillis !== undefined ? { lte: request.endTimeMillis } : {}),
    };
    const page = await this.engine.search(this.aliasOf(entity, aspect), {
      size: request.count === 0 ? 0 : request.count + 1,
      query: Object.keys(range).length ? { bool: { filter: [{ range: { timestampMillis: range } }] } } : { match_all: {} },
      sort: [{ timestampMillis: 'desc' }, { messageId: { order: 'desc', missing: '_last' } }, { docId: 'asc' }],
      // The whole stored row when its system metadata is asked for (it sits beside the event).
      _source: request.systemMetadata ? true : ['urn', 'messageId', 'timestampMillis', 'event'],
      ...(request.scrollId ? { search_after: decodeTimeseriesScrollId(request.scrollId) } : {}),
    });
    const hits = page.hits.slice(0, request.count);
    const last = hits[hits.length - 1];
    return {
      ...(page.hits.length > request.count && last?.sort ? { scrollId: Buffer.from(JSON.stringify(last.sort)).toString('base64url') } : {}),
      results: hits.map((h) => ({
        urn: h.source.urn,
        messageId: h.source.messageId ?? null,
        timestampMillis: h.source.timestampMillis,
        systemMetadata: request.systemMetadata ? (h.source.systemMetadata ?? null) : null,
        event: h.source.event ?? null,
      })),
    };
  }

  /** The events a GraphQL time-series field asks for (DataHub's TimeSeriesAspectResolver), newest first, as values. */
  async events(request: EventsRequest): Promise<Record<string, unknown>[]> {
    const given = <T>(v: T | null | undefined): v is T => v !== null && v !== undefined;
    const criteria = (request.criteria ?? []).map((c) => ({
      field: c.field,
      values: c.values ?? (given(c.value) ? [c.value] : []),
      condition: c.condition ?? 'EQUAL',
      negated: c.negated === true,
    }));
    const answer = await this.values({
      urn: request.urn,
      entity: request.entity,
      aspect: request.aspect,
      ...(given(request.startTimeMillis) ? { startTimeMillis: request.startTimeMillis } : {}),
      ...(given(request.endTimeMillis) ? { endTimeMillis: request.endTimeMillis } : {}),
      ...(given(request.limit) ? { limit: request.limit } : {}),
      ...(criteria.length > 0 ? { filter: { or: [{ and: criteria }] } } : {}),
    });
    return answer.values.map((v) => JSON.parse(v.aspect.value) as Record<string, unknown>);
  }

  /**
   * Up to `limit` rows, newest first. While a truncation copies rows, a row can sit in both generations; the newer
   * generation's copy wins (it may hold a re-sent value), hence `_index` descending as the last sort key.
   */
  private async newestFirst(alias: string, query: Body, limit: number): Promise<SearchHit[]> {
    const out: SearchHit[] = [];
    const seen = new Set<string>();
    let after: unknown[] | undefined;
    while (out.length < limit) {
      const size = Math.min(PAGE, limit - out.length);
      const page = await this.engine.search(alias, {
        size,
        query,
        sort: [{ timestampMillis: 'desc' }, { docId: 'asc' }, { _index: 'desc' }],
        _source: ['event'],
        ...(after ? { search_after: after } : {}),
      });
      for (const hit of page.hits) {
        if (seen.has(hit.id) || out.length >= limit) continue;
        seen.add(hit.id);
        out.push(hit);
      }
      if (page.hits.length < size) break;
      after = page.hits[page.hits.length - 1].sort;
    }
    return out;
  }

  private filterSchema(aspect: AspectSpec): SearchSchema {
    let schema = this.filterSchemas.get(aspect.name);
    if (!schema) {
      // Every time-series field is exact (keyword, number, date): the filter targets fields by their own names.
      schema = new SearchSchema(aspect.name, this.registry.urnNamespace, []);
      this.filterSchemas.set(aspect.name, schema);
    }
    return schema;
  }

  // ---- administration

  /** Sizes of this deployment's time-series indices, one record per alias (a running truncation's two generations summed). */
  async indexSizes(): Promise<IndexSize[]> {
    const known = this.knownAliases();
    const bytes = new Map<string, number>();
    for (const row of await this.engine.listIndices(`${this.names.allTimeseries()}_*`)) {
      const alias = row.index.replace(/_\d+$/, '');
      if (known.has(alias)) bytes.set(alias, (bytes.get(alias) ?? 0) + row.sizeBytes);
    }
    return [...bytes.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([alias, size]) => ({
        aspectName: known.get(alias)!.aspect.toLowerCase(),
        sizeMb: size / (1024 * 1024),
        indexName: alias,
        entityName: known.get(alias)!.entity.toLowerCase(),
      }));
  }

  /**
   * Deletes rows with `timestampMillis <= endTimeMillis`. Entity type and aspect match case-insensitively, so the
   * lower-case names getIndexSizes reports work. A dry run only reports; a real run answers the engine task id.
   */
  async truncate(request: TruncateRequest): Promise<string> {
    const { entity, aspect } = this.resolve(request.entityType, request.aspect);
    if (request.forceDeleteByQuery && request.forceReindex) throw new InvalidInputError('Set at most one of forceDeleteByQuery and forceReindex');
    if (!request.dryRun && !(await this.engine.supportsReindex())) {
      throw new NotSupportedError(
        `The search engine (${this.engine.engine}) lacks delete-by-query/reindex (its reindex module is not installed), so time-series rows cannot be truncated; dry runs still work`,
      );
    }
    const alias = this.aliasOf(entity, aspect);
    if (!request.dryRun) {
      await this.ensureIndex(entity, aspect);
      if ((await this.finishTruncation(alias)) === 'running') {
        const targets = (await this.engine.getAliases(alias)).get(alias) ?? [];
        const truncation = await this.truncationOf(targets.find((t) => t.isWriteIndex)?.index ?? '');
        throw new InvalidInputError(
          `A truncation of ${entity.name} ${aspect.name} is still running${truncation?.task ? ` (task ${truncation.task})` : ''}; wait until getEsTaskStatus reports it completed`,
        );
      }
    }
    const cut: Body = { range: { timestampMillis: { lte: request.endTimeMillis } } };
    const [total, toDelete] = await Promise.all([this.engine.count(alias), this.engine.count(alias, cut)]);
    const reindex = !request.forceDeleteByQuery && (Boolean(request.forceReindex) || toDelete > total / 2);
    const message = truncationMessage(toDelete, total, reindex, request.dryRun);
    if (request.dryRun) return message;
    const options = { waitForCompletion: false, batchSize: request.batchSize, timeoutSeconds: request.timeoutSeconds, refresh: true };
    if (!reindex) {
      const { task } = await this.engine.deleteByQuery(alias, cut, options);
      if (!task) throw new Error('The search engine answered no task id for the delete by query');
      return task;
    }
    return this.startReindex(alias, aspect, request);
  }

  private async startReindex(alias: string, aspect: AspectSpec, request: TruncateRequest): Promise<string> {
    return this.withLock(alias, async () => {
      const targets = (await this.engine.getAliases(alias)).get(alias) ?? [];
      if (targets.length !== 1) throw new InvalidInputError(`A truncation of ${alias} is already running`);
      const source = targets[0].index;
      const generation = Math.max(Date.now(), Number(/_(\d+)$/.exec(source)?.[1] ?? 0) + 1);
      const target = this.names.timeseriesGeneration(alias, generation);
      const truncation: Truncation = {
        source,
        endTimeMillis: request.endTimeMillis,
        batchSize: request.batchSize,
        ...(request.timeoutSeconds ? { timeoutSeconds: request.timeoutSeconds } : {}),
        task: null,
        attempts: 0,
        deletedUrns: [],
      };
      const definition = timeseriesIndexDefinition(aspect);
      await this.engine.createIndex(target, { settings: definition.settings, mappings: { ...definition.mappings, _meta: { truncation } } });
      // From here on new rows go to the new generation; reads see both until the old one is dropped.
      await this.engine.updateAliases([
        { add: { index: target, alias, is_write_index: true } },
        { add: { index: source, alias, is_write_index: false } },
      ]);
      // Waits for writes already in flight to the old index; later ones fail there and are retried through the alias.
      await this.engine.blockWrites(source);
      await this.engine.refresh(source);
      return this.copyKeptRows(alias, target, truncation);
    });
  }

  /** Starts (or re-starts: `op_type: create` makes it idempotent) the engine task copying the kept rows. */
  private async copyKeptRows(alias: string, target: string, truncation: Truncation): Promise<string> {
    const { task } = await this.engine.reindex(
      {
        conflicts: 'proceed',
        source: { index: truncation.source, query: { range: { timestampMillis: { gt: truncation.endTimeMillis } } } },
        dest: { index: target, op_type: 'create' },
      },
      { waitForCompletion: false, batchSize: truncation.batchSize, timeoutSeconds: truncation.timeoutSeconds, refresh: true },
    );
    if (!task) throw new Error('The search engine answered no task id for the reindex');
    truncation.task = task;
    truncation.attempts += 1;
    await this.saveTruncation(target, truncation);
    this.watch(alias);
    return task;
  }

  /** Finishes every truncation whose copy has completed (getEsTaskStatus calls it when a task completes). */
  async finishTruncations(): Promise<void> {
    const ours = new Set(this.knownAliases().keys());
    const aliases = await this.engine.getAliases(this.names.allTimeseries());
    for (const [alias, targets] of aliases) {
      if (ours.has(alias) && targets.length > 1 && (await this.finishTruncation(alias)) === 'running') this.watch(alias);
    }
  }

  private async finishTruncation(alias: string): Promise<TruncationState> {
    return this.withLock(alias, async () => {
      const targets = (await this.engine.getAliases(alias)).get(alias) ?? [];
      if (targets.length < 2) return 'none';
      const target = targets.find((t) => t.isWriteIndex)?.index;
      const truncation = target ? await this.truncationOf(target) : null;
      if (!target || !truncation) {
        this.logger.error({ alias, targets }, 'time-series alias has several indices but no truncation record; left as is');
        return 'running';
      }
      const task = truncation.task ? await this.engine.getTask(truncation.task) : null;
      if (task && !task.completed) return 'running';
      const failures = (task?.response?.failures as unknown[] | undefined) ?? [];
      if (!task || task.error || failures.length > 0 || task.response?.timed_out === true) {
        if (truncation.attempts >= MAX_COPY_ATTEMPTS) {
          this.logger.error({ alias, task: truncation.task, error: task?.error, failures: failures.slice(0, 3) }, 'time-series truncation copy keeps failing; old index kept');
          return 'running';
        }
        this.logger.warn({ alias, task: truncation.task }, 'time-series truncation copy failed or was lost; running it again');
        await this.copyKeptRows(alias, target, truncation);
        return 'running';
      }
      for (const urn of truncation.deletedUrns) await this.deleteFromIndex(target, { term: { urn } });
      const old = targets.filter((t) => t.index !== target);
      await this.engine.updateAliases(old.map((t) => ({ remove_index: { index: t.index } })));
      await this.engine.putMapping(target, { _meta: {} });
      this.logger.info({ alias, task: truncation.task, dropped: old.map((t) => t.index) }, 'time-series truncation finished');
      return 'finished';
    });
  }

  /** Polls a running truncation in the background until it is finished. */
  private watch(alias: string): void {
    if (this.stopped || this.watchers.has(alias)) return;
    const tick = async () => {
      let state: TruncationState = 'running';
      try {
        state = await this.finishTruncation(alias);
      } catch (err) {
        this.logger.warn({ alias, err: (err as Error).message }, 'could not check a time-series truncation; will retry');
      }
      this.watchers.delete(alias);
      if (state === 'running' && !this.stopped) schedule();
    };
    const schedule = () => {
      const timer = setTimeout(() => void tick(), this.options.pollMs ?? 500);
      timer.unref();
      this.watchers.set(alias, timer);
    };
    schedule();
  }

  private async truncationOf(index: string): Promise<Truncation | null> {
    if (!index) return null;
    const meta = (await this.engine.getMappingMeta(index)).get(index);
    return (meta?.truncation as Truncation | undefined) ?? null;
  }

  private async saveTruncation(index: string, truncation: Truncation): Promise<void> {
    await this.engine.putMapping(index, { _meta: { truncation } });
  }

  // ---- helpers

  private aliasOf(entity: EntitySpec, aspect: AspectSpec): string {
    return this.names.timeseries(entity.name, aspect.name);
  }

  /** Every time-series alias of this deployment (this index prefix), with its entity type and aspect. */
  private knownAliases(): Map<string, { entity: string; aspect: string }> {
    const known = new Map<string, { entity: string; aspect: string }>();
    for (const entity of this.registry.entities.values()) {
      for (const aspect of this.timeseriesAspects(entity)) known.set(this.aliasOf(entity, aspect), { entity: entity.name, aspect: aspect.name });
    }
    return known;
  }

  private timeseriesAspects(entity: EntitySpec): AspectSpec[] {
    return [...entity.aspects].map((name) => this.registry.aspects.get(name)!).filter((a) => a.timeseries);
  }

  private resolve(entityType: string, aspectName: string): { entity: EntitySpec; aspect: AspectSpec } {
    const entity = [...this.registry.entities.values()].find((e) => e.name.toLowerCase() === entityType.toLowerCase());
    if (!entity) throw new InvalidInputError(`Unknown entity type '${entityType}'`);
    const aspect = this.timeseriesAspects(entity).find((a) => a.name.toLowerCase() === aspectName.toLowerCase());
    if (!aspect) {
      const known = this.timeseriesAspects(entity).map((a) => a.name);
      throw new InvalidInputError(
        `Unknown time-series aspect '${aspectName}' for entity type '${entity.name}'${known.length ? `; expected one of ${known.join(', ')}` : ''}`,
      );
    }
    return { entity, aspect };
  }

  /** Creates the alias and its first generation when missing; adds new schema fields to an existing one. Once per process. */
  private ensureIndex(entity: EntitySpec, aspect: AspectSpec): Promise<string> {
    const alias = this.aliasOf(entity, aspect);
    let ensured = this.ensured.get(alias);
    if (!ensured) {
      ensured = this.createOrUpdate(alias, aspect);
      this.ensured.set(alias, ensured);
      ensured.catch(() => this.ensured.delete(alias));
    }
    return ensured.then(() => alias);
  }

  private async createOrUpdate(alias: string, aspect: AspectSpec): Promise<void> {
    const definition = timeseriesIndexDefinition(aspect);
    const targets = (await this.engine.getAliases(alias)).get(alias);
    if (targets) {
      const writeIndex = targets.find((t) => t.isWriteIndex)?.index ?? targets[targets.length - 1].index;
      await this.engine.putMapping(writeIndex, { properties: definition.mappings.properties });
      return;
    }
    try {
      await this.engine.createIndex(this.names.timeseriesGeneration(alias, Date.now()), { ...definition, aliases: { [alias]: { is_write_index: true } } });
    } catch (err) {
      // Another process created the alias first (the engine refuses a second write index).
      if (!(await this.engine.getAliases(alias)).has(alias)) throw err;
    }
  }

  /** Serializes truncation bookkeeping per alias within this process. */
  private withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    const tail = next.catch(() => undefined);
    this.locks.set(key, tail);
    tail.then(() => {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    });
    return next;
  }
}
