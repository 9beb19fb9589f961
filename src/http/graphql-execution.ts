import { execute, getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { DomainError } from '../model/errors';

/**
 * Mutations, subscriptions and a query's first run execute on graphql-js's own `execute` rather than Yoga's
 * (@graphql-tools/executor, built for incremental delivery, which nothing here serves): answering the SDK's lineage
 * query for a page of 100 from a hub took ~1.7 ms less per request and ~7 % less of the service's CPU (medians of 8
 * alternating runs). A result without data is a request error (variables that cannot be coerced, no operation to run):
 * its errors say 400 as Yoga's executor marks them, so Yoga answers 400.
 */
export function executeAnsweringRequestErrors(args: ExecutionArgs): ReturnType<typeof execute> {
  const result = execute(args);
  if (result instanceof Promise || 'data' in result) return result;
  for (const error of result.errors ?? []) {
    Object.defineProperty(error, 'extensions', { value: { ...error.extensions, http: { ...(error.extensions.http as object | undefined), status: 400 } } });
  }
  return result;
}

/** Runs of one query document before it is compiled: a query sent once is not worth compiling (~10 ms). */
export const COMPILE_AT_RUN = 2;

interface CompiledOperation {
  runs: number;
  /** null until compiled, or when graphql-jit cannot compile it (then graphql-js runs it). */
  compiled: CompiledQuery | null;
}

/**
 * A query document that is run again is compiled (graphql-jit) into a function that resolves the same fields without
 * graphql-js's per-field interpretation: the SDK's lineage query for a page of 100 costs 0.64-0.67 ms of CPU instead
 * of 1.2-1.6 (execution and serialization, bench/graphql-execution.ts). Yoga's parse cache hands the same document object to
 * every request with the same text, so compiled operations live as long as their document does.
 *
 * graphql-js stays the reference for every answer that is not plain data: an answer with errors other than the
 * service's own (a root resolver's DomainError, which both executors report alike) is answered by running the query
 * again on graphql-js. Queries only read, so running one twice changes nothing; variables that cannot be coerced fail there
 * before any resolver runs. Mutations and subscriptions always run on graphql-js.
 */
export class QueryExecutor {
  private readonly operations = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, CompiledOperation>>>();

  /** `interpret`: graphql-js, for everything not compiled and every answer the compiled query does not give alike. */
  constructor(private readonly interpret: (args: ExecutionArgs) => ReturnType<typeof execute> = executeAnsweringRequestErrors) {}

  readonly execute = (args: ExecutionArgs): ReturnType<typeof execute> => {
    const operation = getOperationAST(args.document, args.operationName ?? undefined);
    if (operation?.operation !== 'query') return this.interpret(args);
    const compiled = this.compiledFor(args);
    if (!compiled) return this.interpret(args);
    const settle = (result: ExecutionResult): ExecutionResult | Promise<ExecutionResult> => {
      if (!answeredAsGraphqlJs(result)) return this.interpret(args);
      // graphql-js's errors, in graphql-js's key order (which the answer is serialized in).
      return result.errors ? { errors: result.errors.map(asGraphqlJsError), data: result.data } : result;
    };
    // A compiled query that fails outright (a defect of the compiler) is answered by graphql-js too.
    const interpreted = () => this.interpret(args);
    let result: ReturnType<CompiledQuery['query']>;
    try {
      result = compiled.query(args.rootValue, args.contextValue, args.variableValues);
    } catch {
      return interpreted();
    }
    return result instanceof Promise ? result.then(settle, interpreted) : settle(result as ExecutionResult);
  };

  private compiledFor(args: ExecutionArgs): CompiledQuery | null {
    let byDocument = this.operations.get(args.schema);
    if (!byDocument) this.operations.set(args.schema, (byDocument = new WeakMap()));
    let byName = byDocument.get(args.document);
    if (!byName) byDocument.set(args.document, (byName = new Map()));
    const name = args.operationName ?? '';
    let entry = byName.get(name);
    if (!entry) byName.set(name, (entry = { runs: 0, compiled: null }));
    entry.runs++;
    if (entry.runs === COMPILE_AT_RUN) {
      try {
        const compiled = compileQuery(args.schema, args.document, args.operationName ?? undefined);
        entry.compiled = isCompiledQuery(compiled) ? compiled : null;
      } catch {
        entry.compiled = null;
      }
    }
    return entry.compiled;
  }
}

/**
 * Data only, or errors the service's root resolvers raised (reported alike by both executors: message, locations,
 * path; a root field's null needs no propagating). One raised deeper is left to graphql-js with everything else.
 */
function answeredAsGraphqlJs(result: ExecutionResult): boolean {
  if (!('data' in result)) return false;
  return (result.errors ?? []).every((error) => error.originalError instanceof DomainError && error.path?.length === 1);
}

/**
 * The error graphql-js builds for a resolver's error (`locatedError`), at the compiled query's locations: graphql-jit's
 * own error objects have properties that cannot be redefined, which the error mask does (graphql.ts maskError).
 */
function asGraphqlJsError(error: GraphQLError): GraphQLError {
  const rebuilt = new GraphQLError(error.message, { path: error.path, originalError: error.originalError });
  (rebuilt as { locations: GraphQLError['locations'] }).locations = error.locations;
  return rebuilt;
}
