import type { GraphqlContext } from './graphql';
import type { ResourceRef } from '../services/deprecation';
import type { CreateDomainInput, DomainAssignments } from '../services/domain-assignments';
import type { CreateGlossaryEntityInput, Glossary } from '../services/glossary';

/** DataHub's domain and glossary GraphQL (the Domains API tutorial's createDomain / setDomain, the glossary's create and move, and what the UI lists). */
export const domainTypeDefs = /* GraphQL */ `
  extend type Query {
    "Domains matching a query, under parentDomain when given."
    listDomains(input: ListDomainsInput!): ListDomainsResult
  }

  extend type Mutation {
    "Creates a domain (id: a new UUID when none is given) with its creator as owner; returns its urn. An existing id is refused."
    createDomain(input: CreateDomainInput!): String
    "Sets an existing entity's domain (replacing any other)."
    setDomain(entityUrn: String!, domainUrn: String!): Boolean
    "Removes an entity's domain."
    unsetDomain(entityUrn: String!): Boolean
    "Sets (or, with no domainUrn, removes) the domain of several entities at once."
    batchSetDomain(input: BatchSetDomainInput!): Boolean
    "Deletes a domain that has no sub-domains: every reference to it first, then the domain."
    deleteDomain(urn: String!): Boolean
    "Moves a domain under another (no parentDomain: to the top level); never under itself or its own sub-domains."
    moveDomain(input: MoveDomainInput!): Boolean
    "Creates a glossary term (id: a new UUID when none is given) under an existing node or at the top; returns its urn."
    createGlossaryTerm(input: CreateGlossaryEntityInput!): String
    "Creates a glossary node the same way."
    createGlossaryNode(input: CreateGlossaryEntityInput!): String
    "Moves a glossary term or node under another node (none: to the top); a node never under itself or its descendants."
    updateParentNode(input: UpdateParentNodeInput!): Boolean
    "Renames a glossary term or node, a domain, a data product or a group."
    updateName(input: UpdateNameInput!): Boolean
  }

  input MoveDomainInput {
    parentDomain: String
    resourceUrn: String!
  }

  input CreateGlossaryEntityInput {
    id: String
    name: String!
    description: String
    parentNode: String
  }

  input UpdateParentNodeInput {
    parentNode: String
    resourceUrn: String!
  }

  input UpdateNameInput {
    name: String!
    urn: String!
  }

  input CreateDomainInput {
    id: String
    name: String!
    description: String
    parentDomain: String
  }

  input BatchSetDomainInput {
    domainUrn: String
    resources: [ResourceRefInput!]!
  }

  input ListDomainsInput {
    start: Int
    count: Int
    query: String
    parentDomain: String
  }

  type ListDomainsResult {
    start: Int!
    count: Int!
    total: Int!
    domains: [Domain!]!
  }
`;

export interface DomainGraphqlDependencies {
  domains: DomainAssignments;
  glossary: Glossary;
}

export function domainResolvers({ domains, glossary }: DomainGraphqlDependencies) {
  return {
    Query: {
      listDomains: async (_: unknown, { input }: { input: { start?: number | null; count?: number | null; query?: string | null; parentDomain?: string | null } }) => {
        const page = await domains.list({ start: input.start ?? 0, count: input.count ?? 20, query: input.query?.trim() ? input.query : '*', parentDomain: input.parentDomain });
        return { start: page.start, count: page.count, total: page.total, domains: page.urns.map((urn) => ({ urn, type: 'domain' })) };
      },
    },
    Mutation: {
      createDomain: (_: unknown, args: { input: CreateDomainInput }, ctx: GraphqlContext) => domains.create(args.input, ctx.principal),
      setDomain: (_: unknown, args: { entityUrn: string; domainUrn: string }, ctx: GraphqlContext) => domains.set(args.domainUrn, [args.entityUrn], ctx.principal),
      unsetDomain: (_: unknown, args: { entityUrn: string }, ctx: GraphqlContext) => domains.set(null, [args.entityUrn], ctx.principal),
      batchSetDomain: (_: unknown, args: { input: { domainUrn?: string | null; resources: ResourceRef[] } }, ctx: GraphqlContext) =>
        domains.set(args.input.domainUrn ?? null, args.input.resources.map((r) => r.resourceUrn), ctx.principal),
      deleteDomain: (_: unknown, args: { urn: string }, ctx: GraphqlContext) => domains.delete(args.urn, ctx.principal),
      moveDomain: (_: unknown, args: { input: { resourceUrn: string; parentDomain?: string | null } }, ctx: GraphqlContext) =>
        domains.move(args.input.resourceUrn, args.input.parentDomain, ctx.principal),
      createGlossaryTerm: (_: unknown, args: { input: CreateGlossaryEntityInput }, ctx: GraphqlContext) => glossary.createTerm(args.input, ctx.principal),
      createGlossaryNode: (_: unknown, args: { input: CreateGlossaryEntityInput }, ctx: GraphqlContext) => glossary.createNode(args.input, ctx.principal),
      updateParentNode: (_: unknown, args: { input: { resourceUrn: string; parentNode?: string | null } }, ctx: GraphqlContext) =>
        glossary.updateParentNode(args.input.resourceUrn, args.input.parentNode, ctx.principal),
      updateName: (_: unknown, args: { input: { urn: string; name: string } }, ctx: GraphqlContext) => glossary.updateName(args.input.urn, args.input.name, ctx.principal),
    },
  };
}
