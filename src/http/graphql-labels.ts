import type { GraphqlContext } from './graphql';
import type { ResourceRef } from '../services/deprecation';
import type { Descriptions, DescriptionUpdate } from '../services/descriptions';
import type { TagLabels } from '../services/tag-labels';

/** DataHub's tag and glossary term mutations (the graph client's create_tag / remove_tag, and the UI's), over TagLabels, and updateDescription. */
export const labelTypeDefs = /* GraphQL */ `
  extend type Mutation {
    "Creates a tag (id: a new UUID when none is given) with its creator as owner; returns its urn. An existing id is refused."
    createTag(input: CreateTagInput!): String
    "Adds an existing tag to an entity, or to a dataset field (subResourceType DATASET_FIELD, subResource its path)."
    addTag(input: TagAssociationInput!): Boolean
    addTags(input: AddTagsInput!): Boolean
    "Removes a tag from an entity or a dataset field."
    removeTag(input: TagAssociationInput!): Boolean
    batchAddTags(input: BatchAddTagsInput!): Boolean
    batchRemoveTags(input: BatchRemoveTagsInput!): Boolean
    "Adds an existing glossary term to an entity, or to a dataset field (subResourceType DATASET_FIELD, subResource its path)."
    addTerm(input: TermAssociationInput!): Boolean
    addTerms(input: AddTermsInput!): Boolean
    "Removes a glossary term from an entity or a dataset field."
    removeTerm(input: TermAssociationInput!): Boolean
    batchAddTerms(input: BatchAddTermsInput!): Boolean
    batchRemoveTerms(input: BatchRemoveTermsInput!): Boolean
    "Sets the edited description of an entity (its editable properties) or, with subResourceType DATASET_FIELD, of a dataset field."
    updateDescription(input: DescriptionUpdateInput!): Boolean
  }

  input DescriptionUpdateInput {
    description: String!
    resourceUrn: String!
    subResourceType: SubResourceType
    subResource: String
  }

  input CreateTagInput {
    id: String
    name: String!
    description: String
  }

  input TagAssociationInput {
    tagUrn: String!
    resourceUrn: String!
    subResourceType: SubResourceType
    subResource: String
  }

  input AddTagsInput {
    tagUrns: [String!]!
    resourceUrn: String!
    subResourceType: SubResourceType
    subResource: String
  }

  input BatchAddTagsInput {
    tagUrns: [String!]!
    resources: [ResourceRefInput!]!
  }

  input BatchRemoveTagsInput {
    tagUrns: [String!]!
    resources: [ResourceRefInput!]!
  }

  input TermAssociationInput {
    termUrn: String!
    resourceUrn: String!
    subResourceType: SubResourceType
    subResource: String
  }

  input AddTermsInput {
    termUrns: [String!]!
    resourceUrn: String!
    subResourceType: SubResourceType
    subResource: String
  }

  input BatchAddTermsInput {
    termUrns: [String!]!
    resources: [ResourceRefInput!]!
  }

  input BatchRemoveTermsInput {
    termUrns: [String!]!
    resources: [ResourceRefInput!]!
  }
`;

type Single = ResourceRef & { tagUrn: string };
type Several = ResourceRef & { tagUrns: string[] };
type Batch = { tagUrns: string[]; resources: ResourceRef[] };
type SingleTerm = ResourceRef & { termUrn: string };
type SeveralTerms = ResourceRef & { termUrns: string[] };
type TermBatch = { termUrns: string[]; resources: ResourceRef[] };

export function labelResolvers({ tags, descriptions }: { tags: TagLabels; descriptions: Descriptions }) {
  const ref = ({ resourceUrn, subResourceType, subResource }: ResourceRef): ResourceRef => ({ resourceUrn, subResourceType, subResource });
  return {
    Mutation: {
      createTag: (_: unknown, { input }: { input: { id?: string | null; name: string; description?: string | null } }, ctx: GraphqlContext) => tags.createTag(input, ctx.principal),
      addTag: (_: unknown, { input }: { input: Single }, ctx: GraphqlContext) => tags.addTags([input.tagUrn], [ref(input)], ctx.principal),
      addTags: (_: unknown, { input }: { input: Several }, ctx: GraphqlContext) => tags.addTags(input.tagUrns, [ref(input)], ctx.principal),
      removeTag: (_: unknown, { input }: { input: Single }, ctx: GraphqlContext) => tags.removeTags([input.tagUrn], [ref(input)], ctx.principal),
      batchAddTags: (_: unknown, { input }: { input: Batch }, ctx: GraphqlContext) => tags.addTags(input.tagUrns, input.resources, ctx.principal),
      batchRemoveTags: (_: unknown, { input }: { input: Batch }, ctx: GraphqlContext) => tags.removeTags(input.tagUrns, input.resources, ctx.principal),
      addTerm: (_: unknown, { input }: { input: SingleTerm }, ctx: GraphqlContext) => tags.addTerms([input.termUrn], [ref(input)], ctx.principal),
      addTerms: (_: unknown, { input }: { input: SeveralTerms }, ctx: GraphqlContext) => tags.addTerms(input.termUrns, [ref(input)], ctx.principal),
      removeTerm: (_: unknown, { input }: { input: SingleTerm }, ctx: GraphqlContext) => tags.removeTerms([input.termUrn], [ref(input)], ctx.principal),
      batchAddTerms: (_: unknown, { input }: { input: TermBatch }, ctx: GraphqlContext) => tags.addTerms(input.termUrns, input.resources, ctx.principal),
      batchRemoveTerms: (_: unknown, { input }: { input: TermBatch }, ctx: GraphqlContext) => tags.removeTerms(input.termUrns, input.resources, ctx.principal),
      updateDescription: (_: unknown, { input }: { input: DescriptionUpdate }, ctx: GraphqlContext) => descriptions.update(input, ctx.principal),
    },
  };
}
