import type { Principal } from '../auth';
import type { RevocationCheck } from '../auth/revocation-check';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import { asksSearchableOnReturn, searchableRequested, type SearchSync } from './indexing/search-sync';
import { fixedRetention, type RetentionLookup } from './retention-policies';
import type { GroupWriter } from './write-path/group-writer';
import type { ItemOutcome, Projected, ProjectedEdges, WriteItem } from './write-path/plan';
import { WritePreparer, type Prepared, type TimeseriesEvent } from './write-path/prepare';

/** Where time-series aspects go (the search engine); they never become Neo4j versions. */
export interface TimeseriesSink {
  write(events: TimeseriesEvent[]): Promise<void>;
  deleteForUrn(urn: string, range?: TimeseriesDeleteRange): Promise<number>;
}

/** Which time-series rows of an entity a delete removes: of one aspect or all, in an inclusive time range or all. */
export interface TimeseriesDeleteRange {
  aspect?: string;
  startTimeMillis?: number;
  endTimeMillis?: number;
}

/** `POST /entities?action=delete`, as DataHub's client sends it. */
export interface DeleteRequest {
  urn: unknown;
  /** Only this aspect: a time-series aspect's rows (in the time range), or a versioned aspect with all its versions. */
  aspectName?: unknown;
  startTimeMillis?: number;
  endTimeMillis?: number;
}

export interface IngestionOptions {
  /** RETENTION_MAX_VERSIONS: history versions each aspect keeps, where no retention policy says otherwise. */
  retention: number;
  /** RETENTION_MAX_AGE in ms: history no longer current this long ago is trimmed too (unset: no age bound). */
  retentionMaxAgeMs?: number;
  /** The stored retention policies (dataHubRetentionConfig), which take precedence over the two above. */
  retentionPolicies?: RetentionLookup;
  now?: () => number;
  /**
   * Marks entities in the search engine before a delete commits (PendingDeleteMarkers), so searches can drop their
   * documents until the index catches up; refuses (UnavailableError) when the engine cannot take the marks.
   */
  pendingDeletes?: { mark(urns: string[]): Promise<string[]> };
  /** Completes the default aspects of a request's writes from the request itself (completeDefaultBrowsePaths). */
  completeDefaults?: (items: WriteItem[]) => Promise<void>;
  /** Checks of a request's values against other entities (structured property values against their definitions); throws to refuse it. */
  checkWrites?: (items: WriteItem[]) => Promise<void>;
  /** Writes asked to answer once searchable wait on it (none: they answer at commit, as there is no index). */
  searchSync?: SearchSync;
}

/** A new value computed from the stored one (null: none stored); returning null leaves the aspect unchanged. */
export type AspectTransform = (current: Record<string, unknown> | null) => Record<string, unknown> | null;

/** Writes that can remove what search shows: each gets a pending-delete marker. */
type DeleteItem = Extract<WriteItem, { kind: 'deleteEntity' | 'deleteAspect' | 'revert' }>;

const isDelete = (i: WriteItem): i is DeleteItem => i.kind === 'deleteEntity' || i.kind === 'deleteAspect' || i.kind === 'revert';

/**
 * The entry points of ingestion: proposals, legacy snapshots, deletes and read-modify-writes, each prepared
 * (./write-path/prepare.ts) and submitted to the write pipeline as one unit; a rejected request writes nothing.
 */
export class IngestionService {
  private readonly now: () => number;
  private readonly prepare: WritePreparer;

  constructor(
    private readonly registry: Registry,
    private readonly writer: GroupWriter,
    private readonly timeseries: TimeseriesSink | null,
    private readonly options: IngestionOptions,
  ) {
    this.now = options.now ?? Date.now;
    const retention = options.retentionPolicies ?? fixedRetention({ versions: options.retention, maxAgeMs: options.retentionMaxAgeMs ?? null });
    this.prepare = new WritePreparer(registry, { retention, timeseries: timeseries !== null });
  }

  /** `revocation`: the caller's token check, if not made yet (see `apply`). */
  async ingestProposal(proposal: unknown, principal: Principal, envelopeSystemMetadata?: unknown, revocation?: RevocationCheck): Promise<string> {
    const prepared = this.prepare.proposal(proposal, principal, this.now(), envelopeSystemMetadata);
    await this.apply([prepared], revocation, asksSearchableOnReturn(proposal));
    return (proposal as { entityUrn: string }).entityUrn;
  }

  /** The batch is validated as a whole first: one bad proposal rejects all, and nothing is written. */
  async ingestProposalBatch(proposals: unknown[], principal: Principal, revocation?: RevocationCheck): Promise<string[]> {
    await this.apply(this.prepare.proposals(proposals, principal, this.now()), revocation, proposals.some(asksSearchableOnReturn));
    return proposals.map((p) => (p as { entityUrn: string }).entityUrn);
  }

  /** Legacy `entities?action=ingest`: one snapshot, all of its aspects in one transaction. */
  async ingestSnapshot(entity: unknown, systemMetadataRaw: unknown, principal: Principal, revocation?: RevocationCheck): Promise<string> {
    const { urn, prepared } = this.prepare.snapshot(entity, systemMetadataRaw, principal, this.now());
    await this.apply(prepared, revocation, asksSearchableOnReturn({ systemMetadata: systemMetadataRaw }));
    return urn;
  }

  /**
   * Hard delete with DataHub's meaning. Without `aspectName`: the entity (every aspect, version, edge and search
   * document) and its time-series rows (those in the time range when one is given). With a time-series `aspectName`:
   * only that aspect's rows in the range; the entity and its other aspects stay. With a versioned `aspectName`: that
   * aspect, all its versions and what it projected (its key aspect: the entity). A time range on a versioned aspect is
   * refused: it cannot mean anything there, and ignoring it would delete more than asked.
   */
  async delete(request: DeleteRequest): Promise<{ urn: string; rows: number; timeseriesRows: number }> {
    const { urn, entity } = this.registry.parseEntityUrn(request.urn);
    const { startTimeMillis, endTimeMillis } = request;
    const bounded = startTimeMillis !== undefined || endTimeMillis !== undefined;
    if (startTimeMillis !== undefined && endTimeMillis !== undefined && startTimeMillis > endTimeMillis) {
      throw new InvalidInputError(`startTimeMillis (${startTimeMillis}) is after endTimeMillis (${endTimeMillis})`);
    }
    const aspect = request.aspectName === undefined ? null : this.registry.aspectFor(entity, request.aspectName);
    if (aspect?.timeseries) {
      if (!this.timeseries) throw new InvalidInputError(`Time-series aspect '${aspect.name}' is not supported by this deployment`);
      const timeseriesRows = await this.timeseries.deleteForUrn(urn.raw, { aspect: aspect.name, startTimeMillis, endTimeMillis });
      return { urn: urn.raw, rows: 0, timeseriesRows };
    }
    if (aspect && bounded) {
      throw new InvalidInputError(`startTimeMillis and endTimeMillis apply only to time-series aspects; '${aspect.name}' is versioned`);
    }
    const target = { urn: urn.raw, entityType: urn.entityType };
    const wholeEntity = !aspect || aspect.name === entity.keyAspect;
    const item: DeleteItem = wholeEntity ? { kind: 'deleteEntity', ...target } : { kind: 'deleteAspect', ...target, name: aspect.name };
    await this.markDeletes([item]);
    const [outcome] = await this.writer.submit([item]);
    await this.searchableOnReturn([item]);
    const timeseriesRows = wholeEntity && this.timeseries ? await this.timeseries.deleteForUrn(urn.raw, { startTimeMillis, endTimeMillis }) : 0;
    return { urn: urn.raw, rows: outcome.rows, timeseriesRows };
  }

  /**
   * Hard delete of several aspects of one entity as one unit: versioned ones with all their versions and what they
   * projected, time-series ones with all their rows. The entity and its other aspects stay.
   */
  async deleteAspects(rawUrn: unknown, aspectNames: string[]): Promise<void> {
    const { urn, entity } = this.registry.parseEntityUrn(rawUrn);
    const aspects = aspectNames.map((n) => this.registry.aspectFor(entity, n));
    if (aspects.some((a) => a.name === entity.keyAspect)) throw new InvalidInputError(`Deleting the key aspect '${entity.keyAspect}' deletes the entity: delete the entity instead`);
    if (aspects.some((a) => a.timeseries) && !this.timeseries) throw new InvalidInputError('Time-series aspects are not supported by this deployment');
    const items: DeleteItem[] = aspects.filter((a) => !a.timeseries).map((a) => ({ kind: 'deleteAspect', urn: urn.raw, entityType: urn.entityType, name: a.name }));
    await this.submit(items);
    for (const a of aspects.filter((x) => x.timeseries)) await this.timeseries!.deleteForUrn(urn.raw, { aspect: a.name });
  }

  /** What a stored value of an aspect projects (hash, edges, column edges), for writes restoring a kept version. */
  projectStored(aspectName: string, value: Record<string, unknown>): Projected {
    return this.prepare.projectStored(aspectName, value);
  }

  projectEdges(aspectName: string, value: Record<string, unknown>): ProjectedEdges {
    return this.prepare.projectEdges(aspectName, value);
  }

  edgeKeys(aspectName: string, value: Record<string, unknown>): { edges: string[]; columnEdges: string[] } {
    return this.prepare.edgeKeys(aspectName, value);
  }

  /** Write items built elsewhere in the domain (a rollback's reverts and deletes), as one unit: one transaction. */
  async submit(items: WriteItem[]): Promise<ItemOutcome[]> {
    if (items.length === 0) return [];
    await this.markDeletes(items);
    const outcomes = await this.writer.submit(items);
    await this.searchableOnReturn(items);
    return outcomes;
  }

  /**
   * Writes a transformation of an aspect's latest value (null when absent), computed inside the write's transaction
   * after the entity is locked; the result is validated like any proposal. Returning null leaves the aspect unchanged.
   */
  async patchAspect(
    rawUrn: string,
    aspectName: string,
    transform: AspectTransform,
    principal: Principal,
    systemMetadataRaw?: unknown,
  ): Promise<{ unchanged: boolean }> {
    const [outcome] = await this.transformAspects([{ urn: rawUrn, aspectName, transform }], principal, systemMetadataRaw);
    return outcome;
  }

  /** The write items of transforms (as transformAspects writes them), for a caller that submits them with its own items. */
  transformItems(changes: { urn: string; aspectName: string; transform: AspectTransform }[], principal: Principal, systemMetadataRaw?: unknown): WriteItem[] {
    return this.prepare.transforms(changes, principal, systemMetadataRaw, this.now());
  }

  /**
   * Read-modify-writes of several aspects as one transaction: each transform sees the value as its entity's lock left
   * it, so no write committed between a caller's read and this write is lost (services that derive a value from the
   * stored one use this, never a read followed by an UPSERT).
   */
  async transformAspects(
    changes: { urn: string; aspectName: string; transform: AspectTransform }[],
    principal: Principal,
    systemMetadataRaw?: unknown,
  ): Promise<{ unchanged: boolean }[]> {
    const items = this.prepare.transforms(changes, principal, systemMetadataRaw, this.now());
    if (items.length === 0) return [];
    const outcomes = await this.writer.submit(items);
    await this.searchableOnReturn(items);
    return outcomes.map((o) => ({ unchanged: o.unchanged }));
  }

  /**
   * After a commit, before the answer: waits until the written entities are searchable when the request asked for it
   * (`asked`: its proposals' headers) or runs where every write must (a GraphQL mutation, writesSearchableIn).
   */
  private async searchableOnReturn(items: readonly WriteItem[], asked = false): Promise<void> {
    if (!this.options.searchSync || !(asked || searchableRequested())) return;
    await this.options.searchSync.untilSearchable(items);
  }

  /** One pending-delete marker per entity a request deletes from, written before the request's writes are queued. */
  private async markDeletes(items: WriteItem[]): Promise<void> {
    const deletes = items.filter(isDelete);
    if (deletes.length === 0 || !this.options.pendingDeletes) return;
    const urns = [...new Set(deletes.map((d) => d.urn))];
    const ids = await this.options.pendingDeletes.mark(urns);
    const byUrn = new Map(urns.map((urn, i) => [urn, ids[i]]));
    for (const d of deletes) d.marker = byUrn.get(d.urn);
  }

  /**
   * All of a request's writes in proposal order, as one unit of the group writer (one transaction). A request's token
   * check (`revocation`, not made yet) goes into that transaction when the request changes nothing else; otherwise
   * (deletes mark the search index first, time-series events go to the engine) it is made before anything changes.
   */
  private async apply(prepared: Prepared[], revocation?: RevocationCheck, searchable = false): Promise<void> {
    const { items, events } = this.prepare.items(prepared, this.now);
    const checkedInTransaction = items.length > 0 && events.length === 0 && !items.some(isDelete);
    if (revocation && !checkedInTransaction) await revocation.confirm();
    if (items.length > 0) {
      await this.options.completeDefaults?.(items);
      await this.options.checkWrites?.(items);
      await this.markDeletes(items);
      await this.writer.submit(items, checkedInTransaction ? revocation : undefined);
      await this.searchableOnReturn(items, searchable);
    }
    if (events.length > 0) await this.timeseries!.write(events);
  }
}
