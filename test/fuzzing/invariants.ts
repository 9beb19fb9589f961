import type { FuzzRequest } from './generate';

/** What came back for one request (or that nothing did). */
export interface Outcome {
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
  /** `timeout` after the per-request limit; `network` when the connection failed without an answer. */
  failure?: 'timeout' | 'network';
  error?: string;
}

/** Internals that must never reach a client: stack frames, source paths, driver and engine error names, our Cypher. */
const LEAKS: [string, RegExp][] = [
  ['stack trace', /\n\s+at [\w$.<>[\] ]+ \(|\bat (?:async )?[\w$.<>]+ \((?:node:|file:|\/)[^)]*:\d+:\d+\)/],
  ['source path', /\/(?:work|home|usr|opt|root)\/[\w.-]+\/[\w./-]*|node_modules\/|\/src\/[\w/.-]+\.[jt]s\b|\b[\w-]+\.(?:ts|js|mjs|cjs):\d+/],
  ['Neo4j internals', /\bNeo4jError\b|\bNeo\.(?:ClientError|TransientError|DatabaseError)\.|\bbolt:\/\/|neo4j-driver|Neo4jError/],
  ['Cypher', /\b(?:MATCH|MERGE|OPTIONAL MATCH|CREATE|DETACH DELETE|UNWIND|WITH)\b[^\n]{0,80}\(\w*:(?:Entity|Aspect|Outbox|RevokedToken)\b|\$revFloor|\$edgeKeys|\bCALL \(\w+(?:, ?\w+)*\) \{/],
  [
    'search engine internals',
    /search_phase_execution_exception|query_shard_exception|x_content_parse_exception|illegal_argument_exception|index_not_found_exception|json_parse_exception|parsing_exception|too_many_clauses|TooComplexToDeterminize|\bcaused_by\b|\broot_cause\b|ResponseError|ConnectionError|opensearch-project|@elastic\//,
  ],
  ['JavaScript internals', /\b(?:TypeError|ReferenceError|RangeError|Maximum call stack size exceeded|Cannot read propert(?:y|ies) of|is not a function|is not iterable|undefined is not)\b/],
];

export interface Violation {
  index: number;
  endpoint: string;
  kind: string;
  reason: string;
  status: number | null;
  /** The start of the response body. */
  body: string;
}

/** Every string of a JSON value (to look for leaks in decoded text, not in JSON escapes). */
function stringsOf(value: unknown): string[] {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) stack.push(...v.slice(0, 100_000));
    else if (v && typeof v === 'object') for (const [k, child] of Object.entries(v)) out.push(k), stack.push(child);
  }
  return out;
}

/** The request as text in several decodings, so a leak pattern the client itself sent counts as an echo. */
function requestText(req: FuzzRequest): string {
  const parts = [req.path, Object.values(req.headers).join('\n')];
  try {
    parts.push(decodeURIComponent(req.path.replace(/\+/g, ' ')));
  } catch {
    parts.push(unescape(req.path));
  }
  if (req.body) {
    const text = req.body.toString('utf8');
    parts.push(text);
    try {
      parts.push(...stringsOf(JSON.parse(text)));
    } catch {
      /* not JSON */
    }
  }
  return parts.join('\n');
}

function leaksIn(texts: string[], req: FuzzRequest, errorBody: boolean): string[] {
  let echo: string | undefined;
  const found: string[] = [];
  for (const [name, pattern] of LEAKS) {
    // Outside error bodies, only leaks the fuzzer never writes itself (stored values come back in 2xx bodies).
    if (!errorBody && !['stack trace', 'source path'].includes(name)) continue;
    for (const text of texts) {
      const match = pattern.exec(text);
      if (!match) continue;
      echo ??= requestText(req);
      if (echo.includes(match[0])) continue;
      found.push(`${name}: ${JSON.stringify(match[0].slice(0, 120))}`);
      break;
    }
  }
  return found;
}

const GRAPHQL_PATH = /^(?:\/gms)?\/api(?:\/v2)?\/graphql\/?(?:\?|$)/;

/**
 * The invariants of one response: an answer within the time limit, never a 5xx, for 4xx the JSON error body
 * {status, message, exceptionClass} with status = the HTTP status, and no internals in any body.
 */
export function checkResponse(req: FuzzRequest, out: Outcome): string[] {
  if (out.failure === 'timeout') return [`no answer within the time limit (${Math.round(out.ms)} ms)`];
  if (out.failure === 'network') return [`connection failed without an answer: ${out.error}`];
  const status = out.status!;
  const problems: string[] = [];
  if (status >= 500) problems.push(`HTTP ${status}`);
  const text = out.body.toString('utf8');
  const contentType = String(out.headers['content-type'] ?? '');
  const hasBody = req.method !== 'HEAD' && status !== 204 && status !== 304;
  let parsed: unknown;
  let isJson = false;
  if (hasBody && /json/.test(contentType)) {
    try {
      parsed = JSON.parse(text);
      isJson = true;
    } catch {
      problems.push('body is not valid JSON although the content type says so');
    }
  }
  if (status >= 400 && hasBody) {
    const body = parsed as Record<string, unknown> | undefined;
    if (!isJson || !body || typeof body !== 'object' || Array.isArray(body)) {
      problems.push(`error body is not a JSON object (content-type ${JSON.stringify(contentType)}, ${out.body.length} bytes)`);
    } else {
      if (body.status !== status) problems.push(`error body status ${JSON.stringify(body.status)} differs from HTTP ${status}`);
      if (typeof body.message !== 'string' || body.message === '') problems.push('error body has no message');
      if (typeof body.exceptionClass !== 'string' || body.exceptionClass === '') problems.push('error body has no exceptionClass');
      // GraphQL errors may also carry the GraphQL `errors` list and `extensions`; nothing else anywhere.
      const allowed = GRAPHQL_PATH.test(req.path) ? ['status', 'message', 'exceptionClass', 'errors', 'extensions'] : ['status', 'message', 'exceptionClass'];
      const extra = Object.keys(body).filter((k) => !allowed.includes(k));
      if (extra.length > 0) problems.push(`error body has extra fields: ${extra.join(', ')}`);
    }
  }
  if (status >= 200 && status < 300 && hasBody && !isJson && !/text\/html/.test(contentType)) {
    problems.push(`2xx body is neither JSON nor the HTML docs page (content-type ${JSON.stringify(contentType)})`);
  }
  // GraphQL reports resolver failures inside a 200: an internal one there is a 5xx in disguise.
  const graphqlErrors = GRAPHQL_PATH.test(req.path) && isJson ? (parsed as { errors?: unknown }).errors : undefined;
  if (Array.isArray(graphqlErrors)) {
    for (const e of graphqlErrors as { message?: unknown; extensions?: { code?: unknown; type?: unknown } }[]) {
      const code = e?.extensions?.code;
      if (code === 500 || code === 'INTERNAL_SERVER_ERROR' || e?.extensions?.type === 'SERVER_ERROR' || e?.message === 'Unexpected error.') {
        problems.push(`GraphQL internal error: ${JSON.stringify(e?.message).slice(0, 200)}`);
      }
    }
  }
  if (hasBody) {
    problems.push(...leaksIn(isJson ? stringsOf(parsed) : [text], req, status >= 400));
    if (Array.isArray(graphqlErrors) && status < 400) problems.push(...leaksIn(stringsOf(graphqlErrors), req, true));
  }
  return problems;
}
