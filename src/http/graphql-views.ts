import type { GraphqlContext } from './graphql';
import type { EntityTypeNames } from '../model/entity-type-names';
import type { View, ViewInput, Views } from '../services/views';

/** DataHub's saved views (its views smoke test's operations) over Views; searches take them as `viewUrn`. */
export const viewTypeDefs = /* GraphQL */ `
  extend type Query {
    "The caller's views (those it created), of one type if asked."
    listMyViews(input: ListMyViewsInput!): ListViewsResult
    "Every global view."
    listGlobalViews(input: ListGlobalViewsInput!): ListViewsResult
  }

  extend type Mutation {
    "Creates a view; a GLOBAL one needs the admin scope."
    createView(input: CreateViewInput!): DataHubView
    "Changes what is given of a view: its creator's (a global one: an admin's)."
    updateView(urn: String!, input: UpdateViewInput!): DataHubView
    deleteView(urn: String!): Boolean
  }

  enum DataHubViewType {
    PERSONAL
    GLOBAL
  }

  enum LogicalOperator {
    AND
    OR
  }

  type DataHubView {
    urn: String!
    type: EntityType!
    viewType: DataHubViewType!
    name: String!
    description: String
    definition: DataHubViewDefinition!
  }

  type DataHubViewDefinition {
    entityTypes: [EntityType!]!
    filter: DataHubViewFilter!
  }

  type DataHubViewFilter {
    operator: LogicalOperator!
    filters: [FacetFilter!]!
  }

  type FacetFilter {
    field: String!
    condition: FilterOperator
    values: [String!]!
    negated: Boolean
  }

  type ListViewsResult {
    start: Int!
    count: Int!
    total: Int!
    views: [DataHubView!]!
  }

  input ListMyViewsInput {
    start: Int
    count: Int
    query: String
    viewType: DataHubViewType
  }

  input ListGlobalViewsInput {
    start: Int
    count: Int
    query: String
  }

  input CreateViewInput {
    viewType: DataHubViewType!
    name: String!
    description: String
    definition: DataHubViewDefinitionInput!
  }

  input UpdateViewInput {
    name: String
    description: String
    definition: DataHubViewDefinitionInput
  }

  input DataHubViewDefinitionInput {
    entityTypes: [EntityType!]!
    filter: DataHubViewFilterInput!
  }

  input DataHubViewFilterInput {
    operator: LogicalOperator!
    filters: [FacetFilterInput!]!
  }
`;

export function viewResolvers({ views, search }: { views: Views; search: { names: EntityTypeNames } }) {
  const names = search.names;
  /** A view as GraphQL shows it: entity types by their GraphQL names. */
  const shown = (view: View) => ({
    ...view,
    type: names.graphql('dataHubView'),
    definition: { ...view.definition, entityTypes: view.definition.entityTypes.map((t) => names.graphql(t)) },
  });
  type ListInput = { start?: number | null; count?: number | null; query?: string | null; viewType?: string | null };
  const list = (result: Awaited<ReturnType<Views['listGlobal']>>) => ({ ...result, views: result.views.map(shown) });
  return {
    Query: {
      listMyViews: async (_: unknown, { input }: { input: ListInput }, ctx: GraphqlContext) => list(await views.listMine(input, ctx.principal)),
      listGlobalViews: async (_: unknown, { input }: { input: ListInput }) => list(await views.listGlobal(input)),
    },
    Mutation: {
      createView: async (_: unknown, { input }: { input: ViewInput }, ctx: GraphqlContext) => shown(await views.create(input, ctx.principal)),
      updateView: async (_: unknown, { urn, input }: { urn: string; input: ViewInput }, ctx: GraphqlContext) => shown(await views.update(urn, input, ctx.principal)),
      deleteView: (_: unknown, { urn }: { urn: string }, ctx: GraphqlContext) => views.delete(urn, ctx.principal),
    },
  };
}
