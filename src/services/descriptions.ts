import type { Principal } from '../auth';
import { editableSchemaMetadata, schemaMetadata } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { EntitySpec, Registry } from '../model/registry';
import type { EntityReads } from './entity-reads';
import type { IngestionService } from './ingestion';

type Value = Record<string, unknown>;

export interface DescriptionUpdate {
  description: string;
  resourceUrn: string;
  subResourceType?: string | null;
  subResource?: string | null;
}

/**
 * DataHub's updateDescription: the documentation a user edits, which wins over the ingested one. An entity's goes into
 * its editable properties aspect (the registry's `editable…Properties` aspect of the type with a `description`); a
 * dataset field's (subResourceType DATASET_FIELD) into its entry of `editableSchemaMetadata`, and the field must be in
 * the dataset's schema.
 */
export class Descriptions {
  constructor(
    private readonly registry: Registry,
    private readonly reads: EntityReads,
    private readonly ingestion: IngestionService,
    private readonly now: () => number = Date.now,
  ) {}

  async update(input: DescriptionUpdate, principal: Principal): Promise<true> {
    const { urn, entity } = this.registry.parseEntityUrn(input.resourceUrn, 'resourceUrn');
    if (!(await this.reads.exists(urn.raw))) throw new InvalidInputError(`Failed to update description of ${urn.raw}: entity does not exist`);
    const stamp = { time: this.now(), actor: principal.actor };
    if (input.subResourceType || input.subResource) {
      if (input.subResourceType !== 'DATASET_FIELD' || !input.subResource) throw new InvalidInputError('subResourceType DATASET_FIELD and a subResource (a field path) go together');
      const fieldPath = input.subResource;
      this.registry.aspectFor(entity, editableSchemaMetadata.name);
      const schema = (await this.reads.aspectsOfMany([urn.raw], [schemaMetadata.name])).get(urn.raw)?.get(schemaMetadata.name);
      if (!schema || !schemaMetadata.fieldPaths(schema).includes(fieldPath)) throw new InvalidInputError(`Failed to update ${urn.raw} & field ${fieldPath}. Field ${fieldPath} does not exist in the datasets schema.`);
      await this.ingestion.transformAspects(
        [{ urn: urn.raw, aspectName: editableSchemaMetadata.name, transform: (current) => withFieldDescription(current, fieldPath, input.description, stamp) }],
        principal,
      );
      return true;
    }
    const aspect = this.editableAspect(entity);
    const stamped = 'lastModified' in ((this.registry.aspects.get(aspect)!.schema.properties as Value | undefined) ?? {});
    await this.ingestion.transformAspects(
      [{ urn: urn.raw, aspectName: aspect, transform: (current) => ({ ...(current ?? (stamped ? { created: stamp } : {})), ...(stamped ? { lastModified: stamp } : {}), description: input.description }) }],
      principal,
    );
    return true;
  }

  /** The entity type's editable properties aspect with a description; refused for a type that has none. */
  private editableAspect(entity: EntitySpec): string {
    const name = [...entity.aspects].find((a) => /^editable.*Properties$/.test(a) && 'description' in ((this.registry.aspects.get(a)?.schema.properties as Value | undefined) ?? {}));
    if (!name) throw new InvalidInputError(`Updating the description of a ${entity.name} is not supported`);
    return name;
  }
}

/** The editable schema with the field's description set (an entry added for a field without one). */
function withFieldDescription(current: Value | null, fieldPath: string, description: string, stamp: { time: number; actor: string }): Value {
  const infos = Array.isArray(current?.editableSchemaFieldInfo) ? [...(current!.editableSchemaFieldInfo as Value[])] : [];
  const i = infos.findIndex((f) => f.fieldPath === fieldPath);
  if (i >= 0) infos[i] = { ...infos[i], description };
  else infos.push({ fieldPath, description });
  return { ...(current ?? { created: stamp }), lastModified: stamp, editableSchemaFieldInfo: infos };
}
