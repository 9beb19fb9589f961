import type { Principal } from '../auth';
import type { RevocationCheck } from '../auth/revocation-check';
import { InvalidInputError, NotFoundError } from '../model/errors';
import type { AspectSpec, EntitySpec, Registry } from '../model/registry';
import { status } from '../model/aspects/status';
import { GENERIC, type EntityReads, type V3Entity } from './entity-reads';
import type { IngestionService } from './ingestion';
import type { TimeseriesService } from './timeseries';

/** The most entities (or aspects of one entity) one OpenAPI v3 write takes; larger batches are for `ingestProposalBatch`. */
const MAX_ENTITIES = 1000;

/** One aspect of a v3 write body: `{value, systemMetadata?, headers?}`. */
interface AspectBody {
  value: Record<string, unknown>;
  systemMetadata?: unknown;
  headers?: unknown;
}

type Answer = { value: Record<string, unknown>; systemMetadata?: Record<string, unknown> };

interface Written {
  urn: string;
  aspect: AspectSpec;
  /** What the request sent; a time-series event is answered with it (it is not read back). */
  value: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * DataHub's OpenAPI v3 entity and aspect writes (`/openapi/v3/entity/...`): creates, patches, conditional writes
 * (If-Version-Match, createIfNotExists, createIfEntityNotExists), deletes, and the aspect-level reads and existence
 * checks. Every write is a batch of proposals through ingestion: validated as a whole, one transaction, acknowledged
 * once committed (DataHub's `async=true` only changes the status it answers with). Answers carry the aspects the
 * request named, read back after the write (a patch's result, a conditional write's stored value).
 */
export class OpenApiEntities {
  constructor(
    private readonly registry: Registry,
    private readonly ingestion: IngestionService,
    private readonly reads: EntityReads,
    private readonly timeseries: TimeseriesService | null,
  ) {}

  /** `POST` (or, with `patch`, `PATCH`) `/openapi/v3/entity/{entityName}`: body `[{urn, <aspect>: {value, systemMetadata?, headers?}}]`. */
  async writeEntities(
    rawEntityName: string,
    body: unknown,
    options: { patch: boolean; systemMetadata: boolean },
    principal: Principal,
    revocation?: RevocationCheck,
  ): Promise<V3Entity[]> {
    const entity = this.registry.entityAnyCase(rawEntityName);
    const { proposals, written } = this.proposalsOf(entity, body, options.patch, 'body');
    await this.ingestion.ingestProposalBatch(proposals, principal, revocation);
    return this.answer(written, options.systemMetadata);
  }

  /** `POST` / `PATCH` `/openapi/v3/entity/generic`: body `{<entityName>: [...]}`, all of it in one transaction. */
  async writeGeneric(body: unknown, options: { patch: boolean; systemMetadata: boolean }, principal: Principal, revocation?: RevocationCheck): Promise<Record<string, V3Entity[]>> {
    if (!isObject(body)) throw new InvalidInputError('The body must be an object {<entityName>: [{urn, <aspectName>: {value}}]}');
    const parts = Object.entries(body).map(([name, list]) => ({ name, ...this.proposalsOf(this.registry.entityAnyCase(name), list, options.patch, name) }));
    await this.ingestion.ingestProposalBatch(parts.flatMap((p) => p.proposals), principal, revocation);
    const out: Record<string, V3Entity[]> = {};
    for (const p of parts) out[p.name] = await this.answer(p.written, options.systemMetadata);
    return out;
  }

  /** `POST /openapi/v3/entity/generic/batchGet`: body `{<entityName>: [{urn, <aspect>: {}}]}`. */
  async batchGetGeneric(body: unknown, systemMetadata: boolean): Promise<Record<string, V3Entity[]>> {
    if (!isObject(body)) throw new InvalidInputError('The body must be an object {<entityName>: [{urn, <aspectName>: {}}]}');
    const out: Record<string, V3Entity[]> = {};
    for (const [name, list] of Object.entries(body)) out[name] = await this.reads.v3BatchGet(name, list, systemMetadata);
    return out;
  }

  /**
   * `POST /openapi/v3/entity/{entityName}/{urn}/{aspectName}`. As in DataHub: `createIfEntityNotExists` writes only if
   * the entity does not exist, else `createIfNotExists` (the default) only if the aspect does not, else it upserts.
   */
  async writeAspect(
    rawEntityName: string,
    rawUrn: string,
    rawAspect: string,
    body: unknown,
    options: { createIfEntityNotExists: boolean; createIfNotExists: boolean; systemMetadata: boolean },
    principal: Principal,
    revocation?: RevocationCheck,
  ): Promise<V3Entity> {
    const { urn, entity } = this.target(rawEntityName, rawUrn);
    const aspect = this.registry.aspectAnyCase(entity, rawAspect);
    const input = this.aspectBody(body, false, 'body');
    const changeType = options.createIfEntityNotExists ? 'CREATE_ENTITY' : options.createIfNotExists ? 'CREATE' : 'UPSERT';
    await this.ingestion.ingestProposalBatch([this.proposal(urn, entity, aspect, input, changeType)], principal, revocation);
    const [answer] = await this.answer([{ urn, aspect, value: input.value }], options.systemMetadata);
    return answer;
  }

  /** `PATCH /openapi/v3/entity/{entityName}/{urn}/{aspectName}`: body `{patch: [...], arrayPrimaryKeys?}`. */
  async patchAspect(rawEntityName: string, rawUrn: string, rawAspect: string, body: unknown, systemMetadata: boolean, principal: Principal, revocation?: RevocationCheck): Promise<V3Entity> {
    const { urn, entity } = this.target(rawEntityName, rawUrn);
    const aspect = this.registry.aspectAnyCase(entity, rawAspect);
    const input = this.aspectBody({ value: body }, true, 'body');
    await this.ingestion.ingestProposalBatch([this.proposal(urn, entity, aspect, input, 'PATCH')], principal, revocation);
    const [answer] = await this.answer([{ urn, aspect, value: input.value }], systemMetadata);
    return answer;
  }

  /**
   * `GET /openapi/v3/entity/{entityName}/{urn}/{aspectName}`. `version` 0 is the latest value; another is a history
   * version, or for a time-series aspect the time (ms) the latest event at or before it is asked for (DataHub's reading).
   */
  async readAspect(rawEntityName: string, rawUrn: string, rawAspect: string, version: number, systemMetadata: boolean): Promise<Answer> {
    const { urn, entity } = this.target(rawEntityName, rawUrn);
    const aspect = this.registry.aspectAnyCase(entity, rawAspect);
    if (aspect.timeseries) {
      const event = await this.latestEvent(urn, entity, aspect, version === 0 ? null : version);
      if (!event) throw new NotFoundError(`No ${aspect.name} event of ${urn}${version === 0 ? '' : ` at or before ${version}`}`);
      return { value: event };
    }
    if (version === 0) {
      const [found] = await this.reads.v3Entities([{ urn, aspects: [aspect.name] }], systemMetadata);
      const answer = found?.[aspect.name] as Answer | undefined;
      if (!answer) throw new NotFoundError(`No aspect ${aspect.name} of ${urn}`);
      return answer;
    }
    // DataHub numbers an aspect's values 1, 2, … in their systemMetadata.version: the latest value answers to its own.
    const [latest] = await this.reads.v3Entities([{ urn, aspects: [aspect.name] }], true);
    const current = latest?.[aspect.name] as Answer | undefined;
    if (current && String(current.systemMetadata?.version) === String(version)) return systemMetadata ? current : { value: current.value };
    const stored = await this.reads.aspectVersion(urn, aspect.name, version);
    if (!stored) throw new NotFoundError(`No version ${version} of aspect ${aspect.name} of ${urn}`);
    return { value: stored.value };
  }

  /** `HEAD /openapi/v3/entity/{entityName}/{urn}[/{aspectName}]`: a soft-deleted entity exists only with `includeSoftDelete`. */
  async exists(rawEntityName: string, rawUrn: string, rawAspect: string | null, includeSoftDelete: boolean): Promise<boolean> {
    const { urn, entity } = this.target(rawEntityName, rawUrn);
    const aspect = rawAspect === null ? null : this.registry.aspectAnyCase(entity, rawAspect);
    const names = [entity.keyAspect, status.name, ...(aspect && !aspect.timeseries ? [aspect.name] : [])];
    const stored = (await this.reads.aspectsOfMany([urn], names)).get(urn);
    if (!stored || stored.size === 0) return false;
    if (!includeSoftDelete && stored.get(status.name)?.removed === true) return false;
    if (!aspect) return true;
    return aspect.timeseries ? (await this.latestEvent(urn, entity, aspect, null)) !== null : stored.has(aspect.name);
  }

  /**
   * `DELETE /openapi/v3/entity/{entityName}/{urn}`: the whole entity (hard delete, its time-series rows too), or with
   * `aspects` only those; `clear` removes every versioned aspect but the key, so the entity stays.
   */
  async deleteEntity(rawEntityName: string, rawUrn: string, options: { aspects: string[]; clear: boolean }): Promise<void> {
    const { urn, entity } = this.target(rawEntityName, rawUrn);
    const named = options.aspects.map((n) => this.registry.aspectAnyCase(entity, n));
    if (options.clear) {
      const stored = (await this.reads.aspectsOfMany([urn], [...entity.aspects])).get(urn);
      const clearable = [...(stored?.keys() ?? [])].filter((n) => n !== entity.keyAspect);
      if (clearable.length > 0) await this.ingestion.deleteAspects(urn, clearable);
      return;
    }
    if (named.length === 0 || named.some((a) => a.name === entity.keyAspect)) {
      await this.ingestion.delete({ urn });
      return;
    }
    await this.ingestion.deleteAspects(urn, named.map((a) => a.name));
  }

  /**
   * `DELETE /openapi/v3/entity/{entityName}/{urn}/{aspectName}`: a versioned aspect with all its versions; of a
   * time-series aspect, as in DataHub, only its latest event (each delete removes the newest one left).
   */
  async deleteAspect(rawEntityName: string, rawUrn: string, rawAspect: string): Promise<void> {
    const { urn, entity } = this.target(rawEntityName, rawUrn);
    const aspect = this.registry.aspectAnyCase(entity, rawAspect);
    if (!aspect.timeseries) {
      await this.ingestion.delete({ urn, aspectName: aspect.name });
      return;
    }
    const latest = await this.latestEvent(urn, entity, aspect, null);
    const at = latest?.timestampMillis;
    if (typeof at === 'number') await this.ingestion.delete({ urn, aspectName: aspect.name, startTimeMillis: at, endTimeMillis: at });
  }

  /** The urn of a path, of the path's entity type (`generic`: any type). */
  private target(rawEntityName: string, rawUrn: string): { urn: string; entity: EntitySpec } {
    const { urn, entity } = this.registry.parseEntityUrn(rawUrn);
    if (rawEntityName !== GENERIC && this.registry.entityAnyCase(rawEntityName).name !== entity.name) {
      throw new InvalidInputError(`${urn.raw} is not a ${rawEntityName}`);
    }
    return { urn: urn.raw, entity };
  }

  private async latestEvent(urn: string, entity: EntitySpec, aspect: AspectSpec, atOrBefore: number | null): Promise<Record<string, unknown> | null> {
    if (!this.timeseries) throw new InvalidInputError('Time-series aspects are not supported by this deployment');
    const [event] = await this.timeseries.events({ urn, entity: entity.name, aspect: aspect.name, endTimeMillis: atOrBefore, limit: 1 });
    return event ?? null;
  }

  /** The proposals of a `[{urn, <aspect>: {value, systemMetadata?, headers?}}]` body, all checked before any is written. */
  private proposalsOf(entity: EntitySpec, body: unknown, patch: boolean, where: string): { proposals: unknown[]; written: Written[] } {
    if (!Array.isArray(body)) throw new InvalidInputError(`${where} must be a list of {urn, <aspectName>: {value}}`);
    if (body.length > MAX_ENTITIES) throw new InvalidInputError(`At most ${MAX_ENTITIES} entities per request`);
    const proposals: unknown[] = [];
    const written: Written[] = [];
    body.forEach((item, i) => {
      if (!isObject(item)) throw new InvalidInputError(`${where}[${i}] must be an object {urn, <aspectName>: {value}}`);
      const { urn: rawUrn, ...aspects } = item;
      const { urn } = this.target(entity.name, String(rawUrn ?? ''));
      if (rawUrn === undefined) throw new InvalidInputError(`${where}[${i}] is missing its urn`);
      for (const [name, raw] of Object.entries(aspects)) {
        const aspect = this.registry.aspectAnyCase(entity, name);
        const input = this.aspectBody(raw, patch, `${where}[${i}].${name}`);
        proposals.push(this.proposal(urn, entity, aspect, input, patch ? 'PATCH' : 'UPSERT'));
        written.push({ urn, aspect, value: input.value });
      }
    });
    return { proposals, written };
  }

  private aspectBody(raw: unknown, patch: boolean, where: string): AspectBody {
    if (!isObject(raw) || !isObject(raw.value)) throw new InvalidInputError(`${where} must be {value: {...}, systemMetadata?, headers?}`);
    if (patch && !Array.isArray(raw.value.patch)) throw new InvalidInputError(`${where}.value is missing its \`patch\` field (a list of JSON Patch operations)`);
    return { value: raw.value, systemMetadata: raw.systemMetadata, headers: raw.headers };
  }

  private proposal(urn: string, entity: EntitySpec, aspect: AspectSpec, input: AspectBody, changeType: string): Record<string, unknown> {
    return {
      entityType: entity.name,
      entityUrn: urn,
      aspectName: aspect.name,
      changeType,
      aspect: { contentType: 'application/json', value: JSON.stringify(input.value) },
      // The official client sends `systemMetadata: null` when it has none.
      ...(input.systemMetadata !== undefined && input.systemMetadata !== null ? { systemMetadata: input.systemMetadata } : {}),
      ...(input.headers !== undefined && input.headers !== null ? { headers: input.headers } : {}),
    };
  }

  /** Per entity (in the order first written), the aspects written: versioned ones as stored now, events as sent. */
  private async answer(written: Written[], systemMetadata: boolean): Promise<V3Entity[]> {
    const byUrn = new Map<string, Written[]>();
    for (const w of written) byUrn.set(w.urn, [...(byUrn.get(w.urn) ?? []), w]);
    const requests = [...byUrn].map(([urn, ws]) => ({ urn, aspects: [...new Set(ws.filter((w) => !w.aspect.timeseries).map((w) => w.aspect.name))] }));
    const stored = new Map((await this.reads.v3Entities(requests.filter((r) => r.aspects.length > 0), systemMetadata)).map((e) => [e.urn, e]));
    return [...byUrn].map(([urn, ws]) => {
      const out: V3Entity = { urn };
      for (const w of ws) {
        const value = w.aspect.timeseries ? { value: w.value } : stored.get(urn)?.[w.aspect.name];
        // A write a CREATE or If-None-Match dropped leaves nothing new to show.
        if (value !== undefined) out[w.aspect.name] = value;
      }
      return out;
    });
  }
}
