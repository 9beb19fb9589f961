import type { GraphqlContext } from './graphql';
import { hasScope, type Principal } from '../auth';
import { tryParseUrn } from '../model/urn';
import { GRAPHQL_OBJECT } from './graphql-search';
import type { EntityReads } from '../services/entity-reads';

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
    "Any entity by urn; null when it is not stored."
    entity(urn: String!): Entity
    "Entities by urn, in the order asked; null for each one not stored."
    entities(urns: [String!]!): [Entity]
    ${[...QUERIES_BY_URN].map(([query, entityType]) => `"A ${entityType} by urn; null when no such entity is stored."\n    ${query}(urn: String!): ${GRAPHQL_OBJECT[entityType]}`).join('\n    ')}
    "The caller: the actor of its token and what its scopes allow."
    me: AuthenticatedUser
    "The server's configuration as the UI and the CLI read it."
    appConfig: AppConfig
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
  /** The service's version (appConfig.appVersion). */
  version: string;
}

export function entityResolvers({ reads, version }: EntityGraphqlDependencies) {
  const stored = async (urns: string[]) => {
    const parsed = urns.map((u) => tryParseUrn(u));
    const existing = await reads.existing(parsed.flatMap((u) => (u ? [u.raw] : [])));
    return parsed.map((u) => (u && existing.has(u.raw) ? { urn: u.raw, type: u.entityType } : null));
  };
  const ofType = (entityType: string) => async (_: unknown, args: { urn: string }) => {
    const [found] = await stored([args.urn]);
    return found?.type === entityType ? found : null;
  };
  return {
    Query: {
      entity: async (_: unknown, args: { urn: string }) => (await stored([args.urn]))[0],
      entities: (_: unknown, args: { urns: string[] }) => stored(args.urns),
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
