import type { GraphqlContext } from './graphql';
import { graphqlFilter } from './graphql-search';
import { dataProcessInstanceProperties } from '../model/aspects';
import { tryParseUrn } from '../model/urn';
import type { AccessTokens, CreateTokenInput } from '../services/access-tokens';
import type { EntityReads } from '../services/entity-reads';
import type { JobRuns } from '../services/job-runs';

/**
 * What DataHub's garbage collection (the `datahub-gc` ingestion source) and its users read beyond search: a job's runs,
 * when a job or flow was last ingested, and access tokens to list and revoke.
 */
export const adminTypeDefs = /* GraphQL */ `
  extend type Query {
    "Access tokens recorded as dataHubAccessToken entities, newest first (admin scope)."
    listAccessTokens(input: ListAccessTokenInput!): ListAccessTokenResult!
  }

  extend type Mutation {
    "Signs a personal token and records it (for another actor: admin scope; it then carries read and write)."
    createAccessToken(input: CreateAccessTokenInput!): AccessToken
    "Revokes a token id: refused from the next request on, its dataHubAccessToken entity (if any) removed (admin scope)."
    revokeAccessToken(tokenId: String!): Boolean!
  }

  enum AccessTokenType {
    PERSONAL
  }

  "NO_EXPIRY: ten years, the longest this service signs."
  enum AccessTokenDuration {
    ONE_HOUR
    ONE_DAY
    ONE_WEEK
    ONE_MONTH
    THREE_MONTHS
    SIX_MONTHS
    ONE_YEAR
    NO_EXPIRY
  }

  input CreateAccessTokenInput {
    type: AccessTokenType!
    actorUrn: String!
    duration: AccessTokenDuration!
    name: String!
    description: String
  }

  type AccessToken {
    accessToken: String!
    metadata: AccessTokenMetadata
  }

  input ListAccessTokenInput {
    start: Int
    count: Int
    filters: [FacetFilterInput!]
  }

  type ListAccessTokenResult {
    start: Int!
    count: Int!
    total: Int!
    tokens: [AccessTokenMetadata!]!
  }

  type AccessTokenMetadata {
    urn: String!
    type: EntityType!
    id: String!
    name: String
    description: String
    actorUrn: String
    ownerUrn: String
    createdAt: Long
    expiresAt: Long
  }

  type AuditStamp {
    time: Long!
    actor: String
  }

  "A run of a data job or flow."
  type DataProcessInstance implements Entity {
    urn: String!
    type: EntityType!
    name: String
    "When the run started in the source system, and who reported it."
    created: AuditStamp
  }

  type DataProcessInstanceResult {
    start: Int
    count: Int
    total: Int
    runs: [DataProcessInstance]
  }

  extend type DataPlatformInstance {
    "The platform instance's urn; null when the entity names a platform but no instance."
    urn: String
  }

  extend type DataJob {
    "Latest lastObserved among the aspects an ingestion run wrote (epoch ms)."
    lastIngested: Long
    "Runs of the job, newest first by their created time (soft-deleted runs left out)."
    runs(start: Int, count: Int): DataProcessInstanceResult
  }

  extend type DataFlow {
    orchestrator: String!
    lastIngested: Long
    runs(start: Int, count: Int): DataProcessInstanceResult
  }
`;

export interface AdminGraphqlDependencies {
  reads: EntityReads;
  jobRuns: JobRuns;
  accessTokens: AccessTokens;
}

interface EntityRef {
  urn: string;
  type?: string;
  aspects?: { get(name: string): Record<string, unknown> | undefined };
}

const DEFAULT_RUNS_COUNT = 20;

export function adminResolvers({ reads, jobRuns, accessTokens }: AdminGraphqlDependencies) {
  const runs = async (e: EntityRef, args: { start?: number | null; count?: number | null }) => {
    const page = await jobRuns.of(e.urn, args.start ?? 0, args.count ?? DEFAULT_RUNS_COUNT);
    const properties = await reads.aspectsOfMany(page.urns, [dataProcessInstanceProperties.name]);
    return {
      start: page.start,
      count: page.count,
      total: page.total,
      runs: page.urns.map((urn) => ({ urn, type: 'dataProcessInstance', aspects: properties.get(urn) ?? new Map() })),
    };
  };
  const lastIngested = (e: EntityRef) => reads.lastIngested(e.urn);
  return {
    Query: {
      listAccessTokens: (_: unknown, { input }: { input: { start?: number | null; count?: number | null; filters?: Parameters<typeof graphqlFilter>[1] } }, ctx: GraphqlContext) =>
        accessTokens.list({ start: input.start ?? 0, count: input.count ?? 20, filter: graphqlFilter(null, input.filters) }, ctx.principal),
    },
    Mutation: {
      createAccessToken: (_: unknown, args: { input: CreateTokenInput }, ctx: GraphqlContext) => accessTokens.create(args.input, ctx.principal),
      revokeAccessToken: (_: unknown, args: { tokenId: string }, ctx: GraphqlContext) => accessTokens.revoke(args.tokenId, ctx.principal),
    },
    AccessTokenMetadata: { type: () => 'ACCESS_TOKEN' },
    // Its name, created time and other fields: graphql-search.ts (read through the request's aspect loader).
    DataProcessInstance: { type: () => 'DATA_PROCESS_INSTANCE' },
    DataPlatformInstance: {
      urn: (i: { instance?: unknown }) => (typeof i.instance === 'string' ? i.instance : null),
    },
    DataJob: { lastIngested, runs },
    DataFlow: {
      orchestrator: (e: EntityRef) => tryParseUrn(e.urn)?.parts[0] ?? '',
      lastIngested,
      runs,
    },
  };
}
