import { InvalidInputError } from '../model/errors';
import type { AspectSpec, EntitySpec, Registry } from '../model/registry';
import type { ListingStore } from '../stores/graph/listing-store';
import { prefixEnd, urnPattern } from './restore';

export interface ListUrnsResult {
  entities: string[];
  start: number;
  count: number;
  total: number;
}

/** DataHub's AspectSpecDto, with what this registry knows: the annotation and the relationship fields. */
interface AspectSpecification {
  aspectAnnotation: { name: string; timeseries: boolean; autoRender: boolean };
  relationshipFieldSpec?: Record<string, { pathComponents: string[]; fieldType: 'RelationshipFieldSpec'; annotations: { relationshipAnnotation: Record<string, unknown> } }>;
}

/** DataHub's EntitySpecDto, as `GET /openapi/v1/registry/models/entity/specifications` answers it. */
export interface EntitySpecification {
  name: string;
  entityAnnotation: { name: string; keyAspect: string };
  keyAspectName: string;
  keyAspectSpec: AspectSpecification;
  aspectSpecs: AspectSpecification[];
  aspectSpecMap: Record<string, AspectSpecification>;
  snapshotSchemaName?: string;
}

function aspectSpecification(aspect: AspectSpec): AspectSpecification {
  const spec: AspectSpecification = { aspectAnnotation: { name: aspect.name, timeseries: aspect.timeseries, autoRender: false } };
  if (aspect.relationships.length > 0) {
    spec.relationshipFieldSpec = Object.fromEntries(
      aspect.relationships.map((r) => [
        `/${r.path.join('/')}`,
        {
          pathComponents: r.path,
          fieldType: 'RelationshipFieldSpec' as const,
          annotations: { relationshipAnnotation: { name: r.name, validDestinationTypes: r.entityTypes, isLineage: r.isLineage, isUpstream: r.isUpstream } },
        },
      ]),
    );
  }
  return spec;
}

/** What the catalog holds, by entity type and aspect (listUrns, getCount), and the model it holds it in. */
export class CatalogService {
  private readonly specifications: EntitySpecification[];

  constructor(
    private readonly registry: Registry,
    private readonly store: ListingStore,
  ) {
    this.specifications = [...registry.entities.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((e) => this.specification(e));
  }

  /** Urns of the entities of one type that exist (hold their key aspect), ordered by urn. */
  async listUrns(entityType: string, start: number, count: number): Promise<ListUrnsResult> {
    const entity = this.registry.entity(entityType);
    const { total, urns } = await this.store.listUrns(entity.name, entity.keyAspect, start, count);
    return { entities: urns, start, count: urns.length, total };
  }

  /**
   * How many entities hold the aspect (its latest version), optionally only those whose urn matches `urnLike` (`%` =
   * any characters, as restoreIndices reads it).
   */
  async aspectCount(aspectName: string, urnLike: string | undefined): Promise<number> {
    const aspect = this.registry.aspects.get(aspectName);
    if (!aspect) throw new InvalidInputError(`Unknown aspect '${aspectName}'`);
    if (aspect.timeseries) throw new InvalidInputError(`'${aspect.name}' is a time-series aspect: it has no versions to count (read it with getTimeseriesAspectValues)`);
    const entityTypes = [...this.registry.entities.values()].filter((e) => e.aspects.has(aspect.name)).map((e) => e.name);
    const pattern = urnLike === undefined ? null : urnPattern(urnLike);
    return this.store.countAspect({
      aspect: aspect.name,
      entityTypes,
      urnLike: pattern ? { from: pattern.prefix, to: prefixEnd(pattern.prefix), urnRegex: pattern.regex } : null,
    });
  }

  /** A page of the entity specifications, ordered by entity name, as DataHub's registry API pages them. */
  entitySpecifications(start: number, count: number): { elements: EntitySpecification[]; start: number; count: number; total: number } {
    const elements = this.specifications.slice(start, start + count);
    return { elements, start, count: elements.length, total: this.specifications.length };
  }

  private specification(entity: EntitySpec): EntitySpecification {
    const aspects = [...entity.aspects].map((name) => this.registry.aspects.get(name)!);
    const specs = aspects.map(aspectSpecification);
    return {
      name: entity.name,
      entityAnnotation: { name: entity.name, keyAspect: entity.keyAspect },
      keyAspectName: entity.keyAspect,
      keyAspectSpec: specs[aspects.findIndex((a) => a.name === entity.keyAspect)],
      aspectSpecs: specs,
      aspectSpecMap: Object.fromEntries(aspects.map((a, i) => [a.name, specs[i]])),
      ...(entity.snapshot ? { snapshotSchemaName: entity.snapshot } : {}),
    };
  }
}
