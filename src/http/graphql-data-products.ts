import type { GraphqlContext } from './graphql';
import type { CreateDataProductInput, DataProducts } from '../services/data-products';

/** DataHub's data product mutations (the DataProducts API tutorial's) over DataProducts. */
export const dataProductTypeDefs = /* GraphQL */ `
  extend type Mutation {
    "Creates a data product in an existing domain (id: a new UUID when none is given), its creator as owner."
    createDataProduct(input: CreateDataProductInput!): DataProduct
    updateDataProduct(urn: String!, input: UpdateDataProductInput!): DataProduct
    "Deletes a data product: every reference to it first, then the data product."
    deleteDataProduct(urn: String!): Boolean
    "Puts each asset in the data product (none: in no data product), taking it out of any other."
    batchSetDataProduct(input: BatchSetDataProductInput!): Boolean
  }

  input CreateDataProductInput {
    properties: CreateDataProductPropertiesInput!
    domainUrn: String!
    id: String
  }

  input CreateDataProductPropertiesInput {
    name: String!
    description: String
  }

  input UpdateDataProductInput {
    name: String
    description: String
  }

  input BatchSetDataProductInput {
    dataProductUrn: String
    resourceUrns: [String!]!
  }
`;

export function dataProductResolvers({ dataProducts }: { dataProducts: DataProducts }) {
  const ref = (urn: string) => ({ urn, type: 'dataProduct' });
  return {
    Mutation: {
      createDataProduct: async (_: unknown, { input }: { input: CreateDataProductInput }, ctx: GraphqlContext) => ref(await dataProducts.create(input, ctx.principal)),
      updateDataProduct: async (_: unknown, args: { urn: string; input: { name?: string | null; description?: string | null } }, ctx: GraphqlContext) =>
        ref(await dataProducts.update(args.urn, args.input, ctx.principal)),
      deleteDataProduct: (_: unknown, { urn }: { urn: string }, ctx: GraphqlContext) => dataProducts.delete(urn, ctx.principal),
      batchSetDataProduct: (_: unknown, { input }: { input: { dataProductUrn?: string | null; resourceUrns: string[] } }, ctx: GraphqlContext) =>
        dataProducts.batchSet(input.dataProductUrn, input.resourceUrns, ctx.principal),
    },
  };
}
