import { InvalidInputError, UnavailableError } from '../../model/errors';

/**
 * The search seam: the operations the rest of the service needs from a search engine. Two adapters implement it
 * (OpenSearch and Elasticsearch) and send the same request bodies; only client plumbing differs.
 */
export type EngineName = 'opensearch' | 'elasticsearch';

export type Body = Record<string, unknown>;

export interface SearchHit {
  id: string;
  index: string;
  score: number | null;
  source: Record<string, unknown>;
  highlight?: Record<string, string[]>;
  sort?: unknown[];
}

export interface SearchResult {
  total: number;
  hits: SearchHit[];
  aggregations?: Record<string, unknown>;
}

/** `version` makes the write conditional (external_gte): an older revision never overwrites a newer one. */
export type BulkOperation =
  /** `requireAlias`: fail (index_not_found_exception) rather than auto-create an index when `index` is not an alias. */
  | { op: 'index'; index: string; id: string; doc: Record<string, unknown>; version?: number; requireAlias?: boolean }
  | { op: 'delete'; index: string; id: string; version?: number };

/** One search of a multi-search: `ignoreUnavailable` answers a missing index with no hits instead of an error. */
export interface MultiSearchRequest {
  index: string;
  body: Body;
  ignoreUnavailable?: boolean;
}

export interface BulkItemResult {
  id: string;
  index: string;
  ok: boolean;
  /** A newer revision is already indexed. */
  superseded: boolean;
  status: number;
  error?: string;
}

export interface TaskInfo {
  completed: boolean;
  node: string;
  id: number;
  runningTimeNanos: number;
  status: Record<string, unknown>;
  response?: Record<string, unknown>;
  error?: Record<string, unknown>;
}

export interface LongRunningOptions {
  waitForCompletion: boolean;
  /** Documents per scroll batch. */
  batchSize?: number;
  timeoutSeconds?: number;
  refresh?: boolean;
}

export interface SearchEngine {
  readonly engine: EngineName;
  ping(timeoutMs: number): Promise<void>;
  /** Whether the engine has the reindex module (reindex, delete-by-query, update-by-query). */
  supportsReindex(): Promise<boolean>;
  indexExists(index: string): Promise<boolean>;
  /** Creates the index; a concurrent or earlier creation is not an error. */
  createIndex(index: string, definition: { settings?: Body; mappings?: Body; aliases?: Body }): Promise<void>;
  putMapping(index: string, mappings: Body): Promise<void>;
  /** Deletes indices by name or pattern; missing ones are ignored. */
  deleteIndex(index: string): Promise<void>;
  refresh(index: string): Promise<void>;
  /** Aliases matching a name or pattern, each with the concrete indices behind it (empty when none match). */
  getAliases(pattern: string): Promise<Map<string, { index: string; isWriteIndex: boolean }[]>>;
  /** Applies alias actions (`add`, `remove`, `remove_index`) atomically. */
  updateAliases(actions: Body[]): Promise<void>;
  /** Makes an index read-only; returns once writes already in flight have completed. */
  blockWrites(index: string): Promise<void>;
  /** The mapping `_meta` of each concrete index behind a name or pattern. */
  getMappingMeta(index: string): Promise<Map<string, Body>>;
  /** The mapping of each concrete index behind a name or pattern (empty when none exists). */
  getMappings(index: string): Promise<Map<string, Body>>;
  listIndices(pattern: string): Promise<{ index: string; sizeBytes: number; docs: number }[]>;
  bulk(operations: BulkOperation[], refresh?: boolean): Promise<BulkItemResult[]>;
  search(index: string, body: Body): Promise<SearchResult>;
  /** Several searches in one request; each answers its result or its error (translated as a single search's would be). */
  msearch(requests: MultiSearchRequest[]): Promise<(SearchResult | Error)[]>;
  count(index: string, query?: Body): Promise<number>;
  deleteByQuery(index: string, query: Body, options: LongRunningOptions): Promise<{ task?: string; deleted?: number }>;
  reindex(body: Body, options: LongRunningOptions): Promise<{ task?: string; created?: number }>;
  /** null when the engine knows no such task. */
  getTask(taskId: string): Promise<TaskInfo | null>;
  close(): Promise<void>;
}

interface EngineErrorLike {
  name?: string;
  message?: string;
  meta?: { statusCode?: number; body?: unknown };
  body?: unknown;
}

function rootCauseType(body: unknown): string {
  const error = (body as { error?: { type?: string; root_cause?: { type?: string }[]; caused_by?: { type?: string } } })?.error;
  return [error?.type, ...(error?.root_cause ?? []).map((c) => c.type), error?.caused_by?.type].filter(Boolean).join(' ');
}

/**
 * Maps client errors to domain errors: unreachable engine → 503, a query the engine cannot parse → 400.
 * Engine internals (index names, stack traces) never reach the caller.
 */
export function translateEngineError(err: unknown): unknown {
  const e = err as EngineErrorLike;
  if (['ConnectionError', 'TimeoutError', 'NoLivingConnectionsError'].includes(e.name ?? '')) {
    return new UnavailableError('The search engine is unavailable', 'search');
  }
  const status = e.meta?.statusCode;
  // A query that expands to more clauses than the engine allows is the input's doing, whatever status the engine gives
  // it (OpenSearch answers too_many_nested_clauses inside a multi-search with 500).
  if (/too_many_(nested_)?clauses/.test(rootCauseType(e.meta?.body ?? e.body))) {
    return new InvalidInputError('The search input is too complex: it expands to more clauses than the search engine allows (1,024); search with fewer terms');
  }
  if (status === 429 || status === 502 || status === 503 || status === 504) {
    return new UnavailableError('The search engine is unavailable', 'search');
  }
  if (status === 400) {
    const types = rootCauseType(e.meta?.body ?? e.body);
    if (/parse_exception|parsing_exception|query_shard_exception|search_phase_execution_exception|too_many_clauses|illegal_argument|number_format_exception/.test(types)) {
      return new InvalidInputError('The search query could not be parsed');
    }
  }
  return err;
}
