import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth';
import { editableSchemaMetadata, globalTags, ownership, schemaMetadata, tagProperties } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { AspectStore } from '../stores/graph/aspect-store';
import { addCreatorAsOwner } from './creator-owner';
import type { ResourceRef } from './deprecation';
import type { AspectTransform, IngestionService } from './ingestion';

type Value = Record<string, unknown>;
type TagAssociation = { tag: string } & Value;

/** `tags` of a globalTags value with `change` applied; null when nothing changes (the write is then skipped). */
function changedTags(current: Value | null | undefined, change: (tags: TagAssociation[]) => TagAssociation[]): Value | null {
  const tags = Array.isArray(current?.tags) ? (current!.tags as TagAssociation[]) : [];
  const next = change(tags);
  if (next.length === tags.length && next.every((t, i) => t === tags[i])) return null;
  return { ...(current ?? {}), tags: next };
}

const adding = (urns: string[]) => (tags: TagAssociation[]) => [...tags, ...urns.filter((u) => !tags.some((t) => t.tag === u)).map((tag) => ({ tag }))];
const removing = (urns: string[]) => (tags: TagAssociation[]) => tags.filter((t) => !urns.includes(t.tag));

/**
 * Tags as DataHub's GraphQL mutations set them (createTag, addTag(s), removeTag, batchAddTags, batchRemoveTags, the graph
 * client's `create_tag` / `remove_tag`): on an entity's `globalTags`, or on a dataset field's tags in
 * `editableSchemaMetadata` (subResourceType DATASET_FIELD). Every resource, tag and field is checked before any write,
 * and each mutation is one transaction of read-modify-writes.
 */
export class TagLabels {
  constructor(
    private readonly registry: Registry,
    private readonly store: AspectStore,
    private readonly ingestion: IngestionService,
  ) {}

  /** Creates a tag (its properties, its creator as owner) and returns its urn; an existing id is refused. */
  async createTag(input: { id?: string | null; name: string; description?: string | null }, principal: Principal): Promise<string> {
    const id = input.id ?? randomUUID();
    const urn = this.registry.parseEntityUrn(`urn:${this.registry.urnNamespace}:tag:${id}`, 'id').urn.raw;
    if (input.name.trim() === '') throw new InvalidInputError('name must not be empty');
    if ((await this.store.existing([urn])).has(urn)) throw new InvalidInputError('This Tag already exists!');
    const properties: AspectTransform = (current) => (current ? null : { name: input.name, ...(input.description ? { description: input.description } : {}) });
    await this.ingestion.transformAspects(
      [
        { urn, aspectName: tagProperties.name, transform: properties },
        { urn, aspectName: ownership.name, transform: addCreatorAsOwner(principal) },
      ],
      principal,
    );
    return urn;
  }

  addTags(tagUrns: unknown[], resources: ResourceRef[], principal: Principal): Promise<true> {
    return this.change(tagUrns, resources, principal, 'add');
  }

  removeTags(tagUrns: unknown[], resources: ResourceRef[], principal: Principal): Promise<true> {
    return this.change(tagUrns, resources, principal, 'remove');
  }

  private async change(rawTags: unknown[], resources: ResourceRef[], principal: Principal, how: 'add' | 'remove'): Promise<true> {
    const tags = [...new Set(rawTags.map((raw, i) => this.tagUrn(raw, `tagUrns[${i}]`)))];
    const targets = resources.map((r, i) => ({ ...r, urn: this.registry.parseEntityUrn(r.resourceUrn, `resources[${i}].resourceUrn`) }));
    const urns = [...new Set(targets.map((t) => t.urn.urn.raw))];
    // Adding needs the tags to exist (DataHub's LabelUtils); removing one that is gone is allowed.
    const existing = await this.store.existing(how === 'add' ? [...urns, ...tags] : urns);
    if (how === 'add') for (const tag of tags) if (!existing.has(tag)) throw new InvalidInputError(`Failed to update resources: tag ${tag} does not exist`);
    const withFields = targets.filter((t) => t.subResource || t.subResourceType);
    const schemas = withFields.length > 0 ? await this.store.latestMany([...new Set(withFields.map((t) => t.urn.urn.raw))], [schemaMetadata.name]) : new Map();
    for (const t of targets) {
      const urn = t.urn.urn.raw;
      if (!existing.has(urn)) throw new InvalidInputError(`Failed to update resource with urn ${urn}. Entity does not exist.`);
      if (!t.subResource && !t.subResourceType) {
        this.registry.aspectFor(t.urn.entity, globalTags.name);
        continue;
      }
      if (!t.subResource || t.subResourceType !== 'DATASET_FIELD') {
        throw new InvalidInputError(`Failed to update resource with urn ${urn}. subResourceType DATASET_FIELD and a subResource (a field path) go together.`);
      }
      this.registry.aspectFor(t.urn.entity, editableSchemaMetadata.name);
      const schema = schemas.get(urn)?.aspects.get(schemaMetadata.name);
      if (!schema || !schemaMetadata.fieldPaths(schema).includes(t.subResource)) {
        throw new InvalidInputError(`Failed to update ${urn} & field ${t.subResource}. Field ${t.subResource} does not exist in the datasets schema.`);
      }
    }
    const change = how === 'add' ? adding(tags) : removing(tags);
    const changes: { urn: string; aspectName: string; transform: AspectTransform }[] = [];
    for (const urn of urns) {
      const own = targets.filter((t) => t.urn.urn.raw === urn);
      if (own.some((t) => !t.subResource)) changes.push({ urn, aspectName: globalTags.name, transform: (current) => changedTags(current, change) });
      const fields = [...new Set(own.flatMap((t) => (t.subResource ? [t.subResource] : [])))];
      if (fields.length > 0) changes.push({ urn, aspectName: editableSchemaMetadata.name, transform: (current) => this.fieldTags(current, fields, change, principal) });
    }
    if (changes.length > 0) await this.ingestion.transformAspects(changes, principal);
    return true;
  }

  /** The editable schema with each named field's tags changed (a field without an entry gets one); null if unchanged. */
  private fieldTags(current: Value | null, fieldPaths: string[], change: (tags: TagAssociation[]) => TagAssociation[], principal: Principal): Value | null {
    const infos = Array.isArray(current?.editableSchemaFieldInfo) ? [...(current!.editableSchemaFieldInfo as Value[])] : [];
    let changed = false;
    for (const fieldPath of fieldPaths) {
      const i = infos.findIndex((f) => f.fieldPath === fieldPath);
      const info = i >= 0 ? infos[i] : { fieldPath };
      const tags = changedTags(info.globalTags as Value | undefined, change);
      if (!tags || (i < 0 && (tags.tags as unknown[]).length === 0)) continue;
      changed = true;
      if (i >= 0) infos[i] = { ...info, globalTags: tags };
      else infos.push({ ...info, globalTags: tags });
    }
    if (!changed) return null;
    const stamp = { time: Date.now(), actor: principal.actor };
    return { ...(current ?? { created: stamp }), lastModified: stamp, editableSchemaFieldInfo: infos };
  }

  private tagUrn(raw: unknown, what: string): string {
    const { urn, entity } = this.registry.parseEntityUrn(raw, what);
    if (entity.name !== 'tag') throw new InvalidInputError(`${what}: ${urn.raw} is not a tag urn`);
    return urn.raw;
  }
}
