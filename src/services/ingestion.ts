import { systemActor, type Principal } from '../auth';
import { ASPECT_BEHAVIOURS } from '../model/aspects';
import { canonicalJson, contentHash } from '../model/canonical';
import { InvalidInputError, ValidationError } from '../model/errors';
import { assertNesting } from '../model/nesting';
import type { AspectSpec, EntitySpec, Registry } from '../model/registry';
import { tryParseUrn, type Urn } from '../model/urn';
import type { GroupWriter } from './write-path/group-writer';
import type { ItemOutcome, Projected, ProjectedEdges, WriteItem } from './write-path/plan';
import { applyPatch, parsePatch } from './patch/json-patch';

export interface TimeseriesEvent {
  urn: Urn;
  entity: EntitySpec;
  aspect: AspectSpec;
  value: Record<string, unknown>;
  systemMetadata: Record<string, unknown>;
}

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
  retention: number;
  /** RETENTION_MAX_AGE in ms: history no longer current this long ago is trimmed too (unset: no age bound). */
  retentionMaxAgeMs?: number;
  now?: () => number;
  /**
   * Marks entities in the search engine before a delete commits (PendingDeleteMarkers), so searches can drop their
   * documents until the index catches up; refuses (UnavailableError) when the engine cannot take the marks.
   */
  pendingDeletes?: { mark(urns: string[]): Promise<string[]> };
  /** Completes the default aspects of a request's writes from the request itself (completeDefaultBrowsePaths). */
  completeDefaults?: (items: WriteItem[]) => Promise<void>;
}

/** A new value computed from the stored one (null: none stored); returning null leaves the aspect unchanged. */
export type AspectTransform = (current: Record<string, unknown> | null) => Record<string, unknown> | null;

/** Writes that can remove what search shows: each gets a pending-delete marker. */
type DeleteItem = Extract<WriteItem, { kind: 'deleteEntity' | 'deleteAspect' | 'revert' }>;

type UpsertItem = Extract<WriteItem, { kind: 'upsert' }>;

type Prepared =
  | { kind: 'upsert'; write: UpsertItem }
  | { kind: 'delete'; urn: Urn; entity: EntitySpec; aspect: AspectSpec }
  | { kind: 'timeseries'; event: TimeseriesEvent };

const CHANGE_TYPES = ['UPSERT', 'DELETE', 'PATCH'];
/** Proposal fields this service honours; any other is refused, never ignored. */
const PROPOSAL_FIELDS = new Set(['entityType', 'entityUrn', 'changeType', 'aspectName', 'aspect', 'systemMetadata']);
/** MetadataChangeProposal fields the official client can send that this service does not implement, and why it matters. */
const UNSUPPORTED_PROPOSAL_FIELDS: Record<string, string> = {
  headers: 'conditional writes (If-None-Match, If-Version-Match) are not supported; send the proposal without headers',
  entityKeyAspect: 'name the entity by entityUrn',
  auditHeader: 'Kafka audit headers are not accepted over HTTP',
};
const CONTENT_TYPES = ['application/json', 'application/json-patch+json'];

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** systemMetadata may arrive as an object or a JSON string; runId and lastObserved get defaults. */
export function normalizeSystemMetadata(raw: unknown, now: number): Record<string, unknown> {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new InvalidInputError('systemMetadata is not valid JSON');
    }
  }
  if (value !== undefined && value !== null && !isObject(value)) throw new InvalidInputError('systemMetadata must be an object');
  if (value) assertNesting(value, 'systemMetadata');
  const metadata = { ...((value as Record<string, unknown>) ?? {}) };
  if (typeof metadata.runId !== 'string' || metadata.runId === '') metadata.runId = DEFAULT_RUN_ID;
  if (typeof metadata.lastObserved !== 'number') metadata.lastObserved = now;
  return metadata;
}

/** Validates proposals and legacy snapshots and writes them; a rejected request writes nothing. */
export class IngestionService {
  private readonly now: () => number;

  constructor(
    private readonly registry: Registry,
    private readonly writer: GroupWriter,
    private readonly timeseries: TimeseriesSink | null,
    private readonly options: IngestionOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async ingestProposal(proposal: unknown, principal: Principal, envelopeSystemMetadata?: unknown): Promise<string> {
    const prepared = this.prepareProposal(proposal, principal, this.now(), envelopeSystemMetadata);
    await this.apply([prepared]);
    return (proposal as { entityUrn: string }).entityUrn;
  }

  /** The batch is validated as a whole first: one bad proposal rejects all, and nothing is written. */
  async ingestProposalBatch(proposals: unknown[], principal: Principal): Promise<string[]> {
    const now = this.now();
    const prepared = proposals.map((p, i) => {
      try {
        return this.prepareProposal(p, principal, now);
      } catch (err) {
        if (err instanceof InvalidInputError || err instanceof ValidationError) err.message = `proposals[${i}]: ${err.message}`;
        throw err;
      }
    });
    await this.apply(prepared);
    return proposals.map((p) => (p as { entityUrn: string }).entityUrn);
  }

  /** Legacy `entities?action=ingest`: one snapshot, all of its aspects in one transaction. */
  async ingestSnapshot(entity: unknown, systemMetadataRaw: unknown, principal: Principal): Promise<string> {
    const now = this.now();
    const union = isObject(entity) && isObject(entity.value) ? entity.value : null;
    if (!union || Object.keys(union).length !== 1) {
      throw new InvalidInputError('entity.value must be an object with exactly one snapshot, e.g. {"com.linkedin.metadata.snapshot.DatasetSnapshot": {…}}');
    }
    const [snapshotName, snapshot] = Object.entries(union)[0];
    const entitySpec = this.registry.entityBySnapshot(snapshotName);
    if (!entitySpec) throw new InvalidInputError(`Unknown snapshot type '${snapshotName}'`);
    if (!isObject(snapshot)) throw new InvalidInputError(`${snapshotName} must be an object`);
    const { urn } = this.registry.parseEntityUrn(snapshot.urn, `${snapshotName}.urn`);
    if (urn.entityType !== entitySpec.name) {
      throw new ValidationError(`Urn '${urn.raw}' is not a ${entitySpec.name} urn, as ${snapshotName} requires`);
    }
    if (!Array.isArray(snapshot.aspects)) throw new InvalidInputError(`${snapshotName}.aspects must be a list`);
    const systemMetadata = normalizeSystemMetadata(systemMetadataRaw, now);
    const prepared = snapshot.aspects.map((member, i) => {
      if (!isObject(member) || Object.keys(member).length !== 1) {
        throw new InvalidInputError(`${snapshotName}.aspects[${i}] must be an object with one key, the aspect's record name`);
      }
      const [recordName, value] = Object.entries(member)[0];
      const spec = this.registry.aspectByRecordName(recordName);
      if (!spec || !entitySpec.aspects.has(spec.name)) {
        throw new ValidationError(`${snapshotName}.aspects[${i}]: unknown aspect '${recordName}' for entity type '${entitySpec.name}'`);
      }
      return this.prepareUpsert(urn, entitySpec, spec, value, principal, now, systemMetadata);
    });
    // A snapshot holds each aspect once; of repeated ones the last wins (as writing them in turn would leave it), so
    // one request cannot turn into thousands of writes of the same aspect in one transaction.
    const last = new Map<string, number>();
    prepared.forEach((p, i) => p.kind === 'upsert' && last.set(p.write.name, i));
    await this.apply(prepared.filter((p, i) => p.kind !== 'upsert' || last.get(p.write.name) === i));
    return urn.raw;
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
    const timeseriesRows = wholeEntity && this.timeseries ? await this.timeseries.deleteForUrn(urn.raw, { startTimeMillis, endTimeMillis }) : 0;
    return { urn: urn.raw, rows: outcome.rows, timeseriesRows };
  }

  /** What a stored value of an aspect projects (hash, edges, column edges), for writes restoring a kept version. */
  projectStored(aspectName: string, value: Record<string, unknown>): Projected {
    const aspect = this.registry.aspects.get(aspectName);
    if (!aspect) throw new Error(`aspect '${aspectName}' is not in the registry`);
    return this.project(aspect, value);
  }

  /** Write items built elsewhere in the domain (a rollback's reverts and deletes), as one unit: one transaction. */
  async submit(items: WriteItem[]): Promise<ItemOutcome[]> {
    if (items.length === 0) return [];
    await this.markDeletes(items);
    const outcomes = await this.writer.submit(items);
    return outcomes;
  }

  private prepareProposal(raw: unknown, principal: Principal, now: number, envelopeSystemMetadata?: unknown): Prepared {
    if (!isObject(raw)) throw new InvalidInputError('proposal must be an object');
    for (const [field, value] of Object.entries(raw)) {
      if (PROPOSAL_FIELDS.has(field) || value === null || value === undefined) continue;
      const why = UNSUPPORTED_PROPOSAL_FIELDS[field];
      throw new InvalidInputError(why ? `proposal.${field} is not supported: ${why}` : `proposal has unknown field '${field}'`);
    }
    const { urn, entity } = this.registry.parseEntityUrn(raw.entityUrn, 'entityUrn');
    if (raw.entityType !== undefined && raw.entityType !== urn.entityType) {
      throw new ValidationError(`entityType '${String(raw.entityType)}' does not match the urn's entity type '${urn.entityType}'`);
    }
    const changeType = raw.changeType ?? 'UPSERT';
    if (typeof changeType !== 'string' || !CHANGE_TYPES.includes(changeType)) {
      throw new InvalidInputError(`changeType must be one of ${CHANGE_TYPES.join(', ')}, got ${JSON.stringify(changeType)}`);
    }
    const aspect = this.registry.aspectFor(entity, raw.aspectName);
    const systemMetadata = normalizeSystemMetadata(raw.systemMetadata ?? envelopeSystemMetadata, now);
    if (changeType === 'DELETE') {
      if (aspect.timeseries) throw new InvalidInputError(`Time-series aspect '${aspect.name}' cannot be deleted by proposal`);
      return { kind: 'delete', urn, entity, aspect };
    }
    if (!isObject(raw.aspect)) throw new InvalidInputError('proposal.aspect must be an object {value, contentType}');
    const { value: serialized, contentType } = raw.aspect;
    if (contentType !== undefined && !CONTENT_TYPES.includes(contentType as string)) {
      throw new InvalidInputError(`aspect.contentType must be one of ${CONTENT_TYPES.join(', ')}, got ${JSON.stringify(contentType)}`);
    }
    if (typeof serialized !== 'string') throw new InvalidInputError('aspect.value must be a string holding the serialized aspect');
    let value: unknown;
    try {
      value = JSON.parse(serialized);
    } catch {
      throw new InvalidInputError(`aspect.value of '${aspect.name}' is not valid JSON`);
    }
    if (changeType === 'PATCH') return this.preparePatch(urn, entity, aspect, value, principal, now, systemMetadata);
    return this.prepareUpsert(urn, entity, aspect, value, principal, now, systemMetadata);
  }

  /**
   * DataHub's PATCH: the patch is checked now (a bad one rejects the batch before anything is written); it is applied to
   * the current value inside the write transaction, and the result is validated and written like an UPSERT.
   */
  private preparePatch(
    urn: Urn,
    entity: EntitySpec,
    aspect: AspectSpec,
    rawPatch: unknown,
    principal: Principal,
    now: number,
    systemMetadata: Record<string, unknown>,
  ): Prepared {
    if (aspect.timeseries) throw new InvalidInputError(`Time-series aspect '${aspect.name}' cannot be patched`);
    assertNesting(rawPatch, `Patch of '${aspect.name}'`);
    const patch = parsePatch(rawPatch);
    return { kind: 'upsert', write: this.patchItem(urn, entity, aspect, (current) => applyPatch(aspect.behaviour?.patch, current, patch, this.registry.urnNamespace), principal, now, systemMetadata) };
  }

  /** An upsert whose value is computed from the stored one inside the write's transaction, then validated. */
  private patchItem(
    urn: Urn,
    entity: EntitySpec,
    aspect: AspectSpec,
    transform: (current: Record<string, unknown> | null) => Record<string, unknown> | null,
    principal: Principal,
    now: number,
    systemMetadata: Record<string, unknown>,
  ): UpsertItem {
    return {
      ...this.upsertItem(urn, entity, aspect, principal, now, systemMetadata),
      patch: transform,
      project: (next) => this.project(aspect, this.validated(urn, entity, aspect, next)),
    };
  }

  /** What every upsert item carries besides its value (a projected value, or a patch computing it). */
  private upsertItem(urn: Urn, entity: EntitySpec, aspect: AspectSpec, principal: Principal, now: number, systemMetadata: Record<string, unknown>) {
    return {
      kind: 'upsert' as const,
      urn: urn.raw,
      entityType: entity.name,
      name: aspect.name,
      actor: principal.actor,
      now,
      systemMetadata: JSON.stringify(systemMetadata),
      retention: this.options.retention,
      retentionMaxAgeMs: this.options.retentionMaxAgeMs ?? null,
      defaults: this.defaultsFor(urn, entity, aspect),
    };
  }

  /** Schema validation, the aspect's semantic checks, and a key aspect must match its urn. */
  private validated(urn: Urn, entity: EntitySpec, aspect: AspectSpec, rawValue: unknown): Record<string, unknown> {
    assertNesting(rawValue, `Aspect '${aspect.name}'`);
    const value = this.registry.validate(aspect, rawValue);
    aspect.behaviour?.validate?.(value, this.registry);
    if (aspect.name === entity.keyAspect) {
      const key = this.registry.keyAspectFor(urn, entity);
      if (canonicalJson(value) !== canonicalJson(key.value)) throw new ValidationError(`Key aspect '${aspect.name}' does not match the urn '${urn.raw}'`);
    }
    return value;
  }

  private prepareUpsert(
    urn: Urn,
    entity: EntitySpec,
    aspect: AspectSpec,
    rawValue: unknown,
    principal: Principal,
    now: number,
    systemMetadata: Record<string, unknown>,
  ): Prepared {
    const value = this.validated(urn, entity, aspect, rawValue);
    if (aspect.timeseries) {
      if (!this.timeseries) throw new InvalidInputError(`Time-series aspect '${aspect.name}' is not supported by this deployment`);
      return { kind: 'timeseries', event: { urn, entity, aspect, value, systemMetadata } };
    }
    return {
      kind: 'upsert',
      write: { ...this.upsertItem(urn, entity, aspect, principal, now, systemMetadata), projected: this.project(aspect, value) },
    };
  }

  /** Aspects every entity gets when it lacks them: its key aspect and those of its aspects that have a default value. */
  private defaultsFor(urn: Urn, entity: EntitySpec, aspect: AspectSpec): UpsertItem['defaults'] {
    // Projected like any written value: a key aspect's relationships (a data job's flow) exist from the first write.
    const projectedDefault = (name: string, value: () => Record<string, unknown>) => ({ name, value: () => this.project(this.registry.aspects.get(name)!, value()) });
    const defaults: UpsertItem['defaults'] = [projectedDefault(entity.keyAspect, () => this.registry.keyAspectFor(urn, entity).value)];
    if (aspect.name !== entity.keyAspect) {
      for (const behaviour of ASPECT_BEHAVIOURS.values()) {
        const value = behaviour.defaultValue;
        if (value && entity.aspects.has(behaviour.name)) defaults.push(projectedDefault(behaviour.name, () => value(urn)));
      }
    }
    return defaults.filter((d) => d.name !== aspect.name);
  }

  /** Serialized value, hash and projected edges of a validated value. */
  /** The edges and column edges a stored value of an aspect projects (restore's reprojections: no value, no hash). */
  projectEdges(aspectName: string, value: Record<string, unknown>): ProjectedEdges {
    const aspect = this.registry.aspects.get(aspectName);
    if (!aspect) throw new Error(`aspect '${aspectName}' is not in the registry`);
    return this.edgesOf(aspect, value);
  }

  private project(aspect: AspectSpec, value: Record<string, unknown>): Projected {
    return { value: JSON.stringify(value), hash: contentHash(value), parsed: value, ...this.edgesOf(aspect, value) };
  }

  private edgesOf(aspect: AspectSpec, value: Record<string, unknown>): ProjectedEdges {
    return {
      edges: this.registry.edgesOf(aspect, value).map((e) => ({ ...e, targetType: tryParseUrn(e.target)?.entityType ?? 'unknown' })),
      columnEdges: aspect.behaviour?.columnEdges?.(value, this.registry.urnNamespace) ?? [],
    };
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
    const now = this.now();
    const systemMetadata = normalizeSystemMetadata(systemMetadataRaw, now);
    const items = changes.map(({ urn: rawUrn, aspectName, transform }) => {
      const { urn, entity } = this.registry.parseEntityUrn(rawUrn, 'entityUrn');
      const aspect = this.registry.aspectFor(entity, aspectName);
      if (aspect.timeseries) throw new InvalidInputError(`Time-series aspect '${aspect.name}' cannot be patched`);
      if (aspect.name === entity.keyAspect) throw new InvalidInputError(`Key aspect '${aspect.name}' cannot be patched`);
      return this.patchItem(urn, entity, aspect, transform, principal, now, systemMetadata);
    });
    if (items.length === 0) return [];
    const outcomes = await this.writer.submit(items);
    return outcomes.map((o) => ({ unchanged: o.unchanged }));
  }

  /** One pending-delete marker per entity a request deletes from, written before the request's writes are queued. */
  private async markDeletes(items: WriteItem[]): Promise<void> {
    const deletes = items.filter((i): i is DeleteItem => i.kind === 'deleteEntity' || i.kind === 'deleteAspect' || i.kind === 'revert');
    if (deletes.length === 0 || !this.options.pendingDeletes) return;
    const urns = [...new Set(deletes.map((d) => d.urn))];
    const ids = await this.options.pendingDeletes.mark(urns);
    const byUrn = new Map(urns.map((urn, i) => [urn, ids[i]]));
    for (const d of deletes) d.marker = byUrn.get(d.urn);
  }

  /** All of a request's writes in proposal order, as one unit of the group writer (one transaction). */
  private async apply(prepared: Prepared[]): Promise<void> {
    const items: WriteItem[] = [];
    const events: TimeseriesEvent[] = [];
    for (const p of prepared) {
      if (p.kind === 'upsert') items.push(p.write);
      else if (p.kind === 'delete') {
        const target = { urn: p.urn.raw, entityType: p.entity.name };
        items.push(p.aspect.name === p.entity.keyAspect ? { kind: 'deleteEntity', ...target } : { kind: 'deleteAspect', ...target, name: p.aspect.name });
      } else events.push(p.event);
    }
    // Time-series events need their entity's key aspect in Neo4j.
    for (const e of events) {
      if (items.some((w) => w.urn === e.urn.raw && w.kind === 'upsert')) continue;
      const key = this.registry.keyAspectFor(e.urn, e.entity);
      items.push({
        kind: 'upsert',
        urn: e.urn.raw,
        entityType: e.entity.name,
        name: key.aspect.name,
        actor: systemActor(this.registry.urnNamespace),
        now: this.now(),
        systemMetadata: JSON.stringify(e.systemMetadata),
        retention: this.options.retention,
        projected: this.project(key.aspect, key.value),
        defaults: [],
      });
    }
    if (items.length > 0) {
      await this.options.completeDefaults?.(items);
      await this.markDeletes(items);
      await this.writer.submit(items);
      }
    if (events.length > 0) await this.timeseries!.write(events);
  }
}

/** The run id of proposals sent without one: no run, it cannot be rolled back. */
export const DEFAULT_RUN_ID = 'no-run-id-provided';
