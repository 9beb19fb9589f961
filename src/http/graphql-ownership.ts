import type { GraphqlContext } from './graphql';
import { institutionalMemory } from '../model/aspects';
import type { Registry } from '../model/registry';
import type { ResourceRef } from '../services/deprecation';
import type { EntityReads } from '../services/entity-reads';
import type { LinkInput, LinkUpdate, OwnerInput, OwnersAndLinks } from '../services/owners-and-links';
import { perRequestLoader } from './graphql-request-loader';
import { GRAPHQL_OBJECT } from './graphql-search';

/** The GraphQL objects of the entity types that carry institutional memory (links). */
function linkedObjects(registry: Registry): string[] {
  return Object.entries(GRAPHQL_OBJECT).flatMap(([type, object]) => (registry.entities.get(type)?.aspects.has(institutionalMemory.name) ? [object] : []));
}

/** DataHub's owner and link mutations over OwnersAndLinks, and each linkable entity's `institutionalMemory`. */
export function ownershipTypeDefs(registry: Registry): string {
  return /* GraphQL */ `
  extend type Mutation {
    "Adds an owner (a user or group that exists) to an entity. Without ownershipTypeUrn or type, the owner is of type NONE."
    addOwner(input: AddOwnerInput!): Boolean
    addOwners(input: AddOwnersInput!): Boolean
    "Removes an owner from an entity (only with that ownership type when one is given)."
    removeOwner(input: RemoveOwnerInput!): Boolean
    batchAddOwners(input: BatchAddOwnersInput!): Boolean
    batchRemoveOwners(input: BatchRemoveOwnersInput!): Boolean
    "Adds a link (an absolute url and its label) to an entity's institutional memory."
    addLink(input: AddLinkInput!): Boolean
    "Removes an entity's links with this url (and label, when given)."
    removeLink(input: RemoveLinkInput!): Boolean
    "Replaces one of an entity's links, found by its current url and label."
    updateLink(input: UpdateLinkInput!): Boolean
  }

  enum OwnerEntityType {
    CORP_USER
    CORP_GROUP
  }

  input AddOwnerInput {
    ownerUrn: String!
    ownerEntityType: OwnerEntityType!
    "Deprecated: use ownershipTypeUrn."
    type: OwnershipType
    ownershipTypeUrn: String
    resourceUrn: String!
  }

  input OwnerInput {
    ownerUrn: String!
    ownerEntityType: OwnerEntityType!
    type: OwnershipType
    ownershipTypeUrn: String
  }

  input AddOwnersInput {
    owners: [OwnerInput!]!
    resourceUrn: String!
  }

  input RemoveOwnerInput {
    ownerUrn: String!
    ownershipTypeUrn: String
    resourceUrn: String!
  }

  input BatchAddOwnersInput {
    owners: [OwnerInput!]!
    ownershipTypeUrn: String
    resources: [ResourceRefInput]!
  }

  input BatchRemoveOwnersInput {
    ownerUrns: [String!]!
    ownershipTypeUrn: String
    resources: [ResourceRefInput]!
  }

  input AddLinkInput {
    linkUrl: String!
    label: String!
    resourceUrn: String!
  }

  input RemoveLinkInput {
    linkUrl: String!
    label: String
    resourceUrn: String!
  }

  input UpdateLinkInput {
    currentUrl: String!
    currentLabel: String!
    linkUrl: String!
    label: String!
    resourceUrn: String!
  }

  type InstitutionalMemory {
    elements: [InstitutionalMemoryMetadata!]!
  }

  type InstitutionalMemoryMetadata {
    url: String!
    label: String!
    "Deprecated: the label."
    description: String!
    author: CorpUser!
    created: AuditStamp!
    associatedUrn: String!
  }

  ${linkedObjects(registry)
    .map((object) => `extend type ${object} {\n    "Links to documentation (the institutionalMemory aspect)."\n    institutionalMemory: InstitutionalMemory\n  }`)
    .join('\n\n  ')}
`;
}

type Ref = ResourceRef;

export function ownershipResolvers({ owners, reads, registry }: { owners: OwnersAndLinks; reads: EntityReads; registry: Registry }) {
  const links = perRequestLoader(async (urns: readonly string[]) => {
    const found = await reads.aspectsOfMany([...urns], [institutionalMemory.name]);
    return urns.map((u) => found.get(u)?.get(institutionalMemory.name) ?? null);
  });
  const field = {
    institutionalMemory: async (e: { urn: string }, _: unknown, ctx: object) => {
      const value = await links(ctx).load(e.urn);
      if (!value) return null;
      const elements = Array.isArray(value.elements) ? (value.elements as Record<string, any>[]) : [];
      return {
        elements: elements.map((m) => ({
          url: m.url,
          label: m.description ?? '',
          description: m.description ?? '',
          author: { urn: m.createStamp?.actor, type: 'corpuser' },
          created: m.createStamp,
          associatedUrn: e.urn,
        })),
      };
    },
  };
  const one = (input: OwnerInput & { resourceUrn: string }) => ({ ownerUrn: input.ownerUrn, ownerEntityType: input.ownerEntityType, type: input.type, ownershipTypeUrn: input.ownershipTypeUrn });
  return {
    ...Object.fromEntries(linkedObjects(registry).map((object) => [object, field])),
    Mutation: {
      addOwner: (_: unknown, { input }: { input: OwnerInput & { resourceUrn: string } }, ctx: GraphqlContext) => owners.addOwners([one(input)], [{ resourceUrn: input.resourceUrn }], ctx.principal),
      addOwners: (_: unknown, { input }: { input: { owners: OwnerInput[]; resourceUrn: string } }, ctx: GraphqlContext) =>
        owners.addOwners(input.owners, [{ resourceUrn: input.resourceUrn }], ctx.principal),
      removeOwner: (_: unknown, { input }: { input: { ownerUrn: string; ownershipTypeUrn?: string | null; resourceUrn: string } }, ctx: GraphqlContext) =>
        owners.removeOwners([input.ownerUrn], input.ownershipTypeUrn, [{ resourceUrn: input.resourceUrn }], ctx.principal),
      batchAddOwners: (_: unknown, { input }: { input: { owners: OwnerInput[]; ownershipTypeUrn?: string | null; resources: Ref[] } }, ctx: GraphqlContext) =>
        owners.addOwners(input.owners, input.resources, ctx.principal, input.ownershipTypeUrn),
      batchRemoveOwners: (_: unknown, { input }: { input: { ownerUrns: string[]; ownershipTypeUrn?: string | null; resources: Ref[] } }, ctx: GraphqlContext) =>
        owners.removeOwners(input.ownerUrns, input.ownershipTypeUrn, input.resources, ctx.principal),
      addLink: (_: unknown, { input }: { input: LinkInput }, ctx: GraphqlContext) => owners.addLink(input, ctx.principal),
      removeLink: (_: unknown, { input }: { input: LinkInput }, ctx: GraphqlContext) => owners.removeLink(input, ctx.principal),
      updateLink: (_: unknown, { input }: { input: LinkUpdate }, ctx: GraphqlContext) => owners.updateLink(input, ctx.principal),
    },
  };
}
