import { systemActor, type Principal } from '../../auth';
import { canonicalJson, hashOfCanonicalJson } from '../../model/canonical';
import { InvalidInputError, ValidationError } from '../../model/errors';
import { assertNesting } from '../../model/nesting';
import type { AspectSpec, EntitySpec, Registry } from '../../model/registry';
import { tryParseUrn, type Urn } from '../../model/urn';
import { applyPatch, parsePatch } from '../patch/json-patch';
import { UPSERT_CHANGE_TYPES, writeCondition, type WriteCondition } from './conditions';
import type { RetentionLookup } from '../retention-policies';
import type { ColumnEdge, Projected, ProjectedEdges, WriteItem } from './plan';

/*
 * The prepare stage of the write path (see ./pipeline.ts): a request becomes WriteItems — proposals, snapshots and
 * read-modify-write transforms parsed and validated, values projected (hash, edges, column edges), the default aspects
 * an entity gets attached. A request that does not prepare writes nothing.
 */

export interface TimeseriesEvent {
  urn: Urn;
  entity: EntitySpec;
  aspect: AspectSpec;
  value: Record<string, unknown>;
  systemMetadata: Record<string, unknown>;
}

export interface PrepareOptions {
  /** How much history each write of an aspect keeps (../retention-policies.ts). */
  retention: RetentionLookup;
  /** Whether time-series aspects can be written (their sink is the search engine). */
  timeseries: boolean;
}

type UpsertItem = Extract<WriteItem, { kind: 'upsert' }>;

export type Prepared =
  | { kind: 'upsert'; write: UpsertItem }
  | { kind: 'delete'; urn: Urn; entity: EntitySpec; aspect: AspectSpec }
  | { kind: 'timeseries'; event: TimeseriesEvent };

const CHANGE_TYPES = [...UPSERT_CHANGE_TYPES, 'DELETE', 'PATCH'];
/** Proposal fields this service honours; any other is refused, never ignored. */
const PROPOSAL_FIELDS = new Set(['entityType', 'entityUrn', 'changeType', 'aspectName', 'aspect', 'systemMetadata', 'headers']);
/** MetadataChangeProposal fields the official client can send that this service does not implement, and why it matters. */
const UNSUPPORTED_PROPOSAL_FIELDS: Record<string, string> = {
  entityKeyAspect: 'name the entity by entityUrn',
  auditHeader: 'Kafka audit headers are not accepted over HTTP',
};
const CONTENT_TYPES = ['application/json', 'application/json-patch+json'];

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The run id of proposals sent without one: no run, it cannot be rolled back. */
export const DEFAULT_RUN_ID = 'no-run-id-provided';

/**
 * The run and observation time a latest aspect is indexed by (cypher/runs.cypher), from its parsed system metadata;
 * null for the default run id, which names no run (never listed nor rolled back): a catalog fed without run ids would
 * otherwise pay an index entry per write for nothing.
 */
export function indexedRunOf(metadata: { runId?: unknown; lastObserved?: unknown }): { runId: string; lastObserved: number | null } | null {
  return typeof metadata.runId === 'string' && metadata.runId !== DEFAULT_RUN_ID
    ? { runId: metadata.runId, lastObserved: typeof metadata.lastObserved === 'number' ? metadata.lastObserved : null }
    : null;
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
  // The aspect's version is the server's to assign (conditions.ts withVersion), as in DataHub.
  delete metadata.version;
  return metadata;
}

/** An upsert written only if `condition` holds of the stored state (./conditions.ts). */
function conditioned(prepared: Prepared, condition: WriteCondition, changeType: string): Prepared {
  if (prepared.kind !== 'upsert') throw new InvalidInputError(`changeType ${changeType} and conditional headers are not supported for time-series aspects: they take UPSERT`);
  return { kind: 'upsert', write: { ...prepared.write, condition } };
}

/**
 * How the plan keys an edge and a column edge (`type|target`, `source|target`, then VIA_MARK and the node the edge
 * passes through, if any), and a restore's check with it: an edge whose via changed is replaced. The lock and restore
 * statements key the stored edges the same way (cypher/writes.cypher, cypher/restore.cypher).
 */
export const VIA_MARK = '\u0000';
export const edgeKey = (e: { type: string; target: string; via?: string }) => (e.via ? `${e.type}|${e.target}${VIA_MARK}${e.via}` : `${e.type}|${e.target}`);
export const columnEdgeKey = (c: ColumnEdge) => (c.via ? `${c.source}|${c.target}${VIA_MARK}${c.via}` : `${c.source}|${c.target}`);

/** Requests as WriteItems (and time-series events): parsed, validated and projected. */
export class WritePreparer {
  constructor(
    private readonly registry: Registry,
    private readonly options: PrepareOptions,
  ) {}

  /** The batch is validated as a whole: one bad proposal rejects all, named by its index. */
  proposals(proposals: unknown[], principal: Principal, now: number): Prepared[] {
    return proposals.map((p, i) => {
      try {
        return this.proposal(p, principal, now);
      } catch (err) {
        if (err instanceof InvalidInputError || err instanceof ValidationError) err.message = `proposals[${i}]: ${err.message}`;
        throw err;
      }
    });
  }

  proposal(raw: unknown, principal: Principal, now: number, envelopeSystemMetadata?: unknown): Prepared {
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
    const condition = writeCondition(changeType, raw.headers, entity.keyAspect);
    if (changeType === 'DELETE') {
      if (condition) throw new InvalidInputError('Conditional deletes (If-Version-Match) are not supported');
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
    const prepared = changeType === 'PATCH' ? this.patch(urn, entity, aspect, value, principal, now, systemMetadata) : this.upsert(urn, entity, aspect, value, principal, now, systemMetadata);
    return condition ? conditioned(prepared, condition, changeType) : prepared;
  }

  /** Legacy `entities?action=ingest`: one snapshot's aspects. */
  snapshot(entity: unknown, systemMetadataRaw: unknown, principal: Principal, now: number): { urn: string; prepared: Prepared[] } {
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
      return this.upsert(urn, entitySpec, spec, value, principal, now, systemMetadata);
    });
    // A snapshot holds each aspect once; of repeated ones the last wins (as writing them in turn would leave it), so
    // one request cannot turn into thousands of writes of the same aspect in one transaction.
    const last = new Map<string, number>();
    prepared.forEach((p, i) => p.kind === 'upsert' && last.set(p.write.name, i));
    return { urn: urn.raw, prepared: prepared.filter((p, i) => p.kind !== 'upsert' || last.get(p.write.name) === i) };
  }

  /** Read-modify-writes: each transform runs inside the write's transaction, on the value its entity's lock left. */
  transforms(
    changes: { urn: string; aspectName: string; transform: (current: Record<string, unknown> | null) => Record<string, unknown> | null }[],
    principal: Principal,
    systemMetadataRaw: unknown,
    now: number,
  ): UpsertItem[] {
    const systemMetadata = normalizeSystemMetadata(systemMetadataRaw, now);
    return changes.map(({ urn: rawUrn, aspectName, transform }) => {
      const { urn, entity } = this.registry.parseEntityUrn(rawUrn, 'entityUrn');
      const aspect = this.registry.aspectFor(entity, aspectName);
      if (aspect.timeseries) throw new InvalidInputError(`Time-series aspect '${aspect.name}' cannot be patched`);
      if (aspect.name === entity.keyAspect) throw new InvalidInputError(`Key aspect '${aspect.name}' cannot be patched`);
      return this.patchItem(urn, entity, aspect, transform, principal, now, systemMetadata);
    });
  }

  /**
   * A request's prepared writes in proposal order, as write items, and its time-series events; an entity that only
   * gets events gets its key aspect written (time-series events need their entity's key aspect in Neo4j).
   */
  items(prepared: Prepared[], now: () => number): { items: WriteItem[]; events: TimeseriesEvent[] } {
    const items: WriteItem[] = [];
    const events: TimeseriesEvent[] = [];
    for (const p of prepared) {
      if (p.kind === 'upsert') items.push(p.write);
      else if (p.kind === 'delete') {
        const target = { urn: p.urn.raw, entityType: p.entity.name };
        items.push(p.aspect.name === p.entity.keyAspect ? { kind: 'deleteEntity', ...target } : { kind: 'deleteAspect', ...target, name: p.aspect.name });
      } else events.push(p.event);
    }
    for (const e of events) {
      if (items.some((w) => w.urn === e.urn.raw && w.kind === 'upsert')) continue;
      const key = this.registry.keyAspectFor(e.urn, e.entity);
      items.push({
        kind: 'upsert',
        urn: e.urn.raw,
        entityType: e.entity.name,
        name: key.aspect.name,
        actor: systemActor(this.registry.urnNamespace),
        now: now(),
        systemMetadata: JSON.stringify(e.systemMetadata),
        ...this.retentionOf(e.entity, key.aspect),
        projected: this.project(key.aspect, key.value),
        defaults: [],
      });
    }
    return { items, events };
  }

  /** What a stored value of an aspect projects (hash, edges, column edges), for writes restoring a kept version. */
  projectStored(aspectName: string, value: Record<string, unknown>): Projected {
    const aspect = this.registry.aspects.get(aspectName);
    if (!aspect) throw new Error(`aspect '${aspectName}' is not in the registry`);
    return this.project(aspect, value);
  }

  /** The edges and column edges a stored value of an aspect projects (restore's reprojections: no value, no hash). */
  projectEdges(aspectName: string, value: Record<string, unknown>): ProjectedEdges {
    const aspect = this.registry.aspects.get(aspectName);
    if (!aspect) throw new Error(`aspect '${aspectName}' is not in the registry`);
    return this.edgesOf(aspect, value);
  }

  /**
   * DataHub's PATCH: the patch is checked now (a bad one rejects the batch before anything is written); it is applied to
   * the current value inside the write transaction, and the result is validated and written like an UPSERT.
   */
  private patch(
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
    const mutate = aspect.behaviour?.mutate;
    const apply = (current: Record<string, unknown> | null) => applyPatch(aspect.behaviour?.patch, current, patch, this.registry.urnNamespace);
    return { kind: 'upsert', write: this.patchItem(urn, entity, aspect, mutate ? (current) => mutate(apply(current), current) : apply, principal, now, systemMetadata) };
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
      ...this.retentionOf(entity, aspect),
      defaults: this.defaultsFor(urn, entity, aspect),
    };
  }

  /** The write item's retention fields, from the aspect's policy. */
  private retentionOf(entity: EntitySpec, aspect: AspectSpec): { retention: number; retentionMaxAgeMs: number | null } {
    const policy = this.options.retention.policyFor(entity.name, aspect.name);
    return { retention: policy.versions, retentionMaxAgeMs: policy.maxAgeMs };
  }

  /** Schema validation, the aspect's semantic checks, and a key aspect must match its urn. */
  private validated(urn: Urn, entity: EntitySpec, aspect: AspectSpec, rawValue: unknown, inPlace = false): Record<string, unknown> {
    assertNesting(rawValue, `Aspect '${aspect.name}'`);
    const value = this.registry.validate(aspect, rawValue, { inPlace });
    aspect.behaviour?.validate?.(value, this.registry);
    if (aspect.name === entity.keyAspect) {
      const key = this.registry.keyAspectFor(urn, entity);
      if (canonicalJson(value) !== canonicalJson(key.value)) throw new ValidationError(`Key aspect '${aspect.name}' does not match the urn '${urn.raw}'`);
    }
    return value;
  }

  private upsert(
    urn: Urn,
    entity: EntitySpec,
    aspect: AspectSpec,
    rawValue: unknown,
    principal: Principal,
    now: number,
    systemMetadata: Record<string, unknown>,
  ): Prepared {
    // The value was parsed from this request and is used nowhere else: validation may clean it in place.
    const value = this.validated(urn, entity, aspect, rawValue, true);
    if (aspect.timeseries) {
      if (!this.options.timeseries) throw new InvalidInputError(`Time-series aspect '${aspect.name}' is not supported by this deployment`);
      return { kind: 'timeseries', event: { urn, entity, aspect, value, systemMetadata } };
    }
    // An aspect with a mutation hook is stored as the hook makes it from the stored value, read in the transaction.
    const mutate = aspect.behaviour?.mutate;
    if (mutate) return { kind: 'upsert', write: { ...this.patchItem(urn, entity, aspect, (current) => mutate(structuredClone(value), current), principal, now, systemMetadata), proposed: value } };
    return {
      kind: 'upsert',
      write: { ...this.upsertItem(urn, entity, aspect, principal, now, systemMetadata), projected: this.project(aspect, value) },
    };
  }

  /** Aspects every entity gets when it lacks them: its key aspect and those of its aspects that have a default value. */
  private defaultsFor(urn: Urn, entity: EntitySpec, aspect: AspectSpec): UpsertItem['defaults'] {
    // Writing the key aspect itself brings no default.
    if (aspect.name === entity.keyAspect) return [];
    const defaults = this.registry.defaultAspects(urn, entity).filter((d) => d.name !== aspect.name);
    // Projected like any written value: a key aspect's relationships (a data job's flow) exist from the first write.
    return defaults.map((d) => ({ name: d.name, value: () => this.project(this.registry.aspects.get(d.name)!, d.value()) }));
  }

  /** Serialized value, hash and projected edges of a validated value. */
  private project(aspect: AspectSpec, value: Record<string, unknown>): Projected {
    // Stored as its canonical JSON (fields in key order): one serialization gives both the stored text and the hash.
    const serialized = canonicalJson(value);
    return {
      value: serialized,
      hash: hashOfCanonicalJson(serialized),
      parsed: value,
      ...this.edgesOf(aspect, value),
    };
  }

  /**
   * The edges a stored value projects, as keys only (`type|target`, column edges `source|target`, as the plan keys
   * them): what a restore compares with the stored edges of every aspect it reads. Most are right, and for those the
   * target types (a urn parse per edge) and edge objects of projectEdges are never needed.
   */
  edgeKeys(aspectName: string, value: Record<string, unknown>): { edges: string[]; columnEdges: string[] } {
    const aspect = this.registry.aspects.get(aspectName);
    if (!aspect) throw new Error(`aspect '${aspectName}' is not in the registry`);
    return {
      edges: this.registry.edgesOf(aspect, value).map(edgeKey),
      columnEdges: (aspect.behaviour?.columnEdges?.(value, this.registry.urnNamespace) ?? []).map(columnEdgeKey),
    };
  }

  private edgesOf(aspect: AspectSpec, value: Record<string, unknown>): ProjectedEdges {
    return {
      edges: this.registry.edgesOf(aspect, value).map((e) => ({ ...e, targetType: tryParseUrn(e.target)?.entityType ?? 'unknown' })),
      columnEdges: aspect.behaviour?.columnEdges?.(value, this.registry.urnNamespace) ?? [],
    };
  }
}
