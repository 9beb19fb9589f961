import { systemActor } from '../auth';
import { InvalidInputError, NotFoundError, ValidationError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { AspectStore, Relationship, StoredAspect } from '../stores/graph/aspect-store';

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

  async entityV2(rawUrn: unknown, names: string[] | null) {
    const { urn, entity, aspects } = await this.latestWithKey(rawUrn, names);
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

  /** `{version, aspect: {<fully qualified record name>: value}}`; 404 when that version does not exist. */
  async versionedAspect(rawUrn: unknown, aspectName: unknown, version: number) {
    const { urn, entity } = this.registry.parseEntityUrn(rawUrn);
    const spec = this.registry.aspectFor(entity, aspectName);
    if (spec.timeseries) throw new ValidationError(`'${spec.name}' is a time-series aspect; use getTimeseriesAspectValues`);
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
