import type { Principal } from '../auth';
import { deprecation, schemaMetadata } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { EntitySpec, Registry } from '../model/registry';
import type { Urn } from '../model/urn';
import type { AspectStore } from '../stores/graph/aspect-store';
import type { IngestionService } from './ingestion';

const ASPECT = deprecation.name;

/** The deprecation aspect as read back. */
export interface Deprecation {
  deprecated: boolean;
  decommissionTime: number | null;
  note: string;
  actor: string | null;
  replacement: string | null;
}

export interface DeprecationChange {
  deprecated: boolean;
  decommissionTime?: number | null;
  note?: string | null;
}

export type SubResourceType = 'DATASET_FIELD';

export interface ResourceRef {
  resourceUrn: string;
  subResourceType?: SubResourceType | null;
  subResource?: string | null;
}

interface Target {
  urn: Urn;
  entity: EntitySpec;
}

function toDeprecation(value: Record<string, unknown>): Deprecation {
  return {
    deprecated: value.deprecated === true,
    decommissionTime: typeof value.decommissionTime === 'number' ? value.decommissionTime : null,
    note: typeof value.note === 'string' ? value.note : '',
    actor: typeof value.actor === 'string' ? value.actor : null,
    replacement: typeof value.replacement === 'string' ? value.replacement : null,
  };
}

/**
 * Reads and writes the `deprecation` aspect (the GraphQL deprecation API). Writes go through the ingestion service like
 * every other write: versions, audit stamp (actor = the caller's token actor), outbox and search document.
 *
 * A sub-resource (a schema field of a dataset, DATASET_FIELD) is checked to exist, as the original service does, and the
 * deprecation is then written on the resource's entity: there is no field-level deprecation aspect.
 */
export class DeprecationService {
  constructor(
    private readonly registry: Registry,
    private readonly store: AspectStore,
    private readonly ingestion: IngestionService,
  ) {}

  /** A dataset and its deprecation (null when never set), stored or not, as DataHub answers `dataset(urn)`. */
  async dataset(rawUrn: unknown): Promise<{ urn: string; type: string; deprecation: Deprecation | null }> {
    const { urn, entity } = this.registry.parseEntityUrn(rawUrn, 'urn');
    if (entity.name !== 'dataset') throw new InvalidInputError(`Invalid urn '${urn.raw}': not a dataset urn`);
    const aspects = await this.store.latest(urn.raw, [ASPECT]);
    const stored = aspects.find((a) => a.name === ASPECT);
    return { urn: urn.raw, type: entity.name, deprecation: stored ? toDeprecation(stored.value) : null };
  }

  async updateDeprecation(input: { urn: unknown } & DeprecationChange, principal: Principal): Promise<true> {
    const target = this.target(input.urn, 'urn');
    const existing = await this.store.existing([target.urn.raw]);
    if (!existing.has(target.urn.raw)) {
      throw new InvalidInputError(`Failed to update deprecation for Entity ${target.urn.raw}. Entity does not exist.`);
    }
    await this.write([target.urn.raw], input, principal);
    return true;
  }

  /** Every resource is validated before anything is written; then all are written in one transaction. */
  async batchUpdateDeprecation(input: DeprecationChange & { resources: ResourceRef[] }, principal: Principal): Promise<true> {
    const targets = input.resources.map((r, i) => this.target(r.resourceUrn, `resources[${i}].resourceUrn`));
    const urns = [...new Set(targets.map((t) => t.urn.raw))];
    const existing = await this.store.existing(urns);
    const withFields = [...new Set(targets.filter((_, i) => input.resources[i].subResource || input.resources[i].subResourceType).map((t) => t.urn.raw))];
    const schemas = withFields.length > 0 ? await this.store.latestMany(withFields, [schemaMetadata.name]) : new Map();
    input.resources.forEach((resource, i) => {
      const urn = targets[i].urn.raw;
      if (!existing.has(urn)) throw new InvalidInputError(`Failed to update resource with urn ${urn}. Entity does not exist.`);
      const { subResource, subResourceType } = resource;
      if (!subResource && !subResourceType) return;
      if (!subResource) {
        throw new InvalidInputError(`Failed to update resource with urn ${urn}. SubResourceType (${subResourceType}) provided without a subResource.`);
      }
      if (!subResourceType) {
        throw new InvalidInputError(`Failed to update resource with urn ${urn}. SubResource (${subResource}) provided without a subResourceType.`);
      }
      const schema = schemas.get(urn)?.aspects.get(schemaMetadata.name);
      if (!schema) throw new InvalidInputError(`Failed to update ${urn} & field ${subResource}. ${urn} has no schema.`);
      if (!schemaMetadata.fieldPaths(schema).includes(subResource)) {
        throw new InvalidInputError(`Failed to update ${urn} & field ${subResource}. Field ${subResource} does not exist in the datasets schema.`);
      }
    });
    if (urns.length > 0) await this.write(urns, input, principal);
    return true;
  }

  private target(raw: unknown, what: string): Target {
    const target = this.registry.parseEntityUrn(raw, what);
    this.registry.aspectFor(target.entity, ASPECT);
    return target;
  }

  /** One write per entity, all in one transaction; each keeps the `replacement` its stored value records. */
  private async write(urns: string[], change: DeprecationChange, principal: Principal): Promise<void> {
    const deprecation = (previous: Record<string, unknown> | null): Record<string, unknown> => {
      const value: Record<string, unknown> = { deprecated: change.deprecated, note: change.note ?? '', actor: principal.actor };
      if (change.decommissionTime !== undefined && change.decommissionTime !== null) value.decommissionTime = change.decommissionTime;
      if (typeof previous?.replacement === 'string') value.replacement = previous.replacement;
      return value;
    };
    await this.ingestion.transformAspects(urns.map((urn) => ({ urn, aspectName: ASPECT, transform: deprecation })), principal);
  }
}
