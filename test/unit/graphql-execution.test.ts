import { getIntrospectionQuery, GraphQLError, parse, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { join } from 'node:path';
import { NO_TOKEN } from '../../src/auth/revocation-check';
import { COMPILE_AT_RUN, executeAnsweringRequestErrors, QueryExecutor } from '../../src/http/graphql-execution';
import { graphqlSchema, plainArgumentsForArgumentlessFields, type GraphqlSchemaDependencies } from '../../src/http/graphql';
import { EntityTypeNames } from '../../src/model/entity-type-names';
import { InvalidInputError, UnavailableError } from '../../src/model/errors';
import { Registry } from '../../src/model/registry';
import type { AcrossResult } from '../../src/services/search/across-entities';
import { SDK_LINEAGE_QUERY } from '../support/sdk-queries';

/**
 * Compiled queries (graphql-jit) answer exactly what graphql-js answers, byte for byte once serialized, on the
 * service's own schema and resolvers: data, the service's errors, and (through graphql-js) every other error.
 */
const registry = Registry.load(join(__dirname, '../../schema'), 'li');
const urn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:${i % 3 === 0 ? 'snowflake' : 'hive'},db.t${i},PROD)`;
const start = urn(1);
const BAD_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.invalid,PROD)';
const BROKEN_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.broken,PROD)';
const NULL_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.null,PROD)';
const UNREADABLE_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.unreadable,PROD)';
let lineageCalls = 0;

function lineagePage(request: { urn: string; count: number }) {
  lineageCalls++;
  if (request.urn === BAD_URN) throw new InvalidInputError(`Invalid urn ${request.urn}`);
  if (request.urn === BROKEN_URN) throw new Error('a bug');
  const results = Array.from({ length: Math.min(request.count, 5) }, (_, k) => {
    const u = request.urn === NULL_URN && k === 2 ? (null as unknown as string) : urn(10 + k);
    const aspects = new Map<string, Record<string, unknown>>(k % 2 === 0 ? [['datasetProperties', { name: `t${k}`, description: `Table ${k}` }]] : []);
    return { urn: u, type: 'dataset', degree: 1 + (k % 2), path: [{ urn: request.urn, type: 'dataset' }, { urn: u, type: 'dataset' }], aspects, direction: 'DOWNSTREAM' };
  });
  return { start: 0, count: results.length, total: 12, truncated: false, truncatedBy: [], maxHops: 1, aspectsRead: ['datasetProperties', 'dataPlatformInstance', 'status'], results };
}

const searchResult: AcrossResult & { start: number } = {
  start: 0,
  total: 2,
  hits: [
    { urn: urn(20), entityType: 'dataset', score: 1, matchedFields: [{ name: 'name', value: 't20' }], extraFields: {} },
    { urn: 'urn:li:tag:pii', entityType: 'tag', score: 0.5, matchedFields: [], extraFields: { name: '"pii"' } },
  ],
  facets: [{ field: 'platform', displayName: 'Platform', values: [{ value: 'urn:li:dataPlatform:hive', count: 2 }] }],
};
const storedAspects: Record<string, Record<string, Record<string, unknown>>> = {
  [urn(20)]: {
    datasetProperties: { name: 't20', description: 'orders', customProperties: { owner_team: 'sales' } },
    globalTags: { tags: [{ tag: 'urn:li:tag:pii' }] },
    ownership: { owners: [{ owner: 'urn:li:corpuser:alice', type: 'DATAOWNER' }, { owner: 'urn:li:corpGroup:eng', type: 'TECHNICAL_OWNER' }] },
  },
};

const deps = {
  deprecation: { dataset: async (u: string) => (u === BAD_URN ? Promise.reject(new InvalidInputError('bad')) : { urn: u, deprecation: null }) },
  lineage: { lineage: async (request: { urn: string; count: number }) => lineagePage(request), urnNamespace: 'li' },
  search: {
    names: new EntityTypeNames(registry),
    urnNamespace: 'li',
    search: async (request: { input: string }) =>
      request.input === 'unreadable' ? { ...searchResult, hits: [{ ...searchResult.hits[0], urn: UNREADABLE_URN }] } : searchResult,
  },
  reads: {
    aspectsOfMany: async (urns: string[], names: string[]) =>
      urns.includes(UNREADABLE_URN)
        ? Promise.reject(new UnavailableError('Neo4j is unavailable', 'neo4j'))
        : new Map(urns.map((u) => [u, new Map(Object.entries(storedAspects[u] ?? {}).filter(([name]) => names.includes(name)))])),
  },
  registry,
} as unknown as GraphqlSchemaDependencies;

const LINEAGE_ALIASED = `query aliased($input: SearchAcrossLineageInput!, $withPaths: Boolean!, $noDegree: Boolean = false) {
  first: searchAcrossLineage(input: $input) {
    total
    searchResults { d: degree @skip(if: $noDegree) entity { __typename ...names } paths @include(if: $withPaths) { path { urn } } }
  }
  __typename
}
fragment names on Entity { urn ... on Dataset { name origin } }`;
const SEARCH = `query search($input: SearchAcrossEntitiesInput!) {
  searchAcrossEntities(input: $input) {
    start count total
    searchResults {
      entity {
        urn type
        ... on Dataset { name platform { name urn } properties { name description customProperties { key value } } tags { tags { tag { urn name } } } ownership { owners { owner { __typename ... on CorpUser { urn username } ... on CorpGroup { urn } } type } } }
        ... on Tag { name }
      }
      matchedFields { name value }
      extraProperties { name value }
    }
    facets { field displayName aggregations { value count entity { urn } } }
  }
}`;

/**
 * graphql-js's own answer (request errors marked for Yoga's 400), serialized as the service serializes answers (errors
 * through their toJSON).
 */
async function reference(document: DocumentNode, variableValues?: Record<string, unknown>, operationName?: string): Promise<string> {
  const result = await executeAnsweringRequestErrors({ schema, document, variableValues, operationName, contextValue: { revocation: NO_TOKEN } });
  return JSON.stringify(result);
}

let schema: GraphQLSchema;
beforeAll(() => {
  plainArgumentsForArgumentlessFields();
  schema = graphqlSchema(deps);
});

/** An executor that counts the runs it leaves to graphql-js. */
function counted() {
  const counter = { interpreted: 0 };
  const executor = new QueryExecutor((args: ExecutionArgs) => {
    counter.interpreted++;
    return executeAnsweringRequestErrors(args);
  });
  return { executor, counter };
}

/** Runs the query as the service would, enough times to be compiled; the compiled run's answer. */
async function compiledAnswer(executor: QueryExecutor, document: DocumentNode, variableValues?: Record<string, unknown>, operationName?: string) {
  let result: ExecutionResult | undefined;
  for (let run = 1; run <= COMPILE_AT_RUN; run++) {
    result = await executor.execute({ schema, document, variableValues, operationName, contextValue: { revocation: NO_TOKEN } });
  }
  return JSON.stringify(result);
}

describe('compiled GraphQL queries', () => {
  const cases: { name: string; text: string; variables?: Record<string, unknown>; operationName?: string }[] = [
    { name: "the SDK's lineage query", text: SDK_LINEAGE_QUERY, variables: { input: { urn: start, direction: 'DOWNSTREAM', count: 3 } } },
    { name: 'aliases, fragments, directives and __typename', text: LINEAGE_ALIASED, variables: { input: { urn: start, direction: 'UPSTREAM', count: 5 }, withPaths: true } },
    { name: 'directives the other way', text: LINEAGE_ALIASED, variables: { input: { urn: start, direction: 'UPSTREAM', count: 2 }, withPaths: false, noDegree: true } },
    { name: 'search with entity fields read in batches, unions and facets', text: SEARCH, variables: { input: { query: '*', count: 10 } } },
    { name: 'introspection', text: getIntrospectionQuery() },
    {
      name: 'the operation named, of several',
      text: `query a { dataset(urn: "${start}") { urn } } query b { dataset(urn: "${urn(2)}") { urn deprecation { note } } }`,
      operationName: 'b',
    },
  ];

  it.each(cases)('answers $name as graphql-js does, without running it', async ({ text, variables, operationName }) => {
    const document = parse(text);
    const expected = await reference(document, variables, operationName);
    const { executor, counter } = counted();
    const answer = await compiledAnswer(executor, document, variables, operationName);
    expect(answer).toBe(expected);
    // Only the runs before the document was compiled.
    expect(counter.interpreted).toBe(COMPILE_AT_RUN - 1);
  });

  it("answers the service's own errors as graphql-js does (message, locations, path), without running the query again", async () => {
    const document = parse(LINEAGE_ALIASED);
    const variables = { input: { urn: BAD_URN, direction: 'UPSTREAM' }, withPaths: true };
    const expected = await reference(document, variables);
    expect(JSON.parse(expected).errors[0]).toMatchObject({ message: `Invalid urn ${BAD_URN}`, locations: [{ line: 2, column: 3 }], path: ['first'] });
    const { executor, counter } = counted();
    await compiledAnswer(executor, document, variables);
    lineageCalls = 0;
    const answer = await executor.execute({ schema, document, variableValues: variables, contextValue: { revocation: NO_TOKEN } });
    expect(JSON.stringify(answer)).toBe(expected);
    // graphql-js's error object, which Yoga's error mask can give its code (it redefines `extensions`).
    const [error] = answer.errors!;
    expect(error).toBeInstanceOf(GraphQLError);
    expect(error.originalError).toBeInstanceOf(InvalidInputError);
    expect(Object.getOwnPropertyDescriptor(error, 'extensions')?.configurable).toBe(true);
    expect(lineageCalls).toBe(1);
    expect(counter.interpreted).toBe(COMPILE_AT_RUN - 1);
  });

  it.each<[string, string, Record<string, unknown>]>([
    ['a resolver that fails with an unexpected error', SDK_LINEAGE_QUERY, { input: { urn: BROKEN_URN, direction: 'DOWNSTREAM' } }],
    ['null in a non-null field', SDK_LINEAGE_QUERY, { input: { urn: NULL_URN, direction: 'DOWNSTREAM', count: 4 } }],
    ["the service's error below a root field (its null propagated)", SEARCH, { input: { query: 'unreadable', count: 10 } }],
    ['a variable of the wrong enum value', SDK_LINEAGE_QUERY, { input: { urn: start, direction: 'SIDEWAYS' } }],
    ['a required variable missing', SDK_LINEAGE_QUERY, {}],
    ['an unknown input field', SDK_LINEAGE_QUERY, { input: { urn: start, direction: 'DOWNSTREAM', hops: 3 } }],
  ])('leaves %s to graphql-js: the same answer, request errors marked 400', async (_, text, variables) => {
    const document = parse(text);
    const expected = await reference(document, variables);
    const { executor, counter } = counted();
    const answer = await compiledAnswer(executor, document, variables);
    expect(answer).toBe(expected);
    // Each run answered by graphql-js: the compiled run's answer was not kept.
    expect(counter.interpreted).toBe(COMPILE_AT_RUN);
    const { data, errors } = JSON.parse(answer) as { data?: unknown; errors: { extensions?: { http?: { status: number } } }[] };
    expect(errors.length).toBeGreaterThan(0);
    // A request error (no data) is marked for Yoga's 400.
    if (data === undefined) for (const error of errors) expect(error.extensions?.http?.status).toBe(400);
  });

  it('runs mutations and subscriptions on graphql-js, however often they are sent', async () => {
    const { executor, counter } = counted();
    const documents = [parse('subscription { scrollAcrossLineage { total } }'), parse('mutation { updateDeprecation(input: {urn: "x", deprecated: true}) }')];
    for (const document of documents) {
      for (let run = 0; run < COMPILE_AT_RUN + 1; run++) await executor.execute({ schema, document, contextValue: { principal: {}, revocation: NO_TOKEN } });
    }
    expect(counter.interpreted).toBe(2 * (COMPILE_AT_RUN + 1));
  });
});
