import { systemActor } from '../auth';
import { InvalidInputError, NotFoundError, ValidationError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { AspectStore, Relationship, StoredAspect } from '../stores/graph/aspect-store';
import type { HistoryStore } from '../stores/graph/history-store';
import { assertKept } from './history/as-of';

export interface AspectEnvelope {
  name: string;
  type: 'VERSIONED' | 'TIMESERIES';
  version: number;
  value: Record<string, unknown>;
  created: { time: number; actor: string };
  systemMetadata?: Record<string, unknown>;
}

export interface RelationshipsPage {
  start: number;
  count: number;
  total: number;
  relationships: Relationship[];
  entities: string[];
}

/** Reads of entities, versioned aspects and relationships from Neo4j. */
export class RetrievalService {
  constructor(
    private readonly registry: Registry,
    private readonly store: AspectStore,
    /** Reads as of a moment (absent: refused). */
    private readonly history: HistoryStore | null = null,
  ) {}

  /** Latest aspects; the key aspect is always present, derived from the URN when never written. */
  private async latestWithKey(rawUrn: unknown, names: string[] | null) {
    const { urn, entity } = this.registry.parseEntityUrn(rawUrn);
    if (names) {
      for (const name of names) this.registry.aspectFor(entity, name);
    }
    const stored = await this.store.latest(urn.raw, names ? [...new Set([...names, entity.keyAspect])] : null);
    if (!stored.some((a) => a.name === entity.keyAspect)) {
      const key = this.registry.keyAspectFor(urn, entity);
      stored.push({ name: key.aspect.name, version: 0, value: key.value, created: { time: 0, actor: systemActor(this.registry.urnNamespace) }, systemMetadata: null });
    }
    const wanted = names ? stored.filter((a) => names.includes(a.name) || a.name === entity.keyAspect) : stored;
    return { urn, entity, aspects: wanted.sort((a, b) => a.name.localeCompare(b.name)) };
  }

  /** Aspects as they were at `t` (epoch ms): per aspect the version then valid; a moment before trimmed history is refused. */
  private async atWithKey(rawUrn: unknown, names: string[] | null, t: number) {
    const { urn, entity } = this.registry.parseEntityUrn(rawUrn);
    if (names) for (const name of names) this.registry.aspectFor(entity, name);
    if (!this.history) throw new InvalidInputError('Reads as of a moment are not available here');
    const kept = await this.history.aspectsAt(urn.raw, names ? [...new Set([...names, entity.keyAspect])] : null, t);
    const stored: StoredAspect[] = [];
    for (const a of kept) {
      assertKept(urn.raw, a, t);
      if (a.at) {
        stored.push({
          name: a.name,
          version: a.at.version,
          value: JSON.parse(a.at.value) as Record<string, unknown>,
          created: { time: a.at.createdTime, actor: a.at.createdActor },
          systemMetadata: a.at.systemMetadata ? (JSON.parse(a.at.systemMetadata) as Record<string, unknown>) : null,
        });
      }
    }
    if (!stored.some((a) => a.name === entity.keyAspect)) {
      const key = this.registry.keyAspectFor(urn, entity);
      stored.push({ name: key.aspect.name, version: 0, value: key.value, created: { time: 0, actor: systemActor(this.registry.urnNamespace) }, systemMetadata: null });
    }
    return { urn, entity, aspects: stored.sort((a, b) => a.name.localeCompare(b.name)) };
  }

  /** `asOf`: the aspects as they were then (epoch ms) instead of the latest. */
  async entityV2(rawUrn: unknown, names: string[] | null, asOf?: number) {
    const { urn, entity, aspects } = asOf === undefined ? await this.latestWithKey(rawUrn, names) : await this.atWithKey(rawUrn, names, asOf);
    const envelopes: Record<string, AspectEnvelope> = {};
    for (const a of aspects) envelopes[a.name] = this.envelope(a);
    return { urn: urn.raw, entityName: entity.name, aspects: envelopes };
  }

  /** Legacy snapshot: `{value: {<Snapshot>: {urn, aspects: [{<RecordName>: value}]}}}`. */
  async entitySnapshot(rawUrn: unknown) {
    const { urn, entity, aspects } = await this.latestWithKey(rawUrn, null);
    if (!entity.snapshot) throw new InvalidInputError(`Entity type '${entity.name}' has no legacy snapshot; use /entitiesV2`);
    const snapshot: Record<string, unknown> = {
      urn: urn.raw,
      aspects: aspects.map((a) => ({ [this.registry.aspects.get(a.name)!.recordName]: a.value })),
    };
    // Some entity types' snapshots also carry aspects as direct members (glossary terms: see glossaryTermInfo).
    const members = new Set([...entity.aspects].flatMap((name) => this.registry.aspects.get(name)?.behaviour?.snapshotMembers ?? []));
    for (const a of aspects) if (members.has(a.name)) snapshot[a.name] = a.value;
    return { value: { [entity.snapshot]: snapshot } };
  }

  /**
   * `{version, aspect: {<fully qualified record name>: value}}`; 404 when that version does not exist. `asOf` (epoch ms,
   * with version 0): the version valid then; 404 when the aspect did not exist yet, 410 when that history was trimmed.
   */
  async versionedAspect(rawUrn: unknown, aspectName: unknown, version: number, asOf?: number) {
    const { urn, entity } = this.registry.parseEntityUrn(rawUrn);
    const spec = this.registry.aspectFor(entity, aspectName);
    if (spec.timeseries) throw new ValidationError(`'${spec.name}' is a time-series aspect; use getTimeseriesAspectValues`);
    if (asOf !== undefined) {
      if (version !== 0) throw new InvalidInputError('Give either version or asOfTime, not both');
      if (!this.history) throw new InvalidInputError('Reads as of a moment are not available here');
      const kept = (await this.history.aspectsAt(urn.raw, [spec.name], asOf)).find((a) => a.name === spec.name);
      if (kept) assertKept(urn.raw, kept, asOf);
      if (!kept?.at) throw new NotFoundError(`Aspect '${spec.name}' of ${urn.raw} did not exist at ${asOf}`);
      return { version: kept.at.version, aspect: { [spec.recordName]: JSON.parse(kept.at.value) as Record<string, unknown> } };
    }
    const stored = await this.store.version(urn.raw, spec.name, version);
    if (!stored) throw new NotFoundError(`No version ${version} of aspect '${spec.name}' for ${urn.raw}`);
    return { version: stored.version, aspect: { [spec.recordName]: stored.value } };
  }

  async relationships(rawUrn: unknown, direction: unknown, types: string[], start: number, count: number): Promise<RelationshipsPage> {
    if (direction !== 'INCOMING' && direction !== 'OUTGOING') {
      throw new InvalidInputError(`direction must be INCOMING or OUTGOING, got ${JSON.stringify(direction)}`);
    }
    // Any well-formed URN may be asked about: relationship targets need not be registered entities.
    const urn = this.registry.parseUrnLoosely(rawUrn);
    const page = await this.store.relationships(urn, direction, types, start, count);
    return { start, count: page.relationships.length, total: page.total, relationships: page.relationships, entities: page.relationships.map((r) => r.entity) };
  }

  private envelope(a: StoredAspect): AspectEnvelope {
    return {
      name: a.name,
      type: 'VERSIONED',
      version: a.version,
      value: a.value,
      created: a.created,
      ...(a.systemMetadata ? { systemMetadata: a.systemMetadata } : {}),
    };
  }
}
