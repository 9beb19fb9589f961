import type { GraphqlContext } from './graphql';
import { hasScope, type Principal } from '../auth';
import { tryParseUrn } from '../model/urn';
import { GRAPHQL_OBJECT } from './graphql-search';
import type { Registry } from '../model/registry';
import type { EntityReads } from '../services/entity-reads';
import type { RetrievalService } from '../services/retrieval';
import { perRequestLoader } from './graphql-request-loader';

/**
 * The query by urn of each entity type with a GraphQL object, named as DataHub names it (the object's name with its
 * leading capitals lowered: CorpUser → corpUser, MLModel → mlModel). A dataset's is the deprecation module's.
 */
export const QUERIES_BY_URN: ReadonlyMap<string, string> = new Map(
  Object.entries(GRAPHQL_OBJECT)
    .filter(([entityType]) => entityType !== 'dataset' && entityType !== 'schemaField')
    .map(([entityType, object]) => [object.replace(/^[A-Z]+(?=[A-Z][a-z])|^[A-Z]/, (caps) => caps.toLowerCase()), entityType]),
);

/**
 * Entities by urn (DataHub's `entity`, `entities` and one query per entity type), the caller (`me`) and the server's
 * configuration (`appConfig`): what `datahub graphql`, `datahub search diagnose` and scripts against GraphQL ask first.
 */
export const entityTypeDefs = /* GraphQL */ `
  extend type Query {
    "Any entity by urn, stored or not (its exists field tells); null when the urn is not one of a known entity type."
    entity(urn: String!): Entity
    "Entities by urn, in the order asked, as entity answers each."
    entities(urns: [String!]!): [Entity]
    ${[...QUERIES_BY_URN].map(([query, entityType]) => `"A ${entityType} by urn, stored or not (exists tells); null for a urn of another type."\n    ${query}(urn: String!): ${GRAPHQL_OBJECT[entityType]}`).join('\n    ')}
    "The caller: the actor of its token and what its scopes allow."
    me: AuthenticatedUser
    "The server's configuration as the UI and the CLI read it."
    appConfig: AppConfig
  }

  ${Object.values(GRAPHQL_OBJECT)
    .map((object) => `extend type ${object} {\n    "Whether the entity is stored (a soft-deleted one too), as DataHub's exists."\n    exists: Boolean\n  }`)
    .join('\n\n  ')}

  extend interface Entity {
    "The entity's edges of the given types, in one direction (a page of at most 1,000); the other end's entity with each."
    relationships(input: RelationshipsInput!): EntityRelationshipsResult
  }

  ${[...Object.values(GRAPHQL_OBJECT), 'OtherEntity']
    .map((object) => `extend type ${object} {\n    relationships(input: RelationshipsInput!): EntityRelationshipsResult\n  }`)
    .join('\n\n  ')}

  enum RelationshipDirection {
    INCOMING
    OUTGOING
  }

  input RelationshipsInput {
    types: [String!]!
    direction: RelationshipDirection!
    start: Int
    count: Int
    "Accepted; soft-deleted entities at the other end are included either way."
    includeSoftDelete: Boolean
  }

  type EntityRelationshipsResult {
    start: Int
    count: Int
    total: Int
    relationships: [EntityRelationship!]!
  }

  type EntityRelationship {
    type: String!
    direction: RelationshipDirection!
    entity: Entity
  }

  type AuthenticatedUser {
    corpUser: CorpUser!
    platformPrivileges: PlatformPrivileges!
  }

  "What the caller may do across the platform: admin scope manages everything, write scope the metadata, read nothing."
  type PlatformPrivileges {
    viewAnalytics: Boolean!
    managePolicies: Boolean!
    manageIdentities: Boolean!
    manageUserCredentials: Boolean!
    generatePersonalAccessTokens: Boolean!
    manageTokens: Boolean!
    manageIngestion: Boolean!
    manageSecrets: Boolean!
    manageDomains: Boolean!
    createDomains: Boolean!
    manageGlossaries: Boolean!
    createTags: Boolean!
    manageTags: Boolean!
    manageGlobalViews: Boolean!
    manageOwnershipTypes: Boolean!
    manageStructuredProperties: Boolean!
    viewStructuredPropertiesPage: Boolean!
    manageDocumentationForms: Boolean!
    manageGlobalAnnouncements: Boolean!
    viewTests: Boolean!
    manageTests: Boolean!
    viewManageTags: Boolean!
  }

  type AppConfig {
    appVersion: String
    authConfig: AuthConfig!
    telemetryConfig: TelemetryConfig!
    semanticSearchConfig: SemanticSearchConfig
  }

  type AuthConfig {
    tokenAuthEnabled: Boolean!
  }

  type TelemetryConfig {
    enableThirdPartyLogging: Boolean
  }

  "Semantic (embedding) search: not offered by this service."
  type SemanticSearchConfig {
    enabled: Boolean!
    enabledEntities: [String!]!
    embeddingConfig: EmbeddingConfig
  }

  type EmbeddingConfig {
    provider: String
    modelId: String
    modelEmbeddingKey: String
    awsProviderConfig: AwsProviderConfig
  }

  type AwsProviderConfig {
    region: String
  }
`;

/** The privileges a principal's scopes give (see PlatformPrivileges). */
export function platformPrivileges(principal: Principal): Record<string, boolean> {
  const admin = hasScope(principal, 'admin');
  const write = hasScope(principal, 'write');
  return {
    viewAnalytics: admin,
    managePolicies: admin,
    manageIdentities: admin,
    manageUserCredentials: admin,
    generatePersonalAccessTokens: admin,
    manageTokens: admin,
    manageIngestion: admin,
    manageSecrets: admin,
    manageDomains: write,
    createDomains: write,
    manageGlossaries: write,
    createTags: write,
    manageTags: write,
    manageGlobalViews: admin,
    manageOwnershipTypes: admin,
    manageStructuredProperties: admin,
    viewStructuredPropertiesPage: write,
    manageDocumentationForms: admin,
    manageGlobalAnnouncements: admin,
    viewTests: write,
    manageTests: admin,
    viewManageTags: write,
  };
}

export interface EntityGraphqlDependencies {
  reads: EntityReads;
  /** Edges of one entity (the rest.li relationships endpoint's service). */
  retrieval: RetrievalService;
  registry: Registry;
  /** The service's version (appConfig.appVersion). */
  version: string;
}

export function entityResolvers({ reads, retrieval, version, registry }: EntityGraphqlDependencies) {
  // As in DataHub, any well-formed urn of a known type resolves to its entity, stored or not (DataHub reads its key
  // aspect from the urn); `exists` tells which. A urn that is not one is null.
  const resolve = (raw: string) => {
    const urn = tryParseUrn(raw);
    return urn && urn.namespace === registry.urnNamespace && registry.entities.has(urn.entityType) ? { urn: urn.raw, type: urn.entityType } : null;
  };
  const ofType = (entityType: string) => (_: unknown, args: { urn: string }) => {
    const found = resolve(args.urn);
    return found?.type === entityType ? found : null;
  };
  const stored = perRequestLoader(async (urns: readonly string[]) => {
    const existing = await reads.existing([...urns]);
    return urns.map((u) => existing.has(u));
  });
  const exists = { exists: (e: { urn: string }, _: unknown, ctx: object) => stored(ctx).load(e.urn) };
  const relationships = {
    relationships: async (e: { urn: string }, { input }: { input: { types: string[]; direction: 'INCOMING' | 'OUTGOING'; start?: number | null; count?: number | null } }) => {
      const start = input.start ?? 0;
      const count = Math.min(input.count ?? 100, 1000);
      const page = await retrieval.relationships(e.urn, input.direction, input.types, start, count);
      return {
        start,
        count: page.count,
        total: page.total,
        relationships: page.relationships.map((r) => ({ type: r.type, direction: input.direction, entity: resolve(r.entity) ?? { urn: r.entity, type: 'other' } })),
      };
    },
  };
  return {
    ...Object.fromEntries(Object.values(GRAPHQL_OBJECT).map((object) => [object, { ...exists, ...relationships }])),
    OtherEntity: relationships,
    Query: {
      entity: (_: unknown, args: { urn: string }) => resolve(args.urn),
      entities: (_: unknown, args: { urns: string[] }) => args.urns.map(resolve),
      ...Object.fromEntries([...QUERIES_BY_URN].map(([query, entityType]) => [query, ofType(entityType)])),
      me: (_: unknown, __: unknown, ctx: GraphqlContext) => ({ corpUser: { urn: ctx.principal.actor, type: 'corpuser' }, platformPrivileges: platformPrivileges(ctx.principal) }),
      appConfig: () => ({
        appVersion: version,
        authConfig: { tokenAuthEnabled: true },
        telemetryConfig: { enableThirdPartyLogging: false },
        semanticSearchConfig: { enabled: false, enabledEntities: [], embeddingConfig: null },
      }),
    },
  };
}
