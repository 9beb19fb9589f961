import type { GraphqlContext } from './graphql';
import { graphqlFilter } from './graphql-search';
import { tryParseUrn } from '../model/urn';
import type { ExecutionRequestView, IngestionSourceInput, IngestionSources, IngestionSourceView } from '../services/ingestion-sources';

/** DataHub's ingestion-source GraphQL: what `datahub ingest deploy` and `datahub ingest list-source-runs` send. */
export const ingestionTypeDefs = /* GraphQL */ `
  extend type Query {
    "Deployed ingestion sources matching a query and filters (admin scope)."
    listIngestionSources(input: ListIngestionSourcesInput!): ListIngestionSourcesResult
    "A deployed ingestion source; null when none is stored (admin scope)."
    ingestionSource(urn: String!): IngestionSource
  }

  extend type Mutation {
    "Deploys a source under a new urn; returns it (admin scope)."
    createIngestionSource(input: UpdateIngestionSourceInput!): String
    "Creates or replaces the source at urn; returns it (admin scope)."
    updateIngestionSource(urn: String!, input: UpdateIngestionSourceInput!): String
    "Deletes a source (its executions stay); returns its urn (admin scope)."
    deleteIngestionSource(urn: String!): String
  }

  input ListIngestionSourcesInput {
    start: Int
    count: Int
    query: String
    filters: [FacetFilterInput!]
  }

  type ListIngestionSourcesResult {
    start: Int!
    count: Int!
    total: Int!
    ingestionSources: [IngestionSource!]!
  }

  input UpdateIngestionSourceInput {
    name: String!
    type: String!
    "A UNIX cron interval and an IANA time zone."
    schedule: UpdateIngestionSourceScheduleInput
    config: UpdateIngestionSourceConfigInput!
  }

  input UpdateIngestionSourceScheduleInput {
    interval: String!
    timezone: String!
  }

  input UpdateIngestionSourceConfigInput {
    "The recipe as a JSON document."
    recipe: String!
    version: String
    executorId: String
    debugMode: Boolean
    extraArgs: [StringMapEntryInput!]
  }

  input StringMapEntryInput {
    key: String!
    value: String
  }

  type StringMapEntry {
    key: String!
    value: String
  }

  type IngestionSource {
    urn: String!
    type: String!
    name: String!
    schedule: IngestionSchedule
    config: IngestionConfig!
    "The source's execution requests, newest first."
    executions(start: Int, count: Int): IngestionSourceExecutionRequests
  }

  type IngestionSchedule {
    interval: String!
    timezone: String
  }

  type IngestionConfig {
    recipe: String!
    executorId: String!
    version: String
    debugMode: Boolean
    extraArgs: [StringMapEntry!]
  }

  type IngestionSourceExecutionRequests {
    start: Int
    count: Int
    total: Int
    executionRequests: [ExecutionRequest!]!
  }

  type ExecutionRequest {
    urn: String!
    id: String!
    input: ExecutionRequestInput
    result: ExecutionRequestResult
  }

  type ExecutionRequestInput {
    task: String!
    source: ExecutionRequestSource!
    arguments: [StringMapEntry!]
    requestedAt: Long!
    actorUrn: String
    executorId: String
  }

  type ExecutionRequestSource {
    type: String
    ingestionSource: String
  }

  type ExecutionRequestResult {
    status: String!
    startTimeMs: Long
    durationMs: Long
    report: String
  }
`;

export interface IngestionGraphqlDependencies {
  ingestionSources: IngestionSources;
}

type Value = Record<string, unknown>;

const text = (v: unknown) => (typeof v === 'string' ? v : null);
const entries = (v: unknown) => (v && typeof v === 'object' ? Object.entries(v as Value).map(([key, value]) => ({ key, value: text(value) })) : null);

function source({ urn, info }: IngestionSourceView) {
  const schedule = info.schedule as Value | undefined;
  const config = (info.config ?? {}) as Value;
  return {
    urn,
    type: text(info.type) ?? '',
    name: text(info.name) ?? '',
    schedule: schedule ? { interval: text(schedule.interval) ?? '', timezone: text(schedule.timezone) } : null,
    config: {
      recipe: text(config.recipe) ?? '',
      executorId: text(config.executorId) ?? 'default',
      version: text(config.version),
      debugMode: typeof config.debugMode === 'boolean' ? config.debugMode : null,
      extraArgs: entries(config.extraArgs),
    },
  };
}

function executionRequest({ urn, input, result }: ExecutionRequestView) {
  const requestSource = (input?.source ?? {}) as Value;
  return {
    urn,
    id: tryParseUrn(urn)?.id ?? urn,
    input: input
      ? {
          task: text(input.task) ?? '',
          source: { type: text(requestSource.type), ingestionSource: text(requestSource.ingestionSource) },
          arguments: entries(input.args),
          requestedAt: typeof input.requestedAt === 'number' ? input.requestedAt : 0,
          actorUrn: text(input.actorUrn),
          executorId: text(input.executorId),
        }
      : null,
    result: result
      ? {
          status: text(result.status) ?? '',
          startTimeMs: typeof result.startTimeMs === 'number' ? result.startTimeMs : null,
          durationMs: typeof result.durationMs === 'number' ? result.durationMs : null,
          report: text(result.report),
        }
      : null,
  };
}

const DEFAULT_COUNT = 20;

export function ingestionResolvers({ ingestionSources }: IngestionGraphqlDependencies) {
  return {
    Query: {
      listIngestionSources: async (_: unknown, { input }: { input: { start?: number | null; count?: number | null; query?: string | null; filters?: Parameters<typeof graphqlFilter>[1] } }, ctx: GraphqlContext) => {
        const page = await ingestionSources.list(
          { start: input.start ?? 0, count: input.count ?? DEFAULT_COUNT, query: input.query?.trim() ? input.query : '*', filter: graphqlFilter(null, input.filters) },
          ctx.principal,
        );
        return { start: page.start, count: page.count, total: page.total, ingestionSources: page.sources.map(source) };
      },
      ingestionSource: async (_: unknown, args: { urn: string }, ctx: GraphqlContext) => {
        const found = await ingestionSources.get(args.urn, ctx.principal);
        return found ? source(found) : null;
      },
    },
    Mutation: {
      createIngestionSource: (_: unknown, args: { input: IngestionSourceInput }, ctx: GraphqlContext) => ingestionSources.upsert(null, args.input, ctx.principal),
      updateIngestionSource: (_: unknown, args: { urn: string; input: IngestionSourceInput }, ctx: GraphqlContext) => ingestionSources.upsert(args.urn, args.input, ctx.principal),
      deleteIngestionSource: (_: unknown, args: { urn: string }, ctx: GraphqlContext) => ingestionSources.delete(args.urn, ctx.principal),
    },
    IngestionSource: {
      executions: async (s: { urn: string }, args: { start?: number | null; count?: number | null }) => {
        const page = await ingestionSources.executions(s.urn, args.start ?? 0, args.count ?? DEFAULT_COUNT);
        return { ...page, executionRequests: page.executionRequests.map(executionRequest) };
      },
    },
  };
}
