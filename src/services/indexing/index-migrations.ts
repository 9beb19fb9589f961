import type { Logger } from 'pino';
import type { Registry } from '../../model/registry';
import type { RestoreEntity, RestorePageQuery } from '../../stores/graph/restore-store';
import type { Body, SearchEngine } from '../../stores/search/engine';
import { ENTITY_MAPPING_VERSION, entityIndexDefinition, type IndexNames } from '../../stores/search/mappings';
import { buildDocument } from './document';

/** Where a rebuild reads entities from: Neo4j, a page of one type's urns at a time (RestoreStore). */
export interface EntityPages {
  page(query: RestorePageQuery): Promise<RestoreEntity[]>;
}

export type IndexState =
  | { kind: 'missing' }
  | { kind: 'current' }
  /** `concrete`: the name is an index itself, as versions before 2 made it, not an alias. */
  | { kind: 'outdated'; sources: string[]; concrete: boolean };

export type MigrationPhase = 'building' | 'built' | 'swapped';

export interface MigrationOptions {
  batchSize: number;
  /** Called as a migration enters each phase, and awaited (tests write while one runs). */
  onPhase?: (entityType: string, phase: MigrationPhase) => Promise<void> | void;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Entity indices are aliases (`datasetindex_v2`) over one concrete index per mapping version
 * (`datasetindex_v2_m2`, IndexNames.entityGeneration). An index of another version (documents built differently, or
 * fields mapped differently, which the engine cannot change in place) is rebuilt without losing a write:
 *
 * 1. The new index is created beside the old one, and this process's indexer writes every document of that type to
 *    both from here on (`building`).
 * 2. Every entity of the type is read from Neo4j and written into the new index, with its revision as external
 *    version, so a newer revision written meanwhile is never overwritten.
 * 3. One atomic alias update moves the name to the new index and drops the old one: searches and writes go to the new
 *    index from then on; a write in flight to the old one fails and its outbox entry is retried through the name.
 * 4. The copy runs once more: it catches what other processes (which may not write to both) wrote during step 2.
 *
 * Searches answer from the old index until step 3. Every step may run again: a restarted process, or several at once,
 * converge on the same new index. Nothing is reindexed from the engine itself (Elasticsearch's test distribution has
 * no reindex module, and documents change with the version anyway).
 */
export class EntityIndexMigrations {
  /** Entity type → the index being built for it; the indexer writes there too. */
  readonly building = new Map<string, string>();
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly registry: Registry,
    private readonly engine: SearchEngine,
    private readonly names: IndexNames,
    /** null: outdated indices are left as they are (tools that only create indices). */
    private readonly pages: EntityPages | null,
    private readonly logger: Logger,
    readonly options: MigrationOptions,
  ) {}

  async state(entityType: string): Promise<IndexState> {
    const alias = this.names.entity(entityType);
    const mappings = await this.engine.getMappings(alias);
    if (mappings.size === 0) return { kind: 'missing' };
    const version = (m: Body) => (isObject(m._meta) ? m._meta.mappingVersion : undefined);
    const stale = [...mappings].filter(([, m]) => version(m) !== ENTITY_MAPPING_VERSION).map(([name]) => name);
    if (stale.length === 0) return { kind: 'current' };
    return { kind: 'outdated', sources: [...mappings.keys()], concrete: mappings.has(alias) };
  }

  /** Creates the entity type's index (a concrete index of the current version behind the alias). */
  async create(entityType: string): Promise<void> {
    const entity = this.registry.entity(entityType);
    const definition = entityIndexDefinition(this.registry, entity);
    await this.engine.createIndex(this.names.entityGeneration(entity.name, ENTITY_MAPPING_VERSION), { ...definition, aliases: { [this.names.entity(entity.name)]: {} } });
  }

  /** Starts the rebuild of an outdated index unless one runs in this process; resolves when it is done. */
  migrate(entityType: string): Promise<void> {
    if (!this.pages) return Promise.resolve();
    let run = this.running.get(entityType);
    if (!run) {
      run = this.run(entityType).finally(() => this.running.delete(entityType));
      this.running.set(entityType, run);
    }
    return run;
  }

  /** Rebuilds every outdated entity index (at start, in the background). */
  async migrateAll(): Promise<void> {
    const aliases = this.names.allEntities();
    const existing = await this.engine.getMappings(aliases);
    const aliased = await this.engine.getAliases(aliases);
    const types = [...this.registry.entities.keys()].filter((t) => existing.has(this.names.entity(t)) || aliased.has(this.names.entity(t)));
    for (const t of types) {
      if ((await this.state(t)).kind === 'outdated') await this.migrate(t);
    }
  }

  isRunning(entityType: string): boolean {
    return this.running.has(entityType);
  }

  private async run(entityType: string): Promise<void> {
    const entity = this.registry.entity(entityType);
    const target = this.names.entityGeneration(entity.name, ENTITY_MAPPING_VERSION);
    const state = await this.state(entity.name);
    if (state.kind !== 'outdated') return;
    const started = performance.now();
    this.logger.info({ entityType, from: state.sources, to: target }, 'rebuilding an entity index of an older mapping version');
    await this.engine.createIndex(target, entityIndexDefinition(this.registry, entity));
    this.building.set(entity.name, target);
    try {
      await this.options.onPhase?.(entity.name, 'building');
      await this.copy(entity.name, target);
      await this.options.onPhase?.(entity.name, 'built');
      await this.swap(entity.name, target, state);
    } finally {
      this.building.delete(entity.name);
    }
    await this.options.onPhase?.(entity.name, 'swapped');
    const copied = await this.copy(entity.name, target);
    await this.engine.refresh(this.names.entity(entity.name));
    this.logger.info({ entityType, index: target, documents: copied, ms: Math.round(performance.now() - started) }, 'entity index rebuilt');
  }

  /** Writes every entity of the type, as Neo4j holds it now, into `index`; returns the number of documents. */
  private async copy(entityType: string, index: string): Promise<number> {
    const pages = this.pages!;
    const entity = this.registry.entity(entityType);
    const from = `urn:${this.registry.urnNamespace}:${entityType}:`;
    const to = `urn:${this.registry.urnNamespace}:${entityType};`; // ';' follows ':'
    let after = '';
    let written = 0;
    for (;;) {
      const page = await pages.page({ urn: null, aspect: null, urnRegex: null, from: after > from ? after : from, to, after, skip: 0, limit: this.options.batchSize });
      if (page.length === 0) return written;
      const operations = [];
      for (const row of page) {
        const values = new Map<string, Record<string, unknown>>();
        for (const a of row.aspects) {
          if (!entity.aspects.has(a.name) || this.registry.aspects.get(a.name)?.timeseries) continue;
          try {
            const value: unknown = JSON.parse(a.value);
            if (isObject(value)) values.set(a.name, value);
          } catch {
            /* an unreadable value is left out, as the indexer leaves it out */
          }
        }
        if (values.size > 0) operations.push({ op: 'index' as const, index, id: row.urn, doc: buildDocument(this.registry, entity, row.urn, values), version: row.rev });
      }
      const failed = (await this.engine.bulk(operations)).filter((r) => !r.ok);
      if (failed.length > 0) throw new Error(`the engine refused ${failed.length} documents while rebuilding ${index} (${failed[0].error})`);
      written += operations.length;
      after = page[page.length - 1].urn;
      if (page.length < this.options.batchSize) return written;
    }
  }

  /** Moves the name to the new index and drops the old ones, in one alias update; done already is not an error. */
  private async swap(entityType: string, target: string, state: Extract<IndexState, { kind: 'outdated' }>): Promise<void> {
    const alias = this.names.entity(entityType);
    const sources = state.sources.filter((s) => s !== target);
    const actions: Body[] = state.concrete
      ? [{ remove_index: { index: alias } }, { add: { index: target, alias } }]
      : [...sources.map((index) => ({ remove_index: { index } })), { add: { index: target, alias } }];
    try {
      await this.engine.updateAliases(actions);
    } catch (err) {
      // Another process swapped first: the name then already resolves to the new index alone.
      const now = await this.engine.getMappings(alias);
      if (now.size === 1 && now.has(target)) return;
      throw err;
    }
  }
}
