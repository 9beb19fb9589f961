import type { Principal } from '../auth';
import { defaultBrowsePaths } from '../model/browse-paths';
import { canonicalJson, contentHash } from '../model/canonical';
import { InvalidInputError, ValidationError } from '../model/errors';
import { assertNesting } from '../model/nesting';
import type { AspectSpec, EntitySpec, Registry } from '../model/registry';
import { tryParseUrn, type Urn } from '../model/urn';
import type { AspectStore, AspectWrite, PatchWrite } from '../stores/graph/aspect-store';
import { columnEdgesOf } from './lineage/column-edges';
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
  deleteForUrn(urn: string): Promise<number>;
}

export interface IngestionOptions {
  retention: number;
  now?: () => number;
  /** Called after each committed write (wakes the search indexer). */
  onCommitted?: () => void;
  /** Semantic checks per aspect name, run after schema validation; they throw (e.g. ValidationError) to reject. */
  aspectValidators?: Record<string, (value: Record<string, unknown>) => void>;
}

type Prepared =
  | { kind: 'upsert'; write: AspectWrite }
  | { kind: 'patch'; write: PatchWrite }
  | { kind: 'delete'; urn: Urn; entity: EntitySpec; aspect: AspectSpec }
  | { kind: 'timeseries'; event: TimeseriesEvent };

const CHANGE_TYPES = ['UPSERT', 'DELETE', 'PATCH'];
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
  if (typeof metadata.runId !== 'string' || metadata.runId === '') metadata.runId = 'no-run-id-provided';
  if (typeof metadata.lastObserved !== 'number') metadata.lastObserved = now;
  return metadata;
}

/** Validates proposals and legacy snapshots and writes them; a rejected request writes nothing. */
export class IngestionService {
  private readonly now: () => number;

  constructor(
    private readonly registry: Registry,
    private readonly store: AspectStore,
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

  /** Hard delete: every aspect, version, edge, search document and time-series document of the entity. */
  async deleteEntity(rawUrn: unknown): Promise<{ urn: string; rows: number; timeseriesRows: number }> {
    const { urn } = this.registry.parseEntityUrn(rawUrn);
    const rows = await this.store.deleteEntity(urn.raw, this.now());
    this.options.onCommitted?.();
    const timeseriesRows = this.timeseries ? await this.timeseries.deleteForUrn(urn.raw) : 0;
    return { urn: urn.raw, rows, timeseriesRows };
  }

  private prepareProposal(raw: unknown, principal: Principal, now: number, envelopeSystemMetadata?: unknown): Prepared {
    if (!isObject(raw)) throw new InvalidInputError('proposal must be an object');
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
    const build = (current: Record<string, unknown> | null): AspectWrite => {
      const prepared = this.prepareUpsert(urn, entity, aspect, applyPatch(aspect.name, current, patch), principal, now, systemMetadata);
      return (prepared as Extract<Prepared, { kind: 'upsert' }>).write;
    };
    return { kind: 'patch', write: { urn: urn.raw, entityType: entity.name, name: aspect.name, now, build } };
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
    assertNesting(rawValue, `Aspect '${aspect.name}'`);
    const value = this.registry.validate(aspect, rawValue);
    this.options.aspectValidators?.[aspect.name]?.(value);
    if (aspect.timeseries) {
      if (!this.timeseries) throw new InvalidInputError(`Time-series aspect '${aspect.name}' is not supported by this deployment`);
      return { kind: 'timeseries', event: { urn, entity, aspect, value, systemMetadata } };
    }
    const key = this.registry.keyAspectFor(urn, entity);
    if (aspect.name === key.aspect.name && canonicalJson(value) !== canonicalJson(key.value)) {
      throw new ValidationError(`Key aspect '${aspect.name}' does not match the urn '${urn.raw}'`);
    }
    const defaults = [{ name: key.aspect.name, value: JSON.stringify(key.value), hash: contentHash(key.value) }];
    const browsePaths = entity.aspects.has('browsePaths') && aspect.name !== 'browsePaths' && aspect.name !== key.aspect.name ? defaultBrowsePaths(urn) : null;
    if (browsePaths) {
      const browse = { paths: browsePaths };
      defaults.push({ name: 'browsePaths', value: JSON.stringify(browse), hash: contentHash(browse) });
    }
    return {
      kind: 'upsert',
      write: {
        urn: urn.raw,
        entityType: entity.name,
        name: aspect.name,
        value: JSON.stringify(value),
        hash: contentHash(value),
        actor: principal.actor,
        now,
        systemMetadata: JSON.stringify(systemMetadata),
        retention: this.options.retention,
        edges: this.registry.edgesOf(aspect, value).map((e) => ({ ...e, targetType: tryParseUrn(e.target)?.entityType ?? 'unknown' })),
        columnEdges: columnEdgesOf(aspect.name, value),
        defaults: defaults.filter((d) => d.name !== aspect.name),
      },
    };
  }

  private async apply(prepared: Prepared[]): Promise<void> {
    const writes: (AspectWrite | PatchWrite)[] = prepared
      .filter((p): p is Extract<Prepared, { kind: 'upsert' | 'patch' }> => p.kind === 'upsert' || p.kind === 'patch')
      .map((p) => p.write);
    const events = prepared.filter((p): p is Extract<Prepared, { kind: 'timeseries' }> => p.kind === 'timeseries').map((p) => p.event);
    // Time-series events need their entity's key aspect in Neo4j.
    for (const e of events) {
      const key = this.registry.keyAspectFor(e.urn, e.entity);
      if (!writes.some((w) => w.urn === e.urn.raw)) {
        writes.push({
          urn: e.urn.raw,
          entityType: e.entity.name,
          name: key.aspect.name,
          value: JSON.stringify(key.value),
          hash: contentHash(key.value),
          actor: SYSTEM_KEY_ACTOR,
          now: this.now(),
          systemMetadata: JSON.stringify(e.systemMetadata),
          retention: this.options.retention,
          edges: [],
          defaults: [],
        });
      }
    }
    if (writes.length > 0) await this.store.upsert(writes);
    this.options.onCommitted?.();
    for (const p of prepared) {
      if (p.kind === 'delete') {
        if (p.aspect.name === p.entity.keyAspect) await this.store.deleteEntity(p.urn.raw, this.now());
        else await this.store.deleteAspect(p.urn.raw, p.aspect.name, this.now());
      }
    }
    if (events.length > 0) await this.timeseries!.write(events);
  }
}

const SYSTEM_KEY_ACTOR = 'urn:li:corpuser:__datahub_system';
