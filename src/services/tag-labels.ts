import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth';
import { editableSchemaMetadata, globalTags, glossaryTerms, ownership, schemaMetadata, tagProperties } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { AspectStore } from '../stores/graph/aspect-store';
import { addCreatorAsOwner } from './creator-owner';
import type { ResourceRef } from './deprecation';
import type { AspectTransform, IngestionService } from './ingestion';

type Value = Record<string, unknown>;
type Association = Value;

/**
 * A kind of label DataHub's label mutations set: where it lives on an entity (`aspect`, its list `field`, each entry's
 * `key`), what a dataset field's editable info calls it (`onField`), the entity type a label urn must have, and what
 * else a freshly made aspect needs (glossaryTerms requires an audit stamp).
 */
interface LabelKind {
  aspect: string;
  field: string;
  key: string;
  onField: string;
  entityType: string;
  noun: string;
  fresh(principal: Principal): Value;
}

const STAMP = (principal: Principal) => ({ time: Date.now(), actor: principal.actor });

// A dataset field's editable info names its labels as the aspects are named.
export const TAGS: LabelKind = { aspect: globalTags.name, field: 'tags', key: 'tag', onField: globalTags.name, entityType: 'tag', noun: 'tag', fresh: () => ({}) };
export const TERMS: LabelKind = {
  aspect: glossaryTerms.name,
  field: 'terms',
  key: 'urn',
  onField: glossaryTerms.name,
  entityType: 'glossaryTerm',
  noun: 'glossary term',
  fresh: (principal) => ({ auditStamp: STAMP(principal) }),
};

/** The label list of a value with `change` applied; null when nothing changes (the write is then skipped). */
function changedLabels(kind: LabelKind, current: Value | null | undefined, change: (labels: Association[]) => Association[], principal: Principal): Value | null {
  const labels = Array.isArray(current?.[kind.field]) ? (current![kind.field] as Association[]) : [];
  const next = change(labels);
  if (next.length === labels.length && next.every((t, i) => t === labels[i])) return null;
  return { ...(current ?? kind.fresh(principal)), [kind.field]: next };
}

const adding = (kind: LabelKind, urns: string[]) => (labels: Association[]) => [...labels, ...urns.filter((u) => !labels.some((t) => t[kind.key] === u)).map((u) => ({ [kind.key]: u }))];
const removing = (kind: LabelKind, urns: string[]) => (labels: Association[]) => labels.filter((t) => !urns.includes(t[kind.key] as string));

/**
 * Tags and glossary terms as DataHub's GraphQL mutations set them (createTag, addTag(s), removeTag, batchAddTags,
 * batchRemoveTags, addTerm(s), removeTerm, batchAddTerms, batchRemoveTerms; the graph client's `create_tag` /
 * `remove_tag`): on an entity's `globalTags` / `glossaryTerms`, or on a dataset field's in `editableSchemaMetadata`
 * (subResourceType DATASET_FIELD). Every resource, label and field is checked before any write, and each mutation is
 * one transaction of read-modify-writes.
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
    return this.change(TAGS, tagUrns, resources, principal, 'add');
  }

  removeTags(tagUrns: unknown[], resources: ResourceRef[], principal: Principal): Promise<true> {
    return this.change(TAGS, tagUrns, resources, principal, 'remove');
  }

  addTerms(termUrns: unknown[], resources: ResourceRef[], principal: Principal): Promise<true> {
    return this.change(TERMS, termUrns, resources, principal, 'add');
  }

  removeTerms(termUrns: unknown[], resources: ResourceRef[], principal: Principal): Promise<true> {
    return this.change(TERMS, termUrns, resources, principal, 'remove');
  }

  private async change(kind: LabelKind, rawLabels: unknown[], resources: ResourceRef[], principal: Principal, how: 'add' | 'remove'): Promise<true> {
    const what = kind === TAGS ? 'tagUrns' : 'termUrns';
    const tags = [...new Set(rawLabels.map((raw, i) => this.labelUrn(kind, raw, `${what}[${i}]`)))];
    const targets = resources.map((r, i) => ({ ...r, urn: this.registry.parseEntityUrn(r.resourceUrn, `resources[${i}].resourceUrn`) }));
    const urns = [...new Set(targets.map((t) => t.urn.urn.raw))];
    // Adding needs the tags to exist (DataHub's LabelUtils); removing one that is gone is allowed.
    const existing = await this.store.existing(how === 'add' ? [...urns, ...tags] : urns);
    if (how === 'add') for (const tag of tags) if (!existing.has(tag)) throw new InvalidInputError(`Failed to update resources: ${kind.noun} ${tag} does not exist`);
    const withFields = targets.filter((t) => t.subResource || t.subResourceType);
    const schemas = withFields.length > 0 ? await this.store.latestMany([...new Set(withFields.map((t) => t.urn.urn.raw))], [schemaMetadata.name]) : new Map();
    for (const t of targets) {
      const urn = t.urn.urn.raw;
      if (!existing.has(urn)) throw new InvalidInputError(`Failed to update resource with urn ${urn}. Entity does not exist.`);
      if (!t.subResource && !t.subResourceType) {
        this.registry.aspectFor(t.urn.entity, kind.aspect);
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
    const change = how === 'add' ? adding(kind, tags) : removing(kind, tags);
    const changes: { urn: string; aspectName: string; transform: AspectTransform }[] = [];
    for (const urn of urns) {
      const own = targets.filter((t) => t.urn.urn.raw === urn);
      if (own.some((t) => !t.subResource)) changes.push({ urn, aspectName: kind.aspect, transform: (current) => changedLabels(kind, current, change, principal) });
      const fields = [...new Set(own.flatMap((t) => (t.subResource ? [t.subResource] : [])))];
      if (fields.length > 0) changes.push({ urn, aspectName: editableSchemaMetadata.name, transform: (current) => this.fieldLabels(kind, current, fields, change, principal) });
    }
    if (changes.length > 0) await this.ingestion.transformAspects(changes, principal);
    return true;
  }

  /** The editable schema with each named field's labels changed (a field without an entry gets one); null if unchanged. */
  private fieldLabels(kind: LabelKind, current: Value | null, fieldPaths: string[], change: (labels: Association[]) => Association[], principal: Principal): Value | null {
    const infos = Array.isArray(current?.editableSchemaFieldInfo) ? [...(current!.editableSchemaFieldInfo as Value[])] : [];
    let changed = false;
    for (const fieldPath of fieldPaths) {
      const i = infos.findIndex((f) => f.fieldPath === fieldPath);
      const info = i >= 0 ? infos[i] : { fieldPath };
      const labels = changedLabels(kind, info[kind.onField] as Value | undefined, change, principal);
      if (!labels || (i < 0 && (labels[kind.field] as unknown[]).length === 0)) continue;
      changed = true;
      if (i >= 0) infos[i] = { ...info, [kind.onField]: labels };
      else infos.push({ ...info, [kind.onField]: labels });
    }
    if (!changed) return null;
    const stamp = STAMP(principal);
    return { ...(current ?? { created: stamp }), lastModified: stamp, editableSchemaFieldInfo: infos };
  }

  private labelUrn(kind: LabelKind, raw: unknown, what: string): string {
    const { urn, entity } = this.registry.parseEntityUrn(raw, what);
    if (entity.name !== kind.entityType) throw new InvalidInputError(`${what}: ${urn.raw} is not a ${kind.noun} urn`);
    return urn.raw;
  }
}
