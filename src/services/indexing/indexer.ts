import { UnavailableError } from '../../model/errors';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Registry } from '../../model/registry';
import { tryParseUrn } from '../../model/urn';
import type { AspectStore } from '../../stores/graph/aspect-store';
import type { OutboxEntry, OutboxStore } from '../../stores/graph/outbox-store';
import type { Body, BulkOperation, SearchEngine } from '../../stores/search/engine';
import { entityIndexDefinition, type IndexNames } from '../../stores/search/mappings';
import { EntityIndexMigrations } from './index-migrations';
import type { PendingDeleteMarkers } from '../../stores/search/pending-deletes';
import type { CommittedWrite } from '../write-path/plan';
import { aspectFragment, documentFromFragments, type AspectFragment } from './document';
import type { EntityChange, FragmentCache } from './fragment-cache';

export interface IndexerOptions {
  batchSize: number;
  /** Poll interval while there is work; an idle indexer backs off from it to idlePollMs. */
  pollMs: number;
  /**
   * Longest poll interval of an idle indexer. Every empty claim is a Neo4j write transaction, and on this machine an
   * isolated one cost Neo4j 1-2 ms of CPU: two workers polling every 200 ms kept 5 % of a core busy in an idle service.
   * Local writes wake the indexer at once; this bounds how late it sees other processes' writes when it has none.
   */
  idlePollMs?: number;
  leaseMs?: number;
  maxBackoffMs?: number;
  /** Pause after a batch that was not full, so the next one gathers more entries (each batch costs 3 Neo4j round trips and a bulk request). */
  lingerMs?: number;
  /**
   * Batches in flight at once. With 2, one batch's Neo4j reads and acknowledgements overlap the other's bulk request,
   * where a single loop leaves Neo4j idle while the engine works and the engine idle while Neo4j does.
   */
  workers?: number;
  /**
   * Backpressure: while this many of this process's writes are not indexed yet, waiting for a batch or in one (and the
   * indexer is healthy), new write groups wait (INDEX_BACKLOG_MAX_WRITES; 0: never). Writes faster than the engine
   * indexes would otherwise leave the index ever further behind: batches at 2,100 aspects/s left it 13-17 s behind at p99.
   */
  maxBacklog?: number;
}

/**
 * How long an applied hard delete keeps its outbox entry, and its pending-delete markers, after the engine delete became
 * visible. Searches read the markers beside their query (DeletedHitGuard) and trust an answer that came within this time
 * of the request's start; one fixed value, so every process of a deployment agrees on it.
 */
export const DELETE_GRACE_MS = 2000;

/**
 * A pending-delete marker no outbox entry holds is removed once it is this old: its delete either committed (and its
 * entry was applied) or never will, since no write waits anywhere near this long (BACKEND_TIMEOUT_MS).
 */
export const MARKER_SWEEP_AGE_MS = 10 * 60_000;
const MARKER_SWEEP_INTERVAL_MS = 60_000;
/**
 * Most synchronous work between two turns of the event loop while a batch's documents are built. A batch of ~100
 * documents built in one go held the loop for 9-14 ms under ingestion, and the answers Neo4j sent to write groups
 * meanwhile waited behind it: the loop's p99 delay was 15-16 ms, 11 ms in slices.
 */
const DOCUMENT_SLICE_MS = 1;

/**
 * Keeps the search index in step with Neo4j: drains the outbox written with every aspect change, rebuilds each
 * entity's document from its latest aspects and writes it with the entity revision as external version. When the
 * engine is down it backs off and retries; entries stay in Neo4j until indexed, so nothing acknowledged is lost.
 */
export class SearchIndexer {
  private running = false;
  private loops: Promise<void>[] = [];
  /** Wakes the workers sleeping between polls. */
  private readonly wakers = new Set<() => void>();
  /** Claims run one after another: a claim must see the leases of the one before, or two workers would take the same entries. */
  private claims: Promise<unknown> = Promise.resolve();
  /** Entity types whose index is known to exist with the current mapping; indices are created on first write. */
  private readonly readyIndices = new Set<string>();
  private failures = 0;
  private pausedAfterBatch = false;
  private readonly events = new EventEmitter();
  /** The first worker's next idle poll interval: doubles with each empty claim up to idlePollMs, reset by work. */
  private idleWait: number;
  /** Applied deletes waiting out DELETE_GRACE_MS before their outbox entries are removed, oldest first. */
  private lingering: { entries: OutboxEntry[]; dueAt: number }[] = [];
  private nextMarkerSweep = performance.now() + MARKER_SWEEP_INTERVAL_MS;
  /**
   * Outbox entries this process's writes left under a lease taken for this indexer (handoffLease), by urn: indexed
   * without a claim. A claim is a write transaction of its own, and in small batches it cost Neo4j as much CPU per entry
   * as the write's own outbox stage several times over (bench/outbox-cost.ts).
   */
  private readonly handedOver = new Map<string, number>();
  /** Write groups waiting for the backlog to shrink (holdsWrites). */
  private backlogWaiters: (() => void)[] = [];
  /** Entries handed over and taken into a batch that has not finished yet. */
  private handedOverInFlight = 0;

  constructor(
    private readonly registry: Registry,
    private readonly aspects: AspectStore,
    private readonly outbox: OutboxStore,
    private readonly engine: SearchEngine,
    private readonly names: IndexNames,
    private readonly options: IndexerOptions,
    private readonly logger: Logger,
    private readonly markers?: PendingDeleteMarkers,
    /** Search fragments of entities this process wrote or indexed lately: their documents need no read of Neo4j. */
    private readonly fragments?: FragmentCache,
    /** Creates entity indices and rebuilds those of an older mapping version; none given: created only. */
    readonly migrations: EntityIndexMigrations = new EntityIndexMigrations(registry, engine, names, null, logger, { batchSize: 500 }),
  ) {
    this.events.setMaxListeners(0);
    this.idleWait = options.pollMs;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // Indices of an older mapping version are rebuilt in the background; meanwhile they answer searches as before.
    this.migrations.migrateAll().catch((err) => this.logger.warn({ err: (err as Error).message }, 'entity index rebuild failed; retried on the next write of that type'));
    this.loops = Array.from({ length: Math.max(1, this.options.workers ?? 1) }, (_, worker) => this.run(worker));
  }

  async stop(): Promise<void> {
    this.running = false;
    this.releaseWrites();
    for (const wake of [...this.wakers]) wake();
    await Promise.all(this.loops);
    await this.releaseHandedOver();
    // Entries not yet due stay marked applied; their lease runs out after the grace and any indexer finishes them.
    await this.acknowledgeDeletes().catch(() => undefined);
  }

  /** Cuts the idle wait short after a write (never a back-off wait). */
  notify(): void {
    this.idleWait = this.options.pollMs;
    if (this.failures === 0 && !this.pausedAfterBatch) this.wakeAll();
  }

  private wakeAll(): void {
    for (const wake of [...this.wakers]) wake();
  }

  /**
   * Creates the index of each entity type that lacks one and adds new fields to existing mappings (all types when none
   * are named). The model has 72 entity types; a deployment writes a few of them, so indices appear on first write. An
   * index of an older mapping version is rebuilt in the background (EntityIndexMigrations) and written meanwhile.
   */
  async ensureIndices(entityTypes?: Iterable<string>, options: { recheck?: boolean } = {}): Promise<void> {
    const names = entityTypes ? [...new Set(entityTypes)] : [...this.registry.entities.keys()];
    for (const name of names) {
      const entity = this.registry.entities.get(name);
      // recheck: an admin may have dropped indices (restore), and a bulk write would auto-create one without our mapping.
      if (!entity || (this.readyIndices.has(name) && !options.recheck)) continue;
      const index = this.names.entity(entity.name);
      const state = await this.migrations.state(entity.name);
      if (state.kind === 'missing') await this.migrations.create(entity.name);
      else if (state.kind === 'outdated') {
        this.migrations.migrate(entity.name).catch((err) => {
          this.readyIndices.delete(entity.name);
          this.logger.warn({ index, err: (err as Error).message }, 'entity index rebuild failed; retried on the next write of that type');
        });
      } else {
        const definition = entityIndexDefinition(this.registry, entity);
        const mapped = new Set([...(await this.engine.getMappings(index)).values()].flatMap((m) => Object.keys((m.properties as Body | undefined) ?? {})));
        const missing = Object.entries(definition.mappings.properties as Record<string, Body>).filter(([field]) => !mapped.has(field));
        if (missing.length > 0) {
          try {
            await this.engine.putMapping(index, { properties: Object.fromEntries(missing) });
          } catch (err) {
            if (err instanceof UnavailableError) throw err;
            this.logger.warn({ index, err: (err as Error).message }, 'index mapping could not be updated; drop the index and run restoreIndices');
          }
        }
      }
      this.readyIndices.add(name);
    }
  }

  /**
   * The lease a write group's outbox entries get when they are to be handed over to this indexer at commit: none (0)
   * while it is stopped or failing (the entries are then claimed, after the back-off), or while as many are handed over
   * as it indexes in ten batches (beyond that the other processes' indexers may as well claim them).
   */
  handoffLease(now: number): number {
    if (!this.running || this.failures > 0 || this.handedOver.size >= 10 * this.options.batchSize) return 0;
    return now + (this.options.leaseMs ?? 30_000);
  }

  /**
   * At commit, before the answer: keeps the fragment cache in step with this process's writes, and takes over the
   * outbox entries they left when `handedOver` (written under handoffLease's lease).
   */
  committed(writes: readonly CommittedWrite[], handedOver = false): void {
    if (handedOver) this.takeOver(writes);
    if (!this.fragments) return;
    const changes: EntityChange[] = [];
    for (const w of writes) {
      const entity = this.registry.entities.get(w.entityType);
      changes.push({
        urn: w.urn,
        previousRev: w.previousRev,
        rev: w.rev,
        created: w.created,
        wipedAll: w.wipedAll,
        removed: w.removed,
        set: w.set.map(([name, value]) => [name, () => (value && entity ? aspectFragment(this.registry, entity, name, value) : null)]),
      });
    }
    this.fragments.apply(changes);
  }

  private takeOver(writes: readonly CommittedWrite[]): void {
    for (const w of writes) {
      if (!w.queued) continue;
      // Re-inserted: a later write to an entity waits its turn behind the entities written before it.
      const rev = Math.max(this.handedOver.get(w.urn) ?? 0, w.rev);
      this.handedOver.delete(w.urn);
      this.handedOver.set(w.urn, rev);
    }
    // Stopped since the lease was given: nobody here indexes them, so their lease goes at once.
    if (!this.running && this.handedOver.size > 0) void this.releaseHandedOver();
  }

  /** Up to a batch of the entries handed over, oldest first; they count in the backlog until `batchFinished`. */
  private takeHandedOver(): OutboxEntry[] {
    const entries: OutboxEntry[] = [];
    for (const [urn, rev] of this.handedOver) {
      if (entries.length >= this.options.batchSize) break;
      entries.push({ urn, rev });
    }
    for (const e of entries) this.handedOver.delete(e.urn);
    this.handedOverInFlight += entries.length;
    return entries;
  }

  private batchFinished(handedOver: number): void {
    this.handedOverInFlight -= handedOver;
    this.releaseWrites();
  }

  /**
   * Whether new write groups should wait: this many of this process's writes are not indexed yet (backlog) while the
   * indexer keeps up with the engine. Never while it is stopped or failing: the engine being down must not stop writes
   * (their entries wait in Neo4j's outbox), nor must a slow indexer hold them beyond their deadline (the group stage
   * answers 503 with Retry-After then).
   */
  holdsWrites(): boolean {
    const max = this.options.maxBacklog ?? 0;
    return max > 0 && this.running && this.failures === 0 && this.backlog() >= max;
  }

  /**
   * This process's acknowledged writes not yet indexed: waiting for a batch, or in one. Counting the batches in flight
   * too bounds how far the index is behind (with two workers they held up to twice OUTBOX_BATCH_SIZE more).
   */
  backlog(): number {
    return this.handedOver.size + this.handedOverInFlight;
  }

  /** Resolves once holdsWrites() no longer holds. */
  whenWritesMayGo(): Promise<void> {
    if (!this.holdsWrites()) return Promise.resolve();
    return new Promise((resolve) => this.backlogWaiters.push(resolve));
  }

  private releaseWrites(): void {
    if (this.backlogWaiters.length === 0 || this.holdsWrites()) return;
    const waiters = this.backlogWaiters;
    this.backlogWaiters = [];
    for (const go of waiters) go();
  }

  /** Gives the leases of entries handed over and not indexed back, so any indexer claims them at once. */
  private async releaseHandedOver(): Promise<void> {
    const urns = [...this.handedOver.keys()];
    this.handedOver.clear();
    await this.outbox.release(urns, Date.now()).catch((err) => this.logger.warn({ err: (err as Error).message, entries: urns.length }, 'outbox leases not released; the entries are claimed once they run out'));
  }

  /**
   * Indexes the given entries' entities now; returns the entries that are done (indexed or superseded), to be
   * acknowledged, and the applied deletes, whose entries are acknowledged here after DELETE_GRACE_MS.
   */
  async indexEntries(entries: OutboxEntry[]): Promise<{ done: OutboxEntry[]; failed: OutboxEntry[]; deletes: OutboxEntry[] }> {
    // Entities whose fragments at the entry's revision are at hand need no read; the others are read and remembered.
    const cached = new Map<string, ReadonlyMap<string, AspectFragment>>();
    for (const e of entries) {
      const fragments = this.fragments?.get(e.urn, e.rev);
      if (fragments) cached.set(e.urn, fragments);
    }
    const unread = [...new Set(entries.filter((e) => !cached.has(e.urn)).map((e) => e.urn))];
    const latest = unread.length > 0 ? await this.aspects.latestMany(unread, null) : new Map();
    const operations: BulkOperation[] = [];
    /** The entry of each operation, by position: the engine answers with the concrete index behind an alias. */
    const opEntries: OutboxEntry[] = [];
    const done: OutboxEntry[] = [];
    let sliceStarted = performance.now();
    for (const entry of entries) {
      if (performance.now() - sliceStarted >= DOCUMENT_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStarted = performance.now();
      }
      const urn = tryParseUrn(entry.urn);
      const entity = urn ? this.registry.entities.get(urn.entityType) : undefined;
      if (!entity) {
        done.push(entry);
        continue;
      }
      const index = this.names.entity(entity.name);
      opEntries.push(entry);
      const hit = cached.get(entry.urn);
      const state = latest.get(entry.urn);
      if (hit && hit.size > 0) {
        operations.push({ op: 'index', index, id: entry.urn, doc: documentFromFragments(this.registry, entity, entry.urn, hit), version: entry.rev });
      } else if (!hit && state && state.aspects.size > 0) {
        const fragments = new Map<string, AspectFragment>();
        for (const [name, value] of state.aspects) fragments.set(name, aspectFragment(this.registry, entity, name, value));
        this.fragments?.put(entry.urn, state.rev, fragments);
        operations.push({ op: 'index', index, id: entry.urn, doc: documentFromFragments(this.registry, entity, entry.urn, fragments), version: Math.max(state.rev, entry.rev) });
      } else {
        operations.push({ op: 'delete', index, id: entry.urn, version: entry.rev });
      }
    }
    // An index being rebuilt gets every write too, so none made while it is filled from Neo4j is missing from it.
    const shadows: BulkOperation[] = [];
    for (const o of operations) {
      const building = this.migrations.building.get(tryParseUrn(o.id)?.entityType ?? '');
      if (building) shadows.push({ ...o, index: building });
    }
    const failed: OutboxEntry[] = [];
    const deletes: OutboxEntry[] = [];
    const results = await this.engine.bulk([...operations, ...shadows]);
    const shadowFailed = new Set(results.slice(operations.length).filter((r) => !r.ok).map((r) => r.id));
    for (const [i, item] of results.slice(0, operations.length).entries()) {
      const entry = opEntries[i];
      if (shadowFailed.has(item.id)) {
        failed.push(entry);
        continue;
      }
      if (item.ok) (operations[i].op === 'delete' ? deletes : done).push(entry);
      else {
        failed.push(entry);
        if (item.error === 'index_not_found_exception') this.readyIndices.delete(tryParseUrn(entry.urn)?.entityType ?? '');
      }
    }
    if (deletes.length > 0) {
      // Visible to every search from here on; only then may the grace start.
      await this.engine.refresh([...new Set(deletes.map((e) => this.names.entity(tryParseUrn(e.urn)!.entityType)))].join(','));
      // Marked so waitUntilIndexed need not wait out the grace; the lease lets another indexer finish them after a crash.
      await this.outbox.markApplied(deletes, Date.now() + DELETE_GRACE_MS + 1000);
      this.lingering.push({ entries: deletes, dueAt: performance.now() + DELETE_GRACE_MS });
    }
    return { done, failed, deletes };
  }

  /** Removes the outbox entries of applied deletes whose grace is over (taken off the list first: workers share it). */
  private async acknowledgeDeletes(): Promise<void> {
    const now = performance.now();
    const due: { entries: OutboxEntry[]; dueAt: number }[] = [];
    while (this.lingering.length > 0 && this.lingering[0].dueAt <= now) due.push(this.lingering.shift()!);
    if (due.length === 0) return;
    const entries = due.flatMap((d) => d.entries);
    let markers: string[];
    try {
      markers = await this.outbox.acknowledge(entries);
    } catch (err) {
      this.lingering.unshift(...due);
      throw err;
    }
    await this.removeMarkers(markers);
  }

  /**
   * Markers of applied entries (as their acknowledgement returned them): the index shows their deletes (for a delete,
   * since the grace), so searches need not check those entities any more. One that fails to go is swept later.
   */
  private async removeMarkers(ids: string[]): Promise<void> {
    if (ids.length === 0 || !this.markers) return;
    await this.markers.remove(ids).catch((err) => this.logger.warn({ err: (err as Error).message, markers: ids.length }, 'pending-delete markers not removed; they are swept later'));
  }

  /**
   * Removes old markers no entry holds: left by deletes that failed, changed nothing, or whose removal failed. Runs at
   * most once a minute unless `now`.
   */
  async sweepMarkers(now = false): Promise<void> {
    if (!this.markers || (!now && performance.now() < this.nextMarkerSweep)) return;
    this.nextMarkerSweep = performance.now() + MARKER_SWEEP_INTERVAL_MS;
    const old = await this.markers.olderThan(Date.now() - MARKER_SWEEP_AGE_MS);
    const held = await this.outbox.referencedMarkers(old);
    await this.markers.remove(old.filter((m) => !held.has(m.id)).map((m) => m.id));
  }

  private claim(): Promise<OutboxEntry[]> {
    const claimed = this.claims.then(() => this.outbox.claim(this.options.batchSize, this.options.leaseMs ?? 30_000));
    this.claims = claimed.catch(() => undefined);
    return claimed;
  }

  /** Resolves once no outbox entry is left for these URNs (all when null) and the indices are refreshed. */
  async waitUntilIndexed(urns: string[] | null = null, timeoutMs = 60_000): Promise<void> {
    if (!(await this.indexedBy(urns, Date.now() + timeoutMs))) throw new Error(`Entities not indexed within ${timeoutMs} ms`);
    await this.engine.refresh(this.names.allEntities());
  }

  /**
   * Whether every outbox entry of these URNs (all when null) was indexed by `deadline` (epoch ms); checked after each
   * batch the workers finish, and at least every 50 ms. Indexed, not yet searchable: the index still needs a refresh.
   */
  async indexedBy(urns: string[] | null, deadline: number): Promise<boolean> {
    while ((await this.outbox.pending(urns)) > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      // Someone waits: a worker lingering to gather a bigger batch goes now (never one backing off from failures).
      this.idleWait = this.options.pollMs;
      if (this.failures === 0) this.wakeAll();
      await new Promise<void>((resolve) => {
        const onBatch = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          this.events.off('batch', onBatch);
          resolve();
        }, Math.min(50, left));
        this.events.once('batch', onBatch);
      });
    }
    return true;
  }

  /** Worker 0 polls while idle; the others sleep until a write or a full batch wakes them (or idlePollMs passes). */
  private async run(worker: number): Promise<void> {
    while (this.running) {
      let idle = false;
      let entries: OutboxEntry[] = [];
      let handedOver = 0;
      try {
        await this.acknowledgeDeletes();
        // This process's own writes first: they need no claim.
        entries = this.takeHandedOver();
        handedOver = entries.length;
        if (entries.length === 0) entries = await this.claim();
        if (entries.length === 0) {
          idle = true;
          if (worker === 0) await this.sweepMarkers();
        } else {
          this.idleWait = this.options.pollMs;
          // A full batch: more is waiting (more handed over, another process's writes, a restore); the sleeping
          // workers join in.
          if (entries.length >= this.options.batchSize || this.handedOver.size > 0) this.wakeAll();
          await this.ensureIndices(entries.map((e) => tryParseUrn(e.urn)?.entityType ?? ''));
          const { done, failed } = await this.indexEntries(entries);
          await this.removeMarkers(await this.outbox.acknowledge(done));
          this.failures = failed.length > 0 ? this.failures + 1 : 0;
          this.batchFinished(handedOver);
          handedOver = 0;
          if (failed.length > 0) await this.outbox.release(failed.map((e) => e.urn), Date.now() + this.backoff(this.failures));
          this.events.emit('batch');
          if (entries.length < this.options.batchSize && this.options.lingerMs) {
            this.pausedAfterBatch = true;
            await this.sleep(this.options.lingerMs);
            this.pausedAfterBatch = false;
          }
        }
      } catch (err) {
        this.failures++;
        this.batchFinished(handedOver);
        const delay = this.backoff(this.failures);
        // Hand the leases back so the retry need not wait for them to expire.
        await this.outbox.release(entries.map((e) => e.urn), Date.now() + delay).catch(() => undefined);
        if (this.failures === 1 || this.failures % 20 === 0) {
          this.logger.warn({ err: (err as Error).message, retryInMs: delay }, 'search indexing failed; will retry');
        }
        await this.sleep(delay);
        continue;
      }
      if (idle) {
        const idleMax = Math.max(this.options.idlePollMs ?? this.options.pollMs, this.options.pollMs);
        let wait = worker === 0 ? this.idleWait : idleMax;
        if (worker === 0) this.idleWait = Math.min(this.idleWait * 2, idleMax);
        if (this.lingering.length > 0) wait = Math.max(0, Math.min(wait, this.lingering[0].dueAt - performance.now()));
        await this.sleep(wait);
      }
    }
  }

  private backoff(failures: number): number {
    return Math.min(this.options.maxBackoffMs ?? 5000, 100 * 2 ** Math.min(failures, 10));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }
}
