import type { Principal } from '../auth';
import { institutionalMemory, ownership } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { ResourceRef } from './deprecation';
import type { EntityReads } from './entity-reads';
import type { AspectTransform, IngestionService } from './ingestion';

type Value = Record<string, unknown>;

/** DataHub's ownership types and the system ownership type entity each stands for. */
const OWNERSHIP_TYPES = ['TECHNICAL_OWNER', 'BUSINESS_OWNER', 'DATA_STEWARD', 'NONE'] as const;
const SYSTEM_TYPE_PREFIX = 'urn:li:ownershipType:__system__';
const OWNER_ENTITY_TYPES: Record<string, string> = { CORP_USER: 'corpuser', CORP_GROUP: 'corpGroup' };

export interface OwnerInput {
  ownerUrn: string;
  ownerEntityType: string;
  type?: string | null;
  ownershipTypeUrn?: string | null;
}

export interface LinkInput {
  linkUrl: string;
  label?: string | null;
  resourceUrn: string;
}

export interface LinkUpdate {
  currentUrl: string;
  currentLabel: string;
  linkUrl: string;
  label: string;
  resourceUrn: string;
}

const stamp = (principal: Principal) => ({ time: Date.now(), actor: principal.actor });

/**
 * Owners and links as DataHub's GraphQL mutations set them (addOwner(s), removeOwner, batchAddOwners, batchRemoveOwners;
 * addLink, removeLink, updateLink): on the resources' `ownership` and `institutionalMemory`. Every resource and owner is
 * checked before any write, and each mutation is one transaction of read-modify-writes.
 */
export class OwnersAndLinks {
  constructor(
    private readonly registry: Registry,
    private readonly reads: EntityReads,
    private readonly ingestion: IngestionService,
  ) {}

  /**
   * Adds each owner to each resource with its ownership type: `ownershipTypeUrn`, else the system type of `type`, else
   * of the batch's `ownershipTypeUrn`, else NONE (as DataHub's OwnerUtils). An owner already there with that type stays.
   */
  async addOwners(owners: OwnerInput[], resources: ResourceRef[], principal: Principal, batchTypeUrn?: string | null): Promise<true> {
    const wanted = owners.map((o, i) => this.owner(o, batchTypeUrn, `owners[${i}]`));
    const urns = await this.checkResources(resources, ownership.name);
    const existing = await this.reads.existing([...new Set(wanted.flatMap((o) => [o.owner, ...(o.typeUrn.startsWith(SYSTEM_TYPE_PREFIX) ? [] : [o.typeUrn])]))]);
    for (const o of wanted) {
      if (!existing.has(o.owner)) throw new InvalidInputError(`Failed to change ownership for resource(s). Owner with urn ${o.owner} does not exist.`);
      if (!o.typeUrn.startsWith(SYSTEM_TYPE_PREFIX) && !existing.has(o.typeUrn)) throw new InvalidInputError(`Failed to change ownership for resource(s). Ownership type with urn ${o.typeUrn} does not exist.`);
    }
    const add: AspectTransform = (current) => {
      const list = Array.isArray(current?.owners) ? (current!.owners as Value[]) : [];
      const fresh = wanted.filter((w) => !list.some((o) => o.owner === w.owner && (o.typeUrn ?? `${SYSTEM_TYPE_PREFIX}${String(o.type).toLowerCase()}`) === w.typeUrn));
      if (fresh.length === 0) return null;
      return { ...(current ?? {}), owners: [...list, ...fresh.map((w) => ({ ...w, source: { type: 'MANUAL' } }))], lastModified: stamp(principal) };
    };
    await this.ingestion.transformAspects(urns.map((urn) => ({ urn, aspectName: ownership.name, transform: add })), principal);
    return true;
  }

  /** Removes the owners from each resource: of that ownership type only when one is given. */
  async removeOwners(ownerUrns: string[], ownershipTypeUrn: string | null | undefined, resources: ResourceRef[], principal: Principal): Promise<true> {
    const owners = new Set(ownerUrns.map((u, i) => this.registry.parseEntityUrn(u, `ownerUrns[${i}]`).urn.raw));
    const urns = await this.checkResources(resources, ownership.name);
    const remove: AspectTransform = (current) => {
      const list = Array.isArray(current?.owners) ? (current!.owners as Value[]) : [];
      const kept = list.filter((o) => !(owners.has(o.owner as string) && (!ownershipTypeUrn || o.typeUrn === ownershipTypeUrn)));
      return kept.length === list.length ? null : { ...current, owners: kept, lastModified: stamp(principal) };
    };
    await this.ingestion.transformAspects(urns.map((urn) => ({ urn, aspectName: ownership.name, transform: remove })), principal);
    return true;
  }

  /** Adds a link (url and label) to the resource's institutional memory; the same url and label again changes nothing. */
  async addLink(input: LinkInput, principal: Principal): Promise<true> {
    const [urn] = await this.checkResources([{ resourceUrn: input.resourceUrn }], institutionalMemory.name);
    const url = this.url(input.linkUrl);
    const label = input.label ?? '';
    await this.changeLinks(urn, principal, (elements) =>
      elements.some((e) => e.url === url && e.description === label) ? null : [...elements, { url, description: label, createStamp: stamp(principal) }],
    );
    return true;
  }

  /** Removes the links with this url (and this label, when one is given). */
  async removeLink(input: LinkInput, principal: Principal): Promise<true> {
    const [urn] = await this.checkResources([{ resourceUrn: input.resourceUrn }], institutionalMemory.name);
    await this.changeLinks(urn, principal, (elements) => {
      const kept = elements.filter((e) => !(e.url === input.linkUrl && (input.label === null || input.label === undefined || e.description === input.label)));
      return kept.length === elements.length ? null : kept;
    });
    return true;
  }

  /** Replaces the link with the current url and label by the new ones; refused when there is no such link. */
  async updateLink(input: LinkUpdate, principal: Principal): Promise<true> {
    const [urn] = await this.checkResources([{ resourceUrn: input.resourceUrn }], institutionalMemory.name);
    const url = this.url(input.linkUrl);
    await this.changeLinks(urn, principal, (elements) => {
      const i = elements.findIndex((e) => e.url === input.currentUrl && e.description === input.currentLabel);
      if (i < 0) throw new InvalidInputError(`Failed to update link: ${urn} has no link ${input.currentUrl} labelled '${input.currentLabel}'`);
      const next = [...elements];
      next[i] = { ...elements[i], url, description: input.label, updateStamp: stamp(principal) };
      return next;
    });
    return true;
  }

  private async changeLinks(urn: string, principal: Principal, change: (elements: Value[]) => Value[] | null): Promise<void> {
    const transform: AspectTransform = (current) => {
      const next = change(Array.isArray(current?.elements) ? (current!.elements as Value[]) : []);
      return next === null ? null : { ...(current ?? {}), elements: next };
    };
    await this.ingestion.transformAspects([{ urn, aspectName: institutionalMemory.name, transform }], principal);
  }

  /** A link must be an absolute url (DataHub's LinkUtils validates it as one); it is stored as given. */
  private url(raw: string): string {
    if (!URL.canParse(raw)) throw new InvalidInputError(`Invalid link url '${raw}': expected an absolute url`);
    return raw;
  }

  /** The owner entry an input asks for: the owner's urn of its entity type, and its ownership type. */
  private owner(input: OwnerInput, batchTypeUrn: string | null | undefined, what: string): { owner: string; type: string; typeUrn: string } {
    const { urn, entity } = this.registry.parseEntityUrn(input.ownerUrn, `${what}.ownerUrn`);
    if (OWNER_ENTITY_TYPES[input.ownerEntityType] !== entity.name) {
      throw new InvalidInputError(`${what}: ${urn.raw} is not a ${input.ownerEntityType === 'CORP_GROUP' ? 'group' : 'user'} urn (ownerEntityType ${input.ownerEntityType})`);
    }
    const typeUrn = input.ownershipTypeUrn ?? (input.type ? `${SYSTEM_TYPE_PREFIX}${input.type.toLowerCase()}` : (batchTypeUrn ?? `${SYSTEM_TYPE_PREFIX}none`));
    this.registry.parseEntityUrn(typeUrn, `${what}.ownershipTypeUrn`);
    // The legacy `type` field follows the ownership type: a system type's own name, CUSTOM for any other.
    const system = typeUrn.startsWith(SYSTEM_TYPE_PREFIX) ? typeUrn.slice(SYSTEM_TYPE_PREFIX.length).toUpperCase() : null;
    const type = system && (OWNERSHIP_TYPES as readonly string[]).includes(system) ? system : 'CUSTOM';
    return { owner: urn.raw, type, typeUrn };
  }

  /** The resources' urns, each an existing entity whose type carries the aspect; field-level resources are refused. */
  private async checkResources(resources: ResourceRef[], aspect: string): Promise<string[]> {
    const parsed = resources.map((r, i) => {
      if (r.subResource || r.subResourceType) throw new InvalidInputError(`resources[${i}]: owners and links are set on entities, not on their fields`);
      const { urn, entity } = this.registry.parseEntityUrn(r.resourceUrn, `resources[${i}].resourceUrn`);
      this.registry.aspectFor(entity, aspect);
      return urn.raw;
    });
    const urns = [...new Set(parsed)];
    const existing = await this.reads.existing(urns);
    for (const urn of urns) if (!existing.has(urn)) throw new InvalidInputError(`Failed to update resource with urn ${urn}. Entity does not exist.`);
    return urns;
  }
}
