import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth';
import { domainProperties, domains, ownership } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import { makeUrn } from '../model/urn';
import { addCreatorAsOwner } from './creator-owner';
import type { EntityReads } from './entity-reads';
import type { Hierarchy } from './hierarchy';
import type { ReferencesService } from './references';
import type { IngestionService } from './ingestion';
import type { AcrossEntitiesSearch } from './search/across-entities';
import { parseFilter } from './search/query-builder';

const DOMAIN_ENTITY_TYPE = 'domain';
/** Search field of a domain's parent (DataHub's name). */
const PARENT_DOMAIN_FIELD = 'parentDomain';

export interface CreateDomainInput {
  id?: string | null;
  name: string;
  description?: string | null;
  parentDomain?: string | null;
}

/**
 * Domains as DataHub's GraphQL manages them (createDomain, deleteDomain, moveDomain, setDomain, unsetDomain,
 * batchSetDomain, listDomains): a
 * domain is created with its creator as owner, and an entity's `domains` aspect is set to one domain or none. Every
 * entity and domain named is checked before one transaction writes them all.
 */
export class DomainAssignments {
  constructor(
    private readonly registry: Registry,
    private readonly reads: EntityReads,
    private readonly search: AcrossEntitiesSearch,
    private readonly ingestion: IngestionService,
    private readonly hierarchy: Hierarchy,
    private readonly references: ReferencesService,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Deletes a domain, as DataHub's deleteDomain: refused while sub-domains sit under it; else every reference to it
   * (entities' domains) is removed, then the domain itself (hard delete).
   */
  async delete(rawUrn: string, principal: Principal): Promise<true> {
    const urn = this.domainUrn(rawUrn, 'urn');
    if (!(await this.reads.existing([urn])).has(urn)) throw new InvalidInputError(`Failed to delete Domain ${urn}: it does not exist`);
    if (await this.hierarchy.hasChildDomains(urn)) throw new InvalidInputError(`Cannot delete domain ${urn} which has child domains`);
    await this.references.deleteReferences(urn, false, principal);
    await this.ingestion.delete({ urn });
    return true;
  }

  /** Moves a domain under another (null: to the top level); refused under itself or one of its own sub-domains. */
  async move(rawUrn: string, rawParent: string | null | undefined, principal: Principal): Promise<true> {
    const urn = this.domainUrn(rawUrn, 'resourceUrn');
    const parent = rawParent ? this.domainUrn(rawParent, 'parentDomain') : null;
    const existing = await this.reads.existing(parent ? [urn, parent] : [urn]);
    if (!existing.has(urn)) throw new InvalidInputError(`Failed to move domain ${urn}: it does not exist`);
    if (parent && !existing.has(parent)) throw new InvalidInputError(`Failed to move domain ${urn}: parent domain ${parent} does not exist`);
    if (parent && (parent === urn || (await this.hierarchy.parentDomains([parent])).get(parent)?.includes(urn))) {
      throw new InvalidInputError(`Failed to move domain ${urn}: ${parent} is the domain itself or under it`);
    }
    await this.ingestion.transformAspects(
      [
        {
          urn,
          aspectName: domainProperties.name,
          transform: (current) => {
            if (!current) return null;
            if ((current.parentDomain ?? null) === parent) return null;
            const { parentDomain: _old, ...rest } = current;
            return parent ? { ...rest, parentDomain: parent } : rest;
          },
        },
      ],
      principal,
    );
    return true;
  }

  /** Creates a domain (id: a new UUID when none is given) and returns its urn; an existing id is refused. */
  async create(input: CreateDomainInput, principal: Principal): Promise<string> {
    const urn = this.domainUrn(makeUrn(this.registry.urnNamespace, DOMAIN_ENTITY_TYPE, [input.id ?? randomUUID()]), 'id');
    if (input.name.trim() === '') throw new InvalidInputError('name must not be empty');
    const parent = input.parentDomain ? this.domainUrn(input.parentDomain, 'parentDomain') : null;
    const existing = await this.reads.existing(parent ? [urn, parent] : [urn]);
    if (existing.has(urn)) throw new InvalidInputError('This Domain already exists!');
    if (parent && !existing.has(parent)) throw new InvalidInputError(`Parent Domain ${parent} does not exist!`);
    const properties = {
      name: input.name,
      ...(input.description ? { description: input.description } : {}),
      created: { time: this.now(), actor: principal.actor },
      ...(parent ? { parentDomain: parent } : {}),
    };
    await this.ingestion.transformAspects(
      [
        { urn, aspectName: domainProperties.name, transform: (current) => (current ? null : properties) },
        { urn, aspectName: ownership.name, transform: addCreatorAsOwner(principal) },
      ],
      principal,
    );
    return urn;
  }

  /** Sets the domain of each entity (null: removes it); every entity and the domain must exist. */
  async set(domainUrn: string | null, entityUrns: string[], principal: Principal): Promise<true> {
    const domain = domainUrn ? this.domainUrn(domainUrn, 'domainUrn') : null;
    const entities = [...new Set(entityUrns.map((u, i) => this.registry.parseEntityUrn(u, `resources[${i}]`).urn.raw))];
    const existing = await this.reads.existing(domain ? [...entities, domain] : entities);
    if (domain && !existing.has(domain)) throw new InvalidInputError(`Failed to set Domain: domain ${domain} does not exist`);
    for (const urn of entities) if (!existing.has(urn)) throw new InvalidInputError(`Failed to set Domain for resource with urn ${urn}: entity does not exist`);
    const value = { domains: domain ? [domain] : [] };
    await this.ingestion.transformAspects(
      entities.map((urn) => ({ urn, aspectName: domains.name, transform: () => value })),
      principal,
    );
    return true;
  }

  /** A page of domains matching a query, under a parent domain when one is given (else every domain). */
  async list(request: { start: number; count: number; query: string; parentDomain?: string | null }) {
    const parent = request.parentDomain ? this.domainUrn(request.parentDomain, 'parentDomain') : null;
    const filter = parent ? parseFilter({ or: [{ and: [{ field: PARENT_DOMAIN_FIELD, values: [parent], condition: 'EQUAL' }] }] }) : [];
    const page = await this.search.urnPage({ type: DOMAIN_ENTITY_TYPE, input: request.query, filter, start: request.start, count: request.count });
    return { start: request.start, count: page.urns.length, total: page.total, urns: page.urns };
  }

  private domainUrn(raw: string, field: string): string {
    const { urn, entity } = this.registry.parseEntityUrn(raw, field);
    if (entity.name !== DOMAIN_ENTITY_TYPE) throw new InvalidInputError(`${field} must be a domain urn; got '${urn.raw}'`);
    return urn.raw;
  }
}
