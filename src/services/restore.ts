import { InvalidInputError, UnavailableError } from '../model/errors';
import type { EntitySpec, Registry } from '../model/registry';
import { tryParseUrn } from '../model/urn';
import type { RestoreEntity, RestorePageQuery, RestoreStore } from '../stores/graph/restore-store';
import type { BulkOperation, SearchEngine } from '../stores/search/engine';
import type { IndexNames } from '../stores/search/mappings';
import { buildDocument } from './indexing/document';
import type { IngestionService } from './ingestion';
import type { ProjectedEdges, WriteItem } from './write-path/plan';

export interface RestoreRequest {
  urn?: string;
  aspect?: string;
  /** `%` matches any run of characters; everything else is literal. */
  urnLike?: string;
  start?: number;
  batchSize?: number;
}

export interface RestoreCounts {
  entitiesRead: number;
  /** Latest aspect rows read (only the named aspect's rows when `aspect` is given). */
  rowsRead: number;
  documentsWritten: number;
  edgesWritten: number;
  /** Rows not restored: aspects unknown to the entity type, unreadable values, or values that changed while restoring. */
  ignored: number;
  timeTakenMs: number;
}

export interface RestoreResult extends RestoreCounts {
  args: { urn: string | null; aspect: string | null; urnLike: string | null; start: number; batchSize: number };
  /** Last urn of the page (a cursor for the next one), null when the page was empty. */
  lastUrn: string | null;
}

/**
 * Per entity type, its index check in a restore run (created, mapped, or rebuilt when outdated): one check per type even
 * when batches running at once meet the type together.
 */
type IndexChecks = Map<string, Promise<void>>;

type Filters = Pick<RestorePageQuery, 'urn' | 'aspect' | 'urnRegex' | 'from' | 'to'>;

/** Batches restoreAll restores at once. */
const PAGES_IN_FLIGHT = 2;

/** Search documents built between two turns of the event loop (about 5 ms of work). */
const DOCUMENTS_PER_SLICE = 100;

/** Above every urn: the open upper end of the urn range. */
const UNBOUNDED = '\uffff';

/** The smallest string above every string that starts with `prefix`. */
export function prefixEnd(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix === '' || last === 0xffff ? UNBOUNDED : prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/** Turns a urnLike pattern into the literal prefix the urn index can seek and an anchored (Java) regular expression. */
export function urnPattern(urnLike: string): { prefix: string; regex: string } {
  const parts = urnLike.split('%');
  return { prefix: parts[0], regex: parts.map((p) => p.replace(REGEX_SPECIAL, (c) => `\\${c}`)).join('.*') };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The edges an entity's aspects own now, as the page returns them (`aspect|type|target`, column edges
 * `aspect|source|target`), with how many each aspect owns: an aspect's edges are right when it owns as many as its
 * value projects and each of those.
 */
interface OwnedEdges {
  edges: Set<string>;
  columnEdges: Set<string>;
  counts: Map<string, { edges: number; columnEdges: number }>;
}

function ownedEdges(entity: RestoreEntity): OwnedEdges {
  const owned: OwnedEdges = { edges: new Set(entity.edges), columnEdges: new Set(entity.columnEdges), counts: new Map() };
  for (const row of entity.edges) countOf(owned, row).edges++;
  for (const row of entity.columnEdges) countOf(owned, row).columnEdges++;
  return owned;
}

function countOf(owned: OwnedEdges, row: string): { edges: number; columnEdges: number } {
  const aspect = row.slice(0, row.indexOf('|'));
  let count = owned.counts.get(aspect);
  if (!count) owned.counts.set(aspect, (count = { edges: 0, columnEdges: 0 }));
  return count;
}

/** Whether the stored edges of an aspect are exactly those its value projects (`keys`: as the write path keys them). */
function sameEdges(aspect: string, keys: { edges: string[]; columnEdges: string[] }, owned: OwnedEdges): boolean {
  const count = owned.counts.get(aspect);
  return sameKeys(aspect, keys.edges, owned.edges, count?.edges ?? 0) && sameKeys(aspect, keys.columnEdges, owned.columnEdges, count?.columnEdges ?? 0);
}

function sameKeys(aspect: string, projected: string[], stored: Set<string>, storedCount: number): boolean {
  const unique = projected.length > 1 ? [...new Set(projected)] : projected;
  return unique.length === storedCount && unique.every((key) => stored.has(`${aspect}|${key}`));
}

function edgeCount(projected: ProjectedEdges): number {
  return projected.edges.length + (projected.columnEdges?.length ?? 0);
}

function zero(): RestoreCounts {
  return { entitiesRead: 0, rowsRead: 0, documentsWritten: 0, edgesWritten: 0, ignored: 0, timeTakenMs: 0 };
}

/**
 * Rebuilds the derived state of entities from Neo4j, the source of truth: their search documents (written with the
 * entity revision as external version, so a concurrent newer write is never overwritten) and the edges projected
 * from their latest aspect values. Edges go through the write path (a `reproject` per aspect): the same projection
 * and the same edge plan as the write that stored the value, under the entity's lock. An aspect whose edges the page
 * read found exactly right is left alone: a page of healthy entities costs no write transaction.
 */
export class RestoreService {
  constructor(
    private readonly registry: Registry,
    private readonly store: RestoreStore,
    private readonly engine: SearchEngine,
    private readonly names: IndexNames,
    private readonly indices: { ensureIndices(entityTypes?: Iterable<string>, options?: { recheck?: boolean }): Promise<void> },
    private readonly writes: Pick<IngestionService, 'projectEdges' | 'edgeKeys' | 'submit'>,
  ) {}

  /** One page: `batchSize` entities from row `start` of those matching, ordered by urn (restoreIndices). */
  async restore(request: RestoreRequest): Promise<RestoreResult> {
    const started = performance.now();
    const filters = this.filters(request);
    const start = request.start ?? 0;
    const batchSize = request.batchSize ?? 10;
    const page = await this.store.page({ ...filters, after: '', skip: start, limit: batchSize });
    const lastUrn = page.length > 0 ? page[page.length - 1].urn : null;
    const counts = await this.restorePage(page, filters.aspect);
    await this.engine.refresh(this.names.allEntities());
    return {
      args: { urn: request.urn ?? null, aspect: request.aspect ?? null, urnLike: request.urnLike ?? null, start, batchSize },
      ...counts,
      lastUrn,
      timeTakenMs: Math.round(performance.now() - started),
    };
  }

  /**
   * Everything matching, batch after batch by urn (the CLI and the benchmark). Two batches are restored at once and the
   * next one is read meanwhile: a batch waits on Neo4j and the engine in turn (lock, plan, apply, commit beside
   * documents and bulk), and the other fills those waits. Batches are disjoint, so their transactions never meet on an
   * entity; totals are reported in urn order.
   */
  async restoreAll(request: Omit<RestoreRequest, 'start'>, onBatch: (totals: RestoreCounts) => void = () => undefined): Promise<RestoreCounts> {
    const started = performance.now();
    const filters = this.filters(request);
    const batchSize = request.batchSize ?? 1000;
    const read = (after: string) => this.store.page({ ...filters, from: after > filters.from ? after : filters.from, after, skip: 0, limit: batchSize });
    const totals = zero();
    // Each entity type's index is checked once per run, not once per batch (a round trip and the whole mapping each).
    const checks: IndexChecks = new Map();
    const add = (counts: RestoreCounts) => {
      for (const key of ['entitiesRead', 'rowsRead', 'documentsWritten', 'edgesWritten', 'ignored'] as const) totals[key] += counts[key];
      totals.timeTakenMs = Math.round(performance.now() - started);
      onBatch({ ...totals });
    };
    const inFlight: Promise<RestoreCounts>[] = [];
    try {
      let next: Promise<RestoreEntity[]> = read('');
      for (;;) {
        const page = await next;
        if (page.length === 0) break;
        next = page.length < batchSize ? Promise.resolve([]) : read(page[page.length - 1].urn);
        next.catch(() => undefined); // a failure surfaces when awaited
        const restoring = this.restorePage(page, filters.aspect, checks);
        restoring.catch(() => undefined); // awaited below, in order
        inFlight.push(restoring);
        if (inFlight.length >= PAGES_IN_FLIGHT) add(await inFlight.shift()!);
      }
      while (inFlight.length > 0) add(await inFlight.shift()!);
    } finally {
      // A failed batch is reported once the other has settled: nothing of the run keeps going behind its error.
      await Promise.allSettled(inFlight);
    }
    await this.engine.refresh(this.names.allEntities());
    totals.timeTakenMs = Math.round(performance.now() - started);
    return totals;
  }

  private filters(request: RestoreRequest): Filters {
    const urn = request.urn ? this.registry.parseUrnLoosely(request.urn) : null;
    let aspect: string | null = null;
    if (request.aspect) {
      const spec = this.registry.aspects.get(request.aspect);
      if (!spec) throw new InvalidInputError(`Unknown aspect '${request.aspect}'`);
      if (spec.timeseries) throw new InvalidInputError(`'${spec.name}' is a time-series aspect: it lives only in the search engine and has nothing to restore`);
      aspect = spec.name;
    }
    const pattern = request.urnLike ? urnPattern(request.urnLike) : null;
    const from = urn ?? pattern?.prefix ?? '';
    const to = urn ? `${urn}\u0000` : prefixEnd(from);
    // A literal prefix and one trailing % is the urn range itself: no regular expression to match per entity.
    const rangeAlone = pattern !== null && request.urnLike === `${pattern.prefix}%` && to !== UNBOUNDED;
    return { urn, aspect, urnRegex: rangeAlone ? null : (pattern?.regex ?? null), from, to };
  }

  /**
   * One entity of a page: counts its rows, parses its latest values and adds a reprojection for each aspect whose
   * stored edges differ from what its value projects. Null when nothing of it is indexed.
   */
  private readEntity(
    entity: RestoreEntity,
    aspectFilter: string | null,
    counts: RestoreCounts,
    reprojections: Extract<WriteItem, { kind: 'reproject' }>[],
  ): { spec: EntitySpec; values: Map<string, Record<string, unknown>> } | null {
    counts.entitiesRead++;
    const spec = this.registry.entities.get(entity.entityType ?? tryParseUrn(entity.urn)?.entityType ?? '');
    let selectedRows = 0;
    for (const row of entity.aspects) if (aspectFilter === null || row.name === aspectFilter) selectedRows++;
    counts.rowsRead += selectedRows;
    if (!spec) {
      counts.ignored += selectedRows;
      return null;
    }
    const values = new Map<string, Record<string, unknown>>();
    const owned = ownedEdges(entity);
    for (const row of entity.aspects) {
      const selected = aspectFilter === null || row.name === aspectFilter;
      const aspect = this.registry.aspects.get(row.name);
      let value: unknown = null;
      try {
        value = JSON.parse(row.value);
      } catch {
        /* unreadable: ignored below */
      }
      if (!aspect || aspect.timeseries || !spec.aspects.has(row.name) || !isObject(value)) {
        if (selected) counts.ignored++;
        continue;
      }
      values.set(row.name, value);
      if (selected && (aspect.relationships.length > 0 || aspect.behaviour?.columnEdges)) {
        // Already exactly right when read (the value and the edges came from one statement): nothing to write. Were
        // either changed since, by a write that made its own edges.
        const keys = this.writes.edgeKeys(row.name, value);
        if (sameEdges(row.name, keys, owned)) counts.edgesWritten += keys.edges.length + keys.columnEdges.length;
        else reprojections.push({ kind: 'reproject', urn: entity.urn, entityType: spec.name, name: row.name, expectedHash: row.hash, projected: this.writes.projectEdges(row.name, value) });
      }
    }
    return values.size > 0 ? { spec, values } : null;
  }

  /**
   * Restores a page and empties it once read: its rows (every aspect's stored JSON) are not needed while the page's
   * documents and edges are written, and a page kept across those round trips is copied by every scavenge meanwhile.
   * `checks`: the index check of each entity type this run has met, shared by its batches (and added to).
   */
  private async restorePage(page: RestoreEntity[], aspectFilter: string | null, checks: IndexChecks = new Map()): Promise<RestoreCounts> {
    const counts = zero();
    const reprojections: Extract<WriteItem, { kind: 'reproject' }>[] = [];
    const documents: BulkOperation[] = [];
    const types = new Set<string>();
    // One pass per entity, its document built as soon as its values are parsed: the parsed values die young (held
    // for the whole page, every scavenge copied them, and most of the restore's GC time was that). In slices, each
    // after a turn of the event loop, so the other page's round trips go on meanwhile.
    for (let from = 0; from < page.length; from += DOCUMENTS_PER_SLICE) {
      if (from > 0) await new Promise((resolve) => setImmediate(resolve));
      for (const entity of page.slice(from, from + DOCUMENTS_PER_SLICE)) {
        const read = this.readEntity(entity, aspectFilter, counts, reprojections);
        if (!read) continue;
        const { spec, values } = read;
        documents.push({ op: 'index', index: this.names.entity(spec.name), id: entity.urn, doc: buildDocument(this.registry, spec, entity.urn, values), version: entity.rev });
        types.add(spec.name);
      }
    }
    page.length = 0;
    const reprojected = this.writes.submit(reprojections);
    const indexing = (async () => {
      for (const type of types) if (!checks.has(type)) checks.set(type, this.indices.ensureIndices([type], { recheck: true }));
      await Promise.all([...types].map((type) => checks.get(type)));
      return this.engine.bulk(documents);
    })();
    // Both settle before either's failure is reported: nothing of a failed page keeps running behind its error.
    const [indexResult, reprojectResult] = await Promise.allSettled([indexing, reprojected]);
    if (indexResult.status === 'rejected') throw indexResult.reason;
    if (reprojectResult.status === 'rejected') throw reprojectResult.reason;
    const [written, outcomes] = [indexResult.value, reprojectResult.value];
    const failed = written.filter((r) => !r.ok);
    if (failed.length > 0) {
      throw new UnavailableError(`The search engine did not accept ${failed.length} of ${written.length} documents; run the restore again`, 'search');
    }
    // A superseded write means a newer revision is already indexed: the document is as restored as it gets.
    counts.documentsWritten = written.length;
    // An aspect written since it was read keeps the edges that newer write projected.
    reprojections.forEach((r, i) => {
      if (outcomes[i].unchanged) counts.ignored++;
      else counts.edgesWritten += edgeCount(r.projected);
    });
    return counts;
  }
}
