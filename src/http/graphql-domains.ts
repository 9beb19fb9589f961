import type { GraphqlContext } from './graphql';
import type { ResourceRef } from '../services/deprecation';
import type { CreateDomainInput, DomainAssignments } from '../services/domain-assignments';

/** DataHub's domain GraphQL (the Domains API tutorial's createDomain / setDomain, and what the UI lists). */
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
}

export function domainResolvers({ domains }: DomainGraphqlDependencies) {
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
    },
  };
}
