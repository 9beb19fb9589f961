import type { GraphqlContext } from './graphql';
import { GROUP, USER, type CreateGroupInput, type Groups } from '../services/groups';

/** DataHub's user and group GraphQL over Groups: listings (read) and identity management (admin scope). */
export const groupTypeDefs = /* GraphQL */ `
  extend type Query {
    "Users matching a query."
    listUsers(input: ListUsersInput!): ListUsersResult
    "Groups matching a query."
    listGroups(input: ListGroupsInput!): ListGroupsResult
  }

  extend type Mutation {
    "Creates a native group (id: a new UUID when none is given); returns its urn (admin scope)."
    createGroup(input: CreateGroupInput!): String
    "Adds existing users to a group (admin scope)."
    addGroupMembers(input: AddGroupMembersInput!): Boolean
    "Removes users from a group (admin scope)."
    removeGroupMembers(input: RemoveGroupMembersInput!): Boolean
    "Deletes a group: its memberships and other references first (admin scope)."
    removeGroup(urn: String!): Boolean
    "Deletes a user: its memberships, ownerships and other references first (admin scope)."
    removeUser(urn: String!): Boolean
  }

  input ListUsersInput {
    start: Int
    count: Int
    query: String
  }

  type ListUsersResult {
    start: Int!
    count: Int!
    total: Int!
    users: [CorpUser!]!
  }

  input ListGroupsInput {
    start: Int
    count: Int
    query: String
  }

  type ListGroupsResult {
    start: Int!
    count: Int!
    total: Int!
    groups: [CorpGroup!]!
  }

  input CreateGroupInput {
    id: String
    name: String!
    description: String
  }

  input AddGroupMembersInput {
    groupUrn: String!
    userUrns: [String!]!
  }

  input RemoveGroupMembersInput {
    groupUrn: String!
    userUrns: [String!]!
  }
`;

type ListInput = { start?: number | null; count?: number | null; query?: string | null };

export function groupResolvers({ groups }: { groups: Groups }) {
  const page = async (kind: 'users' | 'groups', input: ListInput) => {
    const start = input.start ?? 0;
    const { total, urns } = await groups.list(kind, { start, count: input.count ?? 20, query: input.query?.trim() ? input.query : '*' });
    return { start, count: urns.length, total, [kind]: urns.map((urn) => ({ urn, type: kind === 'users' ? USER : GROUP })) };
  };
  return {
    Query: {
      listUsers: (_: unknown, { input }: { input: ListInput }) => page('users', input),
      listGroups: (_: unknown, { input }: { input: ListInput }) => page('groups', input),
    },
    Mutation: {
      createGroup: (_: unknown, { input }: { input: CreateGroupInput }, ctx: GraphqlContext) => groups.create(input, ctx.principal),
      addGroupMembers: (_: unknown, { input }: { input: { groupUrn: string; userUrns: string[] } }, ctx: GraphqlContext) => groups.addMembers(input.groupUrn, input.userUrns, ctx.principal),
      removeGroupMembers: (_: unknown, { input }: { input: { groupUrn: string; userUrns: string[] } }, ctx: GraphqlContext) => groups.removeMembers(input.groupUrn, input.userUrns, ctx.principal),
      removeGroup: (_: unknown, { urn }: { urn: string }, ctx: GraphqlContext) => groups.remove(urn, GROUP, ctx.principal),
      removeUser: (_: unknown, { urn }: { urn: string }, ctx: GraphqlContext) => groups.remove(urn, USER, ctx.principal),
    },
  };
}
