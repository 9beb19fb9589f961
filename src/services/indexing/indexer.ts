import { UnavailableError } from '../../model/errors';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Registry } from '../../model/registry';
import { tryParseUrn } from '../../model/urn';
import type { AspectStore } from '../../stores/graph/aspect-store';
import type { OutboxEntry, OutboxStore } from '../../stores/graph/outbox-store';
import type { BulkOperation, SearchEngine } from '../../stores/search/engine';
import { entityIndexDefinition, type IndexNames } from '../../stores/search/mappings';
import { buildDocument } from './document';

export interface IndexerOptions {
  batchSize: number;
  pollMs: number;
  leaseMs?: number;
  maxBackoffMs?: number;
  /** Pause after a batch that was not full, so the next one gathers more entries (each batch costs 3 Neo4j round trips and a bulk request). */
  lingerMs?: number;
}

/**
 * Keeps the search index in step with Neo4j: drains the outbox written with every aspect change, rebuilds each
 * entity's document from its latest aspects and writes it with the entity revision as external version. When the
 * engine is down it backs off and retries; entries stay in Neo4j until indexed, so nothing acknowledged is lost.
 */
export class SearchIndexer {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** Entity types whose index is known to exist with the current mapping; indices are created on first write. */
  private readonly readyIndices = new Set<string>();
  private failures = 0;
  private lingering = false;
  private readonly events = new EventEmitter();

  constructor(
    private readonly registry: Registry,
    private readonly aspects: AspectStore,
    private readonly outbox: OutboxStore,
    private readonly engine: SearchEngine,
    private readonly names: IndexNames,
    private readonly options: IndexerOptions,
    private readonly logger: Logger,
  ) {
    this.events.setMaxListeners(0);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Cuts the idle wait short after a write (never a back-off wait). */
  notify(): void {
    if (this.failures === 0 && !this.lingering) this.wake?.();
  }

  /**
   * Creates the index of each entity type that lacks one and adds new fields to existing mappings (all types when none
   * are named). The model has 72 entity types; a deployment writes a few of them, so indices appear on first write.
   */
  async ensureIndices(entityTypes?: Iterable<string>, options: { recheck?: boolean } = {}): Promise<void> {
    const names = entityTypes ? [...new Set(entityTypes)] : [...this.registry.entities.keys()];
    for (const name of names) {
      const entity = this.registry.entities.get(name);
      // recheck: an admin may have dropped indices (restore), and a bulk write would auto-create one without our mapping.
      if (!entity || (this.readyIndices.has(name) && !options.recheck)) continue;
      const index = this.names.entity(entity.name);
      const definition = entityIndexDefinition(this.registry, entity);
      if (await this.engine.indexExists(index)) {
        try {
          await this.engine.putMapping(index, definition.mappings);
        } catch (err) {
          // A field whose type changed (an older model) cannot be remapped in place; the index keeps serving with its
          // old mapping until it is dropped and restored (restoreIndices), rather than blocking all indexing.
          if (err instanceof UnavailableError) throw err;
          this.logger.warn({ index, err: (err as Error).message }, 'index mapping could not be updated; drop the index and run restoreIndices');
        }
      } else await this.engine.createIndex(index, definition);
      this.readyIndices.add(name);
    }
  }

  /** Indexes the given entries' entities now; returns the entries that are done (indexed, deleted or superseded). */
  async indexEntries(entries: OutboxEntry[]): Promise<{ done: OutboxEntry[]; failed: OutboxEntry[] }> {
    const latest = await this.aspects.latestMany(
      entries.map((e) => e.urn),
      null,
    );
    const operations: BulkOperation[] = [];
    const byId = new Map<string, OutboxEntry>();
    const done: OutboxEntry[] = [];
    for (const entry of entries) {
      const urn = tryParseUrn(entry.urn);
      const entity = urn ? this.registry.entities.get(urn.entityType) : undefined;
      if (!entity) {
        done.push(entry);
        continue;
      }
      const index = this.names.entity(entity.name);
      byId.set(`${index}\u0000${entry.urn}`, entry);
      const state = latest.get(entry.urn);
      if (state && state.aspects.size > 0) {
        const doc = buildDocument(this.registry, entity, entry.urn, state.aspects);
        operations.push({ op: 'index', index, id: entry.urn, doc, version: Math.max(state.rev, entry.rev) });
      } else {
        operations.push({ op: 'delete', index, id: entry.urn, version: entry.rev });
      }
    }
    const failed: OutboxEntry[] = [];
    for (const item of await this.engine.bulk(operations)) {
      const entry = byId.get(`${item.index}\u0000${item.id}`);
      if (!entry) continue;
      if (item.ok) done.push(entry);
      else {
        failed.push(entry);
        if (item.error === 'index_not_found_exception') this.readyIndices.delete(tryParseUrn(entry.urn)?.entityType ?? '');
      }
    }
    return { done, failed };
  }

  /** Resolves once no outbox entry is left for these URNs (all when null) and the indices are refreshed. */
  async waitUntilIndexed(urns: string[] | null = null, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.outbox.pending(urns)) > 0) {
      if (Date.now() > deadline) throw new Error(`Entities not indexed within ${timeoutMs} ms`);
      this.notify();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.events.once('batch', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await this.engine.refresh(this.names.allEntities());
  }

  private async run(): Promise<void> {
    while (this.running) {
      let idle = false;
      let entries: OutboxEntry[] = [];
      try {
        entries = await this.outbox.claim(this.options.batchSize, this.options.leaseMs ?? 30_000);
        if (entries.length === 0) {
          idle = true;
        } else {
          await this.ensureIndices(entries.map((e) => tryParseUrn(e.urn)?.entityType ?? ''));
          const { done, failed } = await this.indexEntries(entries);
          await this.outbox.acknowledge(done);
          if (failed.length > 0) {
            await this.outbox.release(failed.map((e) => e.urn), Date.now() + this.backoff(++this.failures));
          } else {
            this.failures = 0;
          }
          this.events.emit('batch');
          if (entries.length < this.options.batchSize && this.options.lingerMs) {
            this.lingering = true;
            await this.sleep(this.options.lingerMs);
            this.lingering = false;
          }
        }
      } catch (err) {
        this.failures++;
        const delay = this.backoff(this.failures);
        // Hand the leases back so the retry need not wait for them to expire.
        await this.outbox.release(entries.map((e) => e.urn), Date.now() + delay).catch(() => undefined);
        if (this.failures === 1 || this.failures % 20 === 0) {
          this.logger.warn({ err: (err as Error).message, retryInMs: delay }, 'search indexing failed; will retry');
        }
        await this.sleep(delay);
        continue;
      }
      if (idle) await this.sleep(this.options.pollMs);
    }
  }

  private backoff(failures: number): number {
    return Math.min(this.options.maxBackoffMs ?? 5000, 100 * 2 ** Math.min(failures, 10));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}
