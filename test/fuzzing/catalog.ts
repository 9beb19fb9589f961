import type { OpenApiDocument, OpenApiOperation, OpenApiParameter } from '../../src/http/openapi';

/** One operation of the service, as its OpenAPI document (`GET /rpc/openapi.json`) describes it. */
export interface Endpoint {
  /** `POST /entities?action=search`: the label of per-endpoint counts. */
  label: string;
  operationId: string;
  method: string;
  /** OpenAPI path template without the action, e.g. `/entitiesV2/{urn}`. */
  template: string;
  action?: string;
  pathParams: string[];
  queryParams: OpenApiParameter[];
  bodySchema?: Record<string, unknown>;
  exampleRequest?: unknown;
  scope: 'none' | 'read' | 'write' | 'admin';
  tokenOptional: boolean;
  /** Writes when it succeeds (its 2xx responses are attributed to the run). */
  writes: boolean;
}

const WRITING = new Set(['ingestProposal', 'ingestProposalBatch', 'ingestSnapshot', 'deleteEntity', 'evaluateTests', 'graphql', 'restoreIndices', 'truncateTimeseriesAspect', 'applyRetention']);

/** Every operation of the document, in document order. */
export function endpointsOf(doc: OpenApiDocument): Endpoint[] {
  const endpoints: Endpoint[] = [];
  for (const [key, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item) as [string, OpenApiOperation][]) {
      const [template, action] = key.split('?action=');
      const parameters = op.parameters ?? [];
      const body = op.requestBody?.content['application/json'];
      endpoints.push({
        label: `${method.toUpperCase()} ${key}`,
        operationId: op.operationId,
        method: method.toUpperCase(),
        template,
        action: op['x-rpc']?.action ?? action,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query'),
        bodySchema: body?.schema,
        exampleRequest: body?.example,
        scope: op['x-required-scope'],
        tokenOptional: op['x-token-optional'],
        writes: WRITING.has(op.operationId),
      });
    }
  }
  return endpoints;
}

/** The request path of an endpoint with its path parameters (raw, already encoded) and query pairs (raw). */
export function buildPath(e: Endpoint, pathValues: Record<string, string>, query: [string, string][]): string {
  let path = e.template.replace(/\{(\w+)\}/g, (_, name: string) => pathValues[name] ?? '');
  const pairs: string[] = [];
  if (e.action !== undefined) pairs.push(`action=${encodeURIComponent(e.action)}`);
  for (const [name, value] of query) pairs.push(value === '\u0000novalue' ? name : `${name}=${value}`);
  if (pairs.length > 0) path += `?${pairs.join('&')}`;
  return path;
}
