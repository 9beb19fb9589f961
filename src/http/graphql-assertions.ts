import type { GraphqlContext } from './graphql';
import { assertionInfo, assertionRunEvent, dataPlatformInstance } from '../model/aspects';
import type { Registry } from '../model/registry';
import { tryParseUrn } from '../model/urn';
import { RUN_EVENT_STATUS_FIELD, type AssertionResultInput, type Assertions, type CustomAssertionInput, type RunEventsRequest } from '../services/assertions';
import type { EntityReads } from '../services/entity-reads';

type Value = Record<string, unknown>;

/** The enum values a JSON Schema declares at a path of properties (the aspect's schema is where they are defined). */
function enumAt(schema: Value, path: string[]): string {
  let at: Value | undefined = schema;
  for (const key of path) at = (at?.properties as Record<string, Value> | undefined)?.[key];
  const values = at?.enum;
  if (!Array.isArray(values) || values.length === 0) throw new Error(`No enum at ${path.join('.')} of ${String(schema.$id)}`);
  return values.join('\n    ');
}

/**
 * DataHub's assertion GraphQL as the client uses it: `upsertCustomAssertion` and `reportAssertionResult` (the graph
 * client's upsert_custom_assertion / report_assertion_result), a dataset's `assertions` and an assertion's `runEvents`
 * (datahub.api.graphql.Assertion, which Airflow's assertion circuit breaker reads). Enum values come from the aspects'
 * schemas.
 */
export function assertionTypeDefs(registry: Registry): string {
  const info = registry.aspects.get(assertionInfo.name)!.schema;
  const runEvent = registry.aspects.get(assertionRunEvent.name)!.schema;
  return /* GraphQL */ `
  extend type Mutation {
    "Creates (a new urn when none is given) or replaces a custom assertion on an existing entity."
    upsertCustomAssertion(urn: String, input: UpsertCustomAssertionInput!): Assertion!
    "Reports a result of an assertion that asserts on an entity (a COMPLETE run event, now or at timestampMillis)."
    reportAssertionResult(urn: String!, result: AssertionResultInput!): Boolean!
  }

  extend type Dataset {
    "The assertions on the dataset (soft-deleted ones only when asked for)."
    assertions(start: Int, count: Int, includeSoftDeleted: Boolean): EntityAssertionsResult
  }

  type EntityAssertionsResult {
    start: Int!
    count: Int!
    total: Int!
    assertions: [Assertion!]!
  }

  type Assertion implements Entity {
    urn: String!
    type: EntityType!
    platform: DataPlatform
    info: AssertionInfo
    "Run events newest first, with how many completed as successes, failures and errors."
    runEvents(status: AssertionRunStatus, startTimeMillis: Long, endTimeMillis: Long, filter: FilterInput, limit: Int): AssertionRunEventsResult
  }

  enum AssertionType {
    ${enumAt(info, ['type'])}
  }

  type AssertionInfo {
    type: AssertionType!
    description: String
    externalUrl: String
    entityUrn: String
    customAssertion: CustomAssertionInfo
    customProperties: [StringMapEntry!]
  }

  type CustomAssertionInfo {
    type: String!
    entityUrn: String!
    field: SchemaFieldRef
    logic: String
  }

  type SchemaFieldRef {
    urn: String!
    path: String!
  }

  enum AssertionRunStatus {
    ${enumAt(runEvent, [RUN_EVENT_STATUS_FIELD])}
  }

  type AssertionRunEventsResult {
    total: Int!
    failed: Int!
    succeeded: Int!
    errored: Int!
    runEvents: [AssertionRunEvent!]!
  }

  type AssertionRunEvent {
    timestampMillis: Long!
    assertionUrn: String!
    asserteeUrn: String!
    runId: String!
    status: AssertionRunStatus!
    result: AssertionResult
    partitionSpec: PartitionSpec
    runtimeContext: [StringMapEntry!]
  }

  enum PartitionType {
    ${enumAt(runEvent, ['partitionSpec', 'type'])}
  }

  type PartitionSpec {
    type: PartitionType!
    partition: String!
    timePartition: TimeWindow
  }

  type TimeWindow {
    startTimeMillis: Long!
    durationMillis: Long!
  }

  enum AssertionResultType {
    ${enumAt(runEvent, ['result', 'type'])}
  }

  enum AssertionResultSeverity {
    ${enumAt(runEvent, ['result', 'severity'])}
  }

  enum AssertionResultErrorType {
    ${enumAt(runEvent, ['result', 'error', 'type'])}
  }

  type AssertionResult {
    type: AssertionResultType!
    severity: AssertionResultSeverity
    rowCount: Long
    missingCount: Long
    unexpectedCount: Long
    actualAggValue: Float
    nativeResults: [StringMapEntry!]
    externalUrl: String
    error: AssertionResultError
  }

  type AssertionResultError {
    type: AssertionResultErrorType!
    properties: [StringMapEntry!]
  }

  input PlatformInput {
    urn: String
    name: String
  }

  enum DatasetAssertionScope {
    ${enumAt(info, ['customAssertion', 'scope'])}
  }

  enum AssertionStdAggregation {
    ${enumAt(info, ['customAssertion', 'aggregation'])}
  }

  enum AssertionStdOperator {
    ${enumAt(info, ['customAssertion', 'operator'])}
  }

  enum AssertionStdParameterType {
    ${enumAt(info, ['customAssertion', 'parameters', 'value', 'type'])}
  }

  input AssertionStdParameterInput {
    value: String!
    type: AssertionStdParameterType!
  }

  input AssertionStdParametersInput {
    value: AssertionStdParameterInput
    maxValue: AssertionStdParameterInput
    minValue: AssertionStdParameterInput
  }

  input UpsertCustomAssertionInput {
    entityUrn: String!
    "How the assertion is categorized."
    type: String!
    description: String!
    fieldPath: String
    fieldPaths: [String!]
    "Where the assertion is evaluated: a platform urn or name."
    platform: PlatformInput!
    externalUrl: String
    logic: String
    scope: DatasetAssertionScope
    aggregation: AssertionStdAggregation
    operator: AssertionStdOperator
    parameters: AssertionStdParametersInput
    nativeType: String
    nativeParameters: [StringMapEntryInput!]
  }

  input AssertionResultErrorInput {
    type: AssertionResultErrorType!
    message: String!
  }

  input AssertionResultInput {
    timestampMillis: Long
    type: AssertionResultType!
    "Native results of the evaluation."
    properties: [StringMapEntryInput!]
    externalUrl: String
    error: AssertionResultErrorInput
    severity: AssertionResultSeverity
  }
`;
}

const text = (v: unknown) => (typeof v === 'string' ? v : null);
const mapEntries = (v: unknown) => (v && typeof v === 'object' ? Object.entries(v as Value).map(([key, value]) => ({ key, value: text(value) })) : null);

interface AssertionRef {
  urn: string;
  type?: string;
}

function runEventOf(event: Value) {
  const result = event.result as Value | undefined;
  const error = result?.error as Value | undefined;
  return {
    ...event,
    runtimeContext: mapEntries(event.runtimeContext),
    result: result ? { ...result, nativeResults: mapEntries(result.nativeResults), error: error ? { type: error.type, properties: mapEntries(error.properties) } : null } : null,
  };
}

export interface AssertionGraphqlDependencies {
  assertions: Assertions;
  reads: EntityReads;
}

export function assertionResolvers({ assertions, reads }: AssertionGraphqlDependencies) {
  const aspectOf = async (a: AssertionRef, name: string) => (await reads.aspectsOfMany([a.urn], [name])).get(a.urn)?.get(name) ?? null;
  const ref = (urn: string): AssertionRef => ({ urn, type: 'assertion' });
  return {
    Mutation: {
      upsertCustomAssertion: async (_: unknown, args: { urn?: string | null; input: CustomAssertionInput }, ctx: GraphqlContext) => ref(await assertions.upsertCustom(args.urn ?? null, args.input, ctx.principal)),
      reportAssertionResult: (_: unknown, args: { urn: string; result: AssertionResultInput }, ctx: GraphqlContext) => assertions.reportResult(args.urn, args.result, ctx.principal),
    },
    Dataset: {
      assertions: async (e: { urn: string }, args: { start?: number | null; count?: number | null; includeSoftDeleted?: boolean | null }) => {
        const page = await assertions.ofEntity(e.urn, args.start ?? 0, args.count ?? 200, args.includeSoftDeleted === true);
        return { start: page.start, count: page.count, total: page.total, assertions: page.urns.map(ref) };
      },
    },
    Assertion: {
      type: () => 'ASSERTION',
      platform: async (a: AssertionRef) => {
        const platform = text((await aspectOf(a, dataPlatformInstance.name))?.platform);
        return platform ? { urn: platform, type: 'dataPlatform' } : null;
      },
      info: async (a: AssertionRef) => {
        const info = await aspectOf(a, assertionInfo.name);
        if (!info) return null;
        const custom = info.customAssertion as Value | undefined;
        const field = tryParseUrn(custom?.field);
        return {
          ...info,
          customProperties: mapEntries(info.customProperties),
          customAssertion: custom
            ? { type: text(custom.type) ?? '', entityUrn: text(custom.entity) ?? '', logic: text(custom.logic), field: field ? { urn: field.raw, path: field.parts[1] ?? '' } : null }
            : null,
        };
      },
      runEvents: async (a: AssertionRef, args: Omit<RunEventsRequest, 'criteria'> & { filter?: { and: RunEventsRequest['criteria'] } | null }) => {
        const found = await assertions.runEvents(a.urn, { ...args, criteria: args.filter?.and ?? [] });
        return { total: found.total, succeeded: found.succeeded, failed: found.failed, errored: found.errored, runEvents: found.events.map(runEventOf) };
      },
    },
  };
}
