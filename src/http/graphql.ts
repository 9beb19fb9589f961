import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { getOperationAST, GraphQLBoolean, GraphQLError, type ExecutionResult, GraphQLScalarType, isInputObjectType, isListType, isNonNullType, Kind, typeFromAST, type GraphQLInputType, type NamedTypeNode, type ValueNode } from 'graphql';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import type { Context, Middleware } from 'koa';
import { createRequire } from 'node:module';
import getRawBody from 'raw-body';
import type { Logger } from 'pino';
import { requireScope, type Authenticator, type Principal } from '../auth';
import type { RevocationCheck } from '../auth/revocation-check';
import { DomainError } from '../model/errors';
import type { DeprecationChange, DeprecationService, ResourceRef } from '../services/deprecation';
import type { Descriptions } from '../services/descriptions';
import type { FormAssignmentService } from '../services/form-assignment';
import type { TagLabels } from '../services/tag-labels';
import type { LineageService } from '../services/lineage/lineage-service';
import { answerText, QueryExecutor, type WalkAnswerContext } from './graphql-execution';
import { WalkAnswers } from './graphql-walk-answers';
import { lineageResolvers, lineageTypeDefs } from './graphql-lineage';
import { adminResolvers, adminTypeDefs, type AdminGraphqlDependencies } from './graphql-admin';
import { assertionResolvers, assertionTypeDefs, type AssertionGraphqlDependencies } from './graphql-assertions';
import { datasetResolvers, datasetTypeDefs, type DatasetGraphqlDependencies } from './graphql-dataset';
import { ownershipResolvers, ownershipTypeDefs } from './graphql-ownership';
import { hierarchyResolvers, hierarchyTypeDefs } from './graphql-hierarchy';
import type { Hierarchy } from '../services/hierarchy';
import { timelineResolvers, timelineTypeDefs } from './graphql-timeline';
import { dataProductResolvers, dataProductTypeDefs } from './graphql-data-products';
import { viewResolvers, viewTypeDefs } from './graphql-views';
import type { Views } from '../services/views';
import type { DataProducts } from '../services/data-products';
import { groupResolvers, groupTypeDefs } from './graphql-groups';
import type { Groups } from '../services/groups';
import type { TimelineService } from '../services/history/timeline-service';
import { writesSearchableIn } from '../services/indexing/search-sync';
import type { OwnersAndLinks } from '../services/owners-and-links';
import { domainResolvers, domainTypeDefs, type DomainGraphqlDependencies } from './graphql-domains';
import { entityResolvers, entityTypeDefs, type EntityGraphqlDependencies } from './graphql-entities';
import { ingestionResolvers, ingestionTypeDefs, type IngestionGraphqlDependencies } from './graphql-ingestion';
import { labelResolvers, labelTypeDefs } from './graphql-labels';
import { searchResolvers, searchTypeDefs, type SearchGraphqlDependencies } from './graphql-search';

/** GraphQL answers here, at the root and (app.ts strips the prefix) under /gms. */
export const GRAPHQL_PATHS = ['/api/graphql', '/api/v2/graphql'];

const typeDefs = /* GraphQL */ `
  "A 64-bit integer, such as epoch milliseconds (exact up to 2^53)."
  scalar Long

  type Query {
    "A dataset by urn; null when no such dataset is stored."
    dataset(urn: String!): Dataset
  }

  type Mutation {
    "Sets the deprecation of one entity, which must exist. Returns true."
    updateDeprecation(input: UpdateDeprecationInput!): Boolean
    "Sets the deprecation of several entities; all are validated before any is written. Returns true."
    batchUpdateDeprecation(input: BatchUpdateDeprecationInput!): Boolean
    "Assigns a form to entities (their forms aspect), unless assigned already; the form and every entity must exist. Returns true."
    batchAssignForm(input: BatchAssignFormInput!): Boolean
  }

  input BatchAssignFormInput {
    formUrn: String!
    entityUrns: [String!]!
  }

  type Dataset {
    urn: String!
    "Null when the dataset's deprecation was never set."
    deprecation: Deprecation
  }

  type Deprecation {
    deprecated: Boolean!
    "When the entity is planned to be decommissioned (epoch ms)."
    decommissionTime: Long
    note: String
    "Who last set the deprecation."
    actor: String
    replacement: String
  }

  input UpdateDeprecationInput {
    urn: String!
    deprecated: Boolean!
    decommissionTime: Long
    note: String
  }

  enum SubResourceType {
    "A schema field of a dataset; subResource is its fieldPath."
    DATASET_FIELD
  }

  input ResourceRefInput {
    resourceUrn: String!
    subResourceType: SubResourceType
    subResource: String
  }

  input BatchUpdateDeprecationInput {
    deprecated: Boolean!
    decommissionTime: Long
    note: String
    resources: [ResourceRefInput!]!
  }
`;

function parseLong(value: unknown): number {
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) {
    // Not JSON.stringify: a variable can be nested deep enough to overflow it.
    const shown = value !== null && typeof value === 'object' ? (Array.isArray(value) ? 'a list' : 'an object') : String(JSON.stringify(value)).slice(0, 100);
    throw new GraphQLError(`Long cannot represent ${shown}: expected an integer`);
  }
  return n;
}

const Long = new GraphQLScalarType({
  name: 'Long',
  serialize: parseLong,
  parseValue: parseLong,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind !== Kind.INT && ast.kind !== Kind.STRING) throw new GraphQLError('Long must be an integer', { nodes: ast });
    return parseLong(ast.value);
  },
});

/** What every resolver sees: the caller, and where the pre-execution scope check leaves its refusal. */
export interface GraphqlContext extends WalkAnswerContext {
  principal: Principal;
  /**
   * The caller's token's revocation check. A query of lineage alone lets its walks make it (in their first statement);
   * any other operation looks the token up while it runs, and a mutation waits for the answer. Nothing is answered
   * before the check is settled.
   */
  revocation: RevocationCheck;
  denial: { error: DomainError | null };
}

/** Error codes as the original service reports them in `errors[].extensions`. */
function extensionsFor(status: number): { code: number; type: string } {
  if (status === 400 || status === 413 || status === 422) return { code: 400, type: 'BAD_REQUEST' };
  if (status === 401) return { code: 401, type: 'UNAUTHENTICATED' };
  if (status === 403) return { code: 403, type: 'UNAUTHORIZED' };
  if (status === 404) return { code: 404, type: 'NOT_FOUND' };
  if (status === 410) return { code: 410, type: 'HISTORY_TRIMMED' };
  if (status === 503) return { code: 503, type: 'SERVICE_UNAVAILABLE' };
  return { code: 500, type: 'SERVER_ERROR' };
}

/**
 * Domain errors from resolvers become GraphQL errors with `{code, type}`; GraphQL's own errors (syntax, validation,
 * limits, request parsing) pass through; anything else is a bug and is masked.
 */
function maskError(logger: Logger) {
  return (error: unknown): Error => {
    const located = error instanceof GraphQLError ? error : null;
    const original = located?.originalError ?? error;
    if (original instanceof DomainError) {
      if (original.status >= 500) logger.error({ err: original }, 'GraphQL resolver failed');
      if (!located) return new GraphQLError(original.message, { extensions: extensionsFor(original.status) });
      // The located error itself, given its code: Yoga logs every error its mask replaces as a server error, and a
      // caller's mistake (invalid input, a revoked token) is none.
      Object.defineProperty(located, 'extensions', { value: { ...located.extensions, ...extensionsFor(original.status) }, enumerable: true, configurable: true, writable: true });
      return located;
    }
    if (located && (!located.originalError || located.originalError instanceof GraphQLError || located.extensions?.http)) return located;
    logger.error({ err: original }, 'GraphQL resolver failed');
    return new GraphQLError('An unknown error occurred.', { nodes: located?.nodes, path: located?.path, extensions: extensionsFor(500) });
  };
}

/**
 * Mutations need the write scope and a token known not to be revoked. Checked once the operation is parsed and
 * validated, before any resolver runs; the refusal is left in the context and turned into the service's usual 401 or
 * 403 response by the middleware.
 */
const mutationsNeedWrite: Plugin<GraphqlContext> = {
  async onExecute({ args, setResultAndStopExecution }) {
    const context = args.contextValue as GraphqlContext;
    if (getOperationAST(args.document, args.operationName ?? undefined)?.operation !== 'mutation') return;
    try {
      await context.revocation.confirm();
      requireScope(context.principal, 'write');
    } catch (err) {
      context.denial.error = err as DomainError;
      setResultAndStopExecution({ data: null });
    }
  },
};

/**
 * graphql-js coerces every field's arguments before resolving it, and for a field that takes none still builds two
 * null-prototype objects (dictionary-mode objects in V8) to answer a plain empty copy of one: the SDK's lineage query
 * resolves ~2,000 such fields for a page of 100, and executing it took 1.45-1.95 ms in-process before, 1.04-1.06 after.
 * A field without arguments now gets that plain empty object at once (validation has refused any argument sent to it).
 * Patched in the copy of graphql-js the service executes with: the one `graphql` resolves to.
 */
export function plainArgumentsForArgumentlessFields(): void {
  type Coercion = (def: { args: readonly unknown[] }, node: unknown, variables: unknown) => Record<string, unknown>;
  const values = createRequire(require.resolve('graphql'))('./execution/values.js') as { getArgumentValues: Coercion & { __argumentlessPatched?: true } };
  if (values.getArgumentValues.__argumentlessPatched) return;
  const coerce = values.getArgumentValues;
  const patched: Coercion = (def, node, variables) => (def.args.length === 0 ? {} : coerce(def, node, variables));
  values.getArgumentValues = Object.assign(patched, { __argumentlessPatched: true as const });
}

/** Root fields whose resolvers hand the token's revocation check to the lineage walk (graphql-lineage.ts). */
const WALKS_CHECK_TOKEN = new Set(['scrollAcrossLineage', 'searchAcrossLineage']);

/**
 * A query whose root fields are all lineage walks leaves the token's revocation check to their first statement (no
 * lookup of its own: a round trip and a Neo4j transaction fewer per request); any other operation starts the lookup
 * now, to run while it executes.
 */
const revocationCheckedByWalks: Plugin<GraphqlContext> = {
  onExecute({ args }) {
    const context = args.contextValue as GraphqlContext;
    const operation = getOperationAST(args.document, args.operationName ?? undefined);
    const walksOnly =
      operation?.operation === 'query' && operation.selectionSet.selections.every((s) => s.kind === Kind.FIELD && WALKS_CHECK_TOKEN.has(s.name.value));
    if (!walksOnly) context.revocation.confirm().catch(() => undefined);
  },
};

/**
 * A variable's "true" / "false" where a Boolean goes is read as the Boolean, as DataHub's GraphQL (graphql-java) reads
 * it: clients send `negated: "false"` in filters (DataHub's own structured-property smoke test does). graphql-js refuses
 * a string there, so such strings are turned into Booleans before the variables are coerced; nothing else changes.
 */
function lenientBooleans(value: unknown, type: GraphQLInputType): unknown {
  if (value === null || value === undefined) return value;
  if (isNonNullType(type)) return lenientBooleans(value, type.ofType);
  if (isListType(type)) return Array.isArray(value) ? value.map((v) => lenientBooleans(v, type.ofType)) : lenientBooleans(value, type.ofType);
  if (isInputObjectType(type) && typeof value === 'object' && !Array.isArray(value)) {
    const fields = type.getFields();
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fields[k] ? lenientBooleans(v, fields[k].type) : v]));
  }
  if (type === GraphQLBoolean && typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return value;
}

const booleanStrings: Plugin = {
  onExecute({ args }) {
    const variables = args.variableValues as Record<string, unknown> | null | undefined;
    const operation = getOperationAST(args.document, args.operationName ?? undefined);
    if (!variables || !operation?.variableDefinitions?.length) return;
    const lenient: Record<string, unknown> = { ...variables };
    for (const definition of operation.variableDefinitions) {
      const name = definition.variable.name.value;
      const type = typeFromAST(args.schema, definition.type as NamedTypeNode) as GraphQLInputType | undefined;
      if (type && name in lenient) lenient[name] = lenientBooleans(lenient[name], type);
    }
    args.variableValues = lenient;
  },
};

/**
 * Last in the list, so the execute function it sets is the one that runs (graphql-execution.ts). A mutation's writes
 * answer only once searchable, as DataHub's UI-sourced writes (search-sync.ts): a search right after it finds them.
 */
function executeWith(executor: QueryExecutor): Plugin {
  const searchableMutation: typeof executor.execute = (args) => writesSearchableIn(() => executor.execute(args));
  return {
    onExecute({ args, setExecuteFn }) {
      const mutation = getOperationAST(args.document, args.operationName ?? undefined)?.operation === 'mutation';
      setExecuteFn(mutation ? searchableMutation : executor.execute);
    },
  };
}

/**
 * Every response carries `extensions: {}`, as in the interface document. Yoga drops an empty `extensions` from error
 * responses while serializing, so the result brings its own serializer.
 */
const withExtensions = (result: ExecutionResult) => ({ ...result, extensions: result.extensions ?? {} });
const alwaysExtensions: Plugin = {
  onResultProcess({ result, setResult }) {
    if (Array.isArray(result) || Symbol.asyncIterator in result) return;
    setResult({ ...withExtensions(result), stringify: (r: ExecutionResult) => answerText(r, () => JSON.stringify(withExtensions(r))) });
  },
};

const REQUEST_ERRORS: Record<number, { exceptionClass: string; message: string }> = {
  400: { exceptionClass: 'InvalidInputError', message: 'Invalid GraphQL request' },
  405: { exceptionClass: 'MethodNotAllowedError', message: 'GraphQL only supports GET and POST requests' },
  406: { exceptionClass: 'InvalidInputError', message: 'Not acceptable: GraphQL answers application/json or application/graphql-response+json' },
  413: { exceptionClass: 'PayloadTooLargeError', message: 'Request body exceeds the configured limit' },
  415: { exceptionClass: 'InvalidInputError', message: 'Unsupported media type: send application/json' },
};

/**
 * Yoga answers requests it cannot run (unreadable body, wrong method or media type, bad variables) with a 4xx of its
 * own, sometimes without a body. Those get the service's common error body, with the GraphQL `errors` list kept beside
 * it for GraphQL clients and without the parser's internal `originalError`.
 */
function requestErrorBody(status: number, text: string) {
  let errors: { message?: unknown; extensions?: Record<string, unknown> }[] = [];
  try {
    const parsed = JSON.parse(text) as { errors?: unknown };
    if (Array.isArray(parsed.errors)) errors = parsed.errors;
  } catch {
    /* an empty or non-JSON answer */
  }
  errors = errors.map(({ extensions, ...rest }) => {
    const { originalError: _, ...kept } = extensions ?? {};
    return { ...rest, ...(extensions ? { extensions: kept } : {}) };
  });
  if (status >= 500) return { status, message: 'Internal server error', exceptionClass: 'InternalError', errors: [{ message: 'Internal server error' }], extensions: {} };
  const known = REQUEST_ERRORS[status] ?? { exceptionClass: 'InvalidInputError', message: 'Invalid GraphQL request' };
  const message = typeof errors[0]?.message === 'string' && errors[0].message !== '' ? errors[0].message : known.message;
  return { status, message, exceptionClass: known.exceptionClass, errors: errors.length > 0 ? errors : [{ message }], extensions: {} };
}

const BODY_TOO_LARGE = {
  status: 413,
  message: 'Request body too large',
  exceptionClass: 'PayloadTooLargeError',
  errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }],
  extensions: {},
};

/**
 * The request as Yoga reads it, a POST's body read here (UTF-8) within the body limit; null when it is above. Yoga's own
 * limit pipes every body through a web TransformStream into a second Request, and reading that took ~1 ms per request
 * (the SDK's lineage query); Yoga reads a body given as text at once.
 */
async function fetchRequest(ctx: Context, limit: number, fetchAPI: { Request: typeof Request; Headers: typeof Headers }): Promise<Request | null> {
  const headers = new fetchAPI.Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const url = `http://${ctx.host}${ctx.url}`;
  if (ctx.method !== 'POST') return new fetchAPI.Request(url, { method: ctx.method, headers });
  let body: string;
  try {
    const length = ctx.get('content-length');
    body = await getRawBody(ctx.req, { limit, length: length === '' ? undefined : length, encoding: 'utf-8' });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') return null;
    throw err;
  }
  return new fetchAPI.Request(url, { method: 'POST', headers, body });
}

/** What the schema's resolvers call. */
export interface GraphqlSchemaDependencies extends SearchGraphqlDependencies, AdminGraphqlDependencies, EntityGraphqlDependencies, IngestionGraphqlDependencies, DatasetGraphqlDependencies, AssertionGraphqlDependencies, DomainGraphqlDependencies {
  deprecation: DeprecationService;
  forms: FormAssignmentService;
  lineage: LineageService;
  tags: TagLabels;
  descriptions: Descriptions;
  owners: OwnersAndLinks;
  hierarchy: Hierarchy;
  timeline: TimelineService;
  dataProducts: DataProducts;
  groups: Groups;
  views: Views;
}

export interface GraphqlDependencies extends GraphqlSchemaDependencies {
  auth: Authenticator;
  bodyLimitBytes: number;
  logger: Logger;
  /** LINEAGE_ANSWER_CACHE_SIZE: bytes of lineage answers kept for queries asked again (0: none). */
  lineageAnswerCacheBytes?: number;
}

/** The executable schema: the service's types and resolvers (lineage, search, deprecation, form assignment, job runs, tokens, tags and terms, owners and links, dataset schemas, entities by urn, ingestion sources, operations, assertions, domains). */
export function graphqlSchema(deps: GraphqlSchemaDependencies) {
  const lineage = lineageResolvers(deps.lineage);
  return createSchema<GraphqlContext>({
    typeDefs: [typeDefs, lineageTypeDefs, searchTypeDefs(deps.search.names), adminTypeDefs, labelTypeDefs, datasetTypeDefs, entityTypeDefs, ingestionTypeDefs, assertionTypeDefs(deps.registry), domainTypeDefs, ownershipTypeDefs(deps.registry), hierarchyTypeDefs(deps.registry), timelineTypeDefs, dataProductTypeDefs, groupTypeDefs, viewTypeDefs],
    // Merged in order: the search module's entity fields extend (and for shared types override) the lineage ones.
    resolvers: [
      {
        Long,
        ...lineage,
        Query: {
          dataset: (_: unknown, args: { urn: string }) => deps.deprecation.dataset(args.urn),
          ...lineage.Query,
        },
        Mutation: {
          updateDeprecation: (_: unknown, args: { input: { urn: string } & DeprecationChange }, ctx: GraphqlContext) =>
            deps.deprecation.updateDeprecation(args.input, ctx.principal),
          batchUpdateDeprecation: (_: unknown, args: { input: DeprecationChange & { resources: ResourceRef[] } }, ctx: GraphqlContext) =>
            deps.deprecation.batchUpdateDeprecation(args.input, ctx.principal),
          batchAssignForm: (_: unknown, args: { input: { formUrn: string; entityUrns: string[] } }, ctx: GraphqlContext) =>
            deps.forms.batchAssignForm(args.input, ctx.principal),
        },
      },
      searchResolvers(deps),
      adminResolvers(deps),
      labelResolvers(deps),
      datasetResolvers(deps),
      entityResolvers(deps),
      ingestionResolvers(deps),
      assertionResolvers(deps),
      domainResolvers(deps),
      ownershipResolvers(deps),
      hierarchyResolvers(deps),
      timelineResolvers(deps),
      dataProductResolvers(deps),
      groupResolvers(deps),
      viewResolvers(deps),
    ],
  });
}

/**
 * The GraphQL endpoint (GraphQL Yoga), mounted before the JSON body parser: it reads its body as text and Yoga parses
 * it. Every call needs a token: read for queries, write for mutations. A missing or bad token (401) and a missing scope
 * (403) are answered before any resolver runs, with the same JSON error body as every other endpoint.
 */
export function graphqlMiddleware(deps: GraphqlDependencies): Middleware {
  const log = deps.logger.child({ component: 'graphql' });
  plainArgumentsForArgumentlessFields();
  const yoga = createYoga<GraphqlContext>({
    graphqlEndpoint: '/api{/v2}?/graphql',
    schema: graphqlSchema(deps),
    graphiql: false,
    landingPage: false,
    // Same policy as every other endpoint: no CORS headers.
    cors: false,
    batching: false,
    // Enforced where the body is read (fetchRequest).
    maxRequestBodySize: false,
    maskedErrors: { maskError: maskError(log) },
    logging: {
      debug: (...args: unknown[]) => log.debug(args.map(String).join(' ')),
      info: (...args: unknown[]) => log.info(args.map(String).join(' ')),
      warn: (...args: unknown[]) => log.warn(args.map(String).join(' ')),
      error: (...args: unknown[]) => log.error(args.map(String).join(' ')),
    },
    plugins: [
      // Introspection stays allowed (and is exempt from depth and cost limits); field suggestions are kept.
      EnvelopArmorPlugin({
        maxDepth: { n: 15 },
        // The official `datahub search` CLI query (every entity type's fields, as DataHub's UI fragments select them) costs
        // ~19,000 and nests 12 deep (inline fragments count).
        costLimit: { maxCost: 50000 },
        maxAliases: { n: 15 },
        maxDirectives: { n: 20 },
        maxTokens: { n: 2000 },
        blockFieldSuggestion: { enabled: false },
      }),
      revocationCheckedByWalks,
      mutationsNeedWrite,
      alwaysExtensions,
      booleanStrings,
      executeWith(new QueryExecutor(undefined, deps.lineageAnswerCacheBytes ? new WalkAnswers(deps.lineageAnswerCacheBytes) : null)),
    ],
  });

  return async (ctx: Context, next) => {
    if (!GRAPHQL_PATHS.includes(ctx.path)) return next();
    // Every valid token carries read; mutations are checked for write once parsed (mutationsNeedWrite). The token's
    // revocation is checked while the operation runs (revocationCheckedByWalks); nothing is answered before it is known.
    const { principal, revocation } = await deps.auth.authorizeWrite(ctx, 'read');
    const context: GraphqlContext = { principal, revocation, denial: { error: null } };
    let response: Response;
    try {
      const request = await fetchRequest(ctx, deps.bodyLimitBytes, yoga.fetchAPI);
      if (!request) {
        ctx.status = 413;
        ctx.body = BODY_TOO_LARGE;
        return;
      }
      response = await yoga.handleRequest(request, context);
    } finally {
      // A revoked token is refused as such, whatever the query did meanwhile (looked up now unless a walk checked it).
      await revocation.confirm();
    }
    if (context.denial.error) throw context.denial.error;
    if (response.status >= 400) {
      ctx.status = response.status;
      ctx.body = requestErrorBody(response.status, await response.text());
      return;
    }
    ctx.status = response.status;
    response.headers.forEach((value, key) => {
      if (key !== 'content-length') ctx.set(key, value);
    });
    ctx.body = await response.text();
  };
}
