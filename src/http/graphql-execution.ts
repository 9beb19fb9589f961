import { execute, getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { DomainError } from '../model/errors';
import { answerableFromWalk, type WalkAnswers, type WalkAnswerSlot } from './graphql-walk-answers';

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
  /** Under which the answers of a query answerable from its walk are kept (graphql-walk-answers.ts); null otherwise. */
  answersKey: string | null;
}

/** The request's context as the executor sees it: where a lineage walk's resolver finds its slot in the answers kept. */
export interface WalkAnswerContext {
  walkAnswer?: WalkAnswerSlot;
}

/**
 * The text a result is answered with (Yoga's `stringify`, graphql.ts): the answer kept for it, or its serialization,
 * kept when the result says so.
 */
export const ANSWER_TEXT = Symbol('answer text');
export interface AnswerText {
  [ANSWER_TEXT]?: { kept: string } | { keep: (text: string) => void };
}

export function answerText(result: ExecutionResult & AnswerText, serialize: () => string): string {
  const answer = result[ANSWER_TEXT];
  if (answer && 'kept' in answer) return answer.kept;
  const text = serialize();
  answer?.keep(text);
  return text;
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

  private compiledCount = 0;

  /**
   * `interpret`: graphql-js, for everything not compiled and every answer the compiled query does not give alike.
   * `answers`: where answers of lineage queries asked again are kept (none: never kept).
   */
  constructor(
    private readonly interpret: (args: ExecutionArgs) => ReturnType<typeof execute> = executeAnsweringRequestErrors,
    private readonly answers: WalkAnswers | null = null,
  ) {}

  readonly execute = (args: ExecutionArgs): ReturnType<typeof execute> => {
    const operation = getOperationAST(args.document, args.operationName ?? undefined);
    if (operation?.operation !== 'query') return this.interpret(args);
    const entry = this.compiledFor(args);
    const compiled = entry?.compiled;
    if (!compiled) return this.interpret(args);
    const slot = this.slotFor(entry, args);
    // A compiled query that fails outright (a defect of the compiler) is answered by graphql-js too, which builds its
    // answer whole: the walk's resolver finds no slot then.
    const interpreted = () => {
      if (slot) delete (args.contextValue as WalkAnswerContext).walkAnswer;
      return this.interpret(args);
    };
    const settle = (result: ExecutionResult): ExecutionResult | Promise<ExecutionResult> => {
      if (slot?.hit !== undefined && !result.errors) return { data: result.data, [ANSWER_TEXT]: { kept: slot.hit } } as ExecutionResult;
      if (!answeredAsGraphqlJs(result)) return interpreted();
      // graphql-js's errors, in graphql-js's key order (which the answer is serialized in).
      if (result.errors) return { errors: result.errors.map(asGraphqlJsError), data: result.data };
      if (slot?.fingerprint !== undefined) {
        const { answers, key, fingerprint } = slot;
        return { ...result, [ANSWER_TEXT]: { keep: (text: string) => answers.keep(key, fingerprint, text) } } as ExecutionResult;
      }
      return result;
    };
    let result: ReturnType<CompiledQuery['query']>;
    try {
      result = compiled.query(args.rootValue, args.contextValue, args.variableValues);
    } catch {
      return interpreted();
    }
    return result instanceof Promise ? result.then(settle, interpreted) : settle(result as ExecutionResult);
  };

  /** The request's slot in the answers kept, for a compiled query answerable from its walk (none otherwise). */
  private slotFor(entry: CompiledOperation, args: ExecutionArgs): WalkAnswerSlot | null {
    const context = args.contextValue as WalkAnswerContext | null | undefined;
    if (!this.answers || entry.answersKey === null || !context || typeof context !== 'object') return null;
    const slot: WalkAnswerSlot = { answers: this.answers, key: `${entry.answersKey}\n${JSON.stringify(args.variableValues ?? {})}` };
    context.walkAnswer = slot;
    return slot;
  }

  private compiledFor(args: ExecutionArgs): CompiledOperation | null {
    let byDocument = this.operations.get(args.schema);
    if (!byDocument) this.operations.set(args.schema, (byDocument = new WeakMap()));
    let byName = byDocument.get(args.document);
    if (!byName) byDocument.set(args.document, (byName = new Map()));
    const name = args.operationName ?? '';
    let entry = byName.get(name);
    if (!entry) byName.set(name, (entry = { runs: 0, compiled: null, answersKey: null }));
    entry.runs++;
    if (entry.runs === COMPILE_AT_RUN) {
      try {
        const compiled = compileQuery(args.schema, args.document, args.operationName ?? undefined);
        entry.compiled = isCompiledQuery(compiled) ? compiled : null;
      } catch {
        entry.compiled = null;
      }
      if (entry.compiled && this.answers && answerableFromWalk(args.schema, args.document, args.operationName ?? undefined)) entry.answersKey = `q${++this.compiledCount}`;
    }
    return entry;
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
