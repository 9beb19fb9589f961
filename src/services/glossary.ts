import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth';
import { corpGroupInfo, dataProductProperties, domainProperties, glossaryNodeInfo, glossaryTermInfo, ownership } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import { makeUrn } from '../model/urn';
import { addCreatorAsOwner } from './creator-owner';
import type { EntityReads } from './entity-reads';
import type { Hierarchy } from './hierarchy';
import type { AspectTransform, IngestionService } from './ingestion';

export interface CreateGlossaryEntityInput {
  id?: string | null;
  name: string;
  description?: string | null;
  parentNode?: string | null;
}

/** Which aspect holds the name that `updateName` changes, and under which field, per entity type (DataHub's UpdateNameResolver). */
const NAMED: Record<string, { aspect: string; field: string }> = {
  glossaryTerm: { aspect: glossaryTermInfo.name, field: 'name' },
  glossaryNode: { aspect: glossaryNodeInfo.name, field: 'name' },
  domain: { aspect: domainProperties.name, field: 'name' },
  dataProduct: { aspect: dataProductProperties.name, field: 'name' },
  corpGroup: { aspect: corpGroupInfo.name, field: 'displayName' },
};

/**
 * The business glossary as DataHub's GraphQL manages it (createGlossaryTerm, createGlossaryNode, updateParentNode) and
 * the names updateName sets. A term or node is created with its creator as owner; its parent must be an existing node,
 * and a node is never moved under itself or one of its own descendants.
 */
export class Glossary {
  constructor(
    private readonly registry: Registry,
    private readonly reads: EntityReads,
    private readonly ingestion: IngestionService,
    private readonly hierarchy: Hierarchy,
  ) {}

  createTerm(input: CreateGlossaryEntityInput, principal: Principal): Promise<string> {
    return this.create('glossaryTerm', glossaryTermInfo.name, input, principal, { termSource: 'INTERNAL' });
  }

  createNode(input: CreateGlossaryEntityInput, principal: Principal): Promise<string> {
    return this.create('glossaryNode', glossaryNodeInfo.name, input, principal, {});
  }

  /** Sets (or, with none, removes) the parent node of a term or node. */
  async updateParentNode(rawResource: string, rawParent: string | null | undefined, principal: Principal): Promise<true> {
    const { urn, entity } = this.registry.parseEntityUrn(rawResource, 'resourceUrn');
    const aspect = entity.name === 'glossaryTerm' ? glossaryTermInfo.name : entity.name === 'glossaryNode' ? glossaryNodeInfo.name : null;
    if (!aspect) throw new InvalidInputError(`resourceUrn: ${urn.raw} is not a glossary term or node`);
    const parent = rawParent ? this.node(rawParent) : null;
    const existing = await this.reads.existing(parent ? [urn.raw, parent] : [urn.raw]);
    if (!existing.has(urn.raw)) throw new InvalidInputError(`Failed to update parent node: ${urn.raw} does not exist`);
    if (parent && !existing.has(parent)) throw new InvalidInputError(`Failed to update parent node: parent node ${parent} does not exist`);
    if (parent && (parent === urn.raw || (await this.hierarchy.parentNodes([parent])).get(parent)?.includes(urn.raw))) {
      throw new InvalidInputError(`Failed to update parent node: ${parent} is ${urn.raw} itself or under it`);
    }
    const transform: AspectTransform = (current) => {
      if (!current || (current.parentNode ?? null) === parent) return null;
      const { parentNode: _old, ...rest } = current;
      return parent ? { ...rest, parentNode: parent } : rest;
    };
    await this.ingestion.transformAspects([{ urn: urn.raw, aspectName: aspect, transform }], principal);
    return true;
  }

  /** Renames a glossary term or node, a domain, a data product or a group, in the aspect that holds its name. */
  async updateName(rawUrn: string, name: string, principal: Principal): Promise<true> {
    const { urn, entity } = this.registry.parseEntityUrn(rawUrn, 'urn');
    const named = NAMED[entity.name];
    if (!named) throw new InvalidInputError(`Failed to update name: ${entity.name} entities are not renamed this way (${Object.keys(NAMED).join(', ')} are)`);
    if (name.trim() === '') throw new InvalidInputError('name must not be empty');
    if (!(await this.reads.existing([urn.raw])).has(urn.raw)) throw new InvalidInputError(`Failed to update name: ${urn.raw} does not exist`);
    const transform: AspectTransform = (current) => {
      if (!current) throw new InvalidInputError(`Failed to update name: ${urn.raw} has no ${named.aspect} to rename`);
      return current[named.field] === name ? null : { ...current, [named.field]: name };
    };
    await this.ingestion.transformAspects([{ urn: urn.raw, aspectName: named.aspect, transform }], principal);
    return true;
  }

  private async create(entityType: string, aspect: string, input: CreateGlossaryEntityInput, principal: Principal, extra: Record<string, unknown>): Promise<string> {
    const { urn } = this.registry.parseEntityUrn(makeUrn(this.registry.urnNamespace, entityType, [input.id ?? randomUUID()]), 'id');
    if (input.name.trim() === '') throw new InvalidInputError('name must not be empty');
    const parent = input.parentNode ? this.node(input.parentNode) : null;
    const existing = await this.reads.existing(parent ? [urn.raw, parent] : [urn.raw]);
    if (existing.has(urn.raw)) throw new InvalidInputError(`This Glossary ${entityType === 'glossaryTerm' ? 'Term' : 'Node'} already exists!`);
    if (parent && !existing.has(parent)) throw new InvalidInputError(`Parent node ${parent} does not exist`);
    const info = { name: input.name, definition: input.description ?? '', ...extra, ...(parent ? { parentNode: parent } : {}) };
    await this.ingestion.transformAspects(
      [
        { urn: urn.raw, aspectName: aspect, transform: (current) => (current ? null : info) },
        { urn: urn.raw, aspectName: ownership.name, transform: addCreatorAsOwner(principal) },
      ],
      principal,
    );
    return urn.raw;
  }

  private node(raw: string): string {
    const { urn, entity } = this.registry.parseEntityUrn(raw, 'parentNode');
    if (entity.name !== 'glossaryNode') throw new InvalidInputError(`parentNode: ${urn.raw} is not a glossary node`);
    return urn.raw;
  }
}
