import type Router from '@koa/router';
import type { Scope } from '../auth';
import type { RouteDefinition, Schema } from './route';
import { listRegisteredOperations, type RegisteredOperation } from './rpc';

const VERSION: string = require('../../package.json').version;

export const OPENAPI_PATH = '/rpc/openapi.json';
export const DOCS_PATH = '/rpc/docs';

/**
 * Action routes share a path (`POST /entities?action=search`, `…?action=browse`). Each action gets its own path key
 * `/entities?action=search`: one operation per action with its own body schema, example and scope, which OpenAPI tools
 * accept as distinct paths (and a client that appends the key to the server URL sends exactly the right request).
 */
export const ACTION_SEPARATOR = '?action=';

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description?: string;
  schema: Schema;
  style?: 'form';
  explode?: boolean;
}

export interface OpenApiOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: { 'application/json': { schema: Schema; example?: unknown } } };
  responses: Record<string, { description: string; content?: Record<string, { schema?: Schema; example?: unknown }> } | { $ref: string }>;
  /** `[{}]` alternatives mean "no token needed". */
  security: Array<Record<string, string[]>>;
  /** The scope a presented token must carry, or `none`. */
  'x-required-scope': Scope | 'none';
  /** True when the route needs no token unless tokens are required everywhere (src/auth/exposure.ts). */
  'x-token-optional': boolean;
  /** The koa method, path and action the router dispatches on (absent on non-RPC endpoints). */
  'x-rpc'?: { method: string; path: string; action?: string };
  /** Endpoints that are not RPC route definitions (health, config, GraphQL, these docs). */
  'x-non-rpc'?: true;
}

export type HttpMethodKey = 'get' | 'post' | 'delete' | 'patch' | 'head';

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string; description: string }>;
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Partial<Record<HttpMethodKey, OpenApiOperation>>>;
  components: {
    schemas: Record<string, Schema>;
    responses: Record<string, { description: string; content: Record<string, { schema: Schema; example?: unknown }> }>;
    securitySchemes: Record<string, Record<string, unknown>>;
  };
}

/** An endpoint served by the HTTP app that is not an RPC RouteDefinition. */
interface NonRpcEndpoint {
  method: 'GET' | 'POST';
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  scope: Scope | 'none';
  /** Needs no token even when AUTH_REQUIRED_EVERYWHERE is set. */
  alwaysOpen?: boolean;
  parameters?: OpenApiParameter[];
  body?: Schema;
  example?: { request?: unknown; response: unknown };
  responseType?: string;
}

const NON_RPC_ENDPOINTS: NonRpcEndpoint[] = [
  {
    method: 'GET',
    path: '/health',
    operationId: 'health',
    tag: 'Service',
    summary: 'Health of the service and each backend (503 when one is down)',
    scope: 'none',
    alwaysOpen: true,
    example: { response: { status: 'UP', service: { status: 'UP' }, neo4j: { status: 'UP' }, search: { status: 'UP', engine: 'opensearch' } } },
  },
  {
    method: 'GET',
    path: '/config',
    operationId: 'config',
    tag: 'Service',
    summary: 'Server configuration, as the official client reads it on connect',
    scope: 'none',
    alwaysOpen: true,
    example: { response: { noCode: 'true', versions: { 'graph-metadata-service': { version: VERSION, commit: 'abc1234' } }, retention: 'true', timeZone: 'GMT' } },
  },
  {
    method: 'POST',
    path: '/api/graphql',
    operationId: 'graphql',
    tag: 'GraphQL',
    summary: 'GraphQL: dataset deprecation query, updateDeprecation and batchUpdateDeprecation mutations',
    description:
      'Also answered at `/api/v2/graphql`. Queries need a token with the read scope, mutations the write scope. GraphQL ' +
      'errors come back with HTTP 200 in the `errors` list; authentication failures use the common error body.',
    scope: 'read',
    body: {
      type: 'object',
      required: ['query'],
      properties: { query: { type: 'string' }, variables: { type: ['object', 'null'] }, operationName: { type: ['string', 'null'] } },
    },
    example: {
      request: {
        query: 'mutation update($input: UpdateDeprecationInput!) { updateDeprecation(input: $input) }',
        variables: { input: { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)', deprecated: true } },
      },
      response: { data: { updateDeprecation: true }, extensions: {} },
    },
  },
  {
    method: 'GET',
    path: DOCS_PATH,
    operationId: 'rpcDocs',
    tag: 'Documentation',
    summary: 'This documentation as an HTML page',
    scope: 'none',
    alwaysOpen: true,
    parameters: [{ name: 'q', in: 'query', required: false, description: 'Show only endpoints matching these words (what the search box does without JavaScript)', schema: { type: 'string' } }],
    responseType: 'text/html',
  },
  {
    method: 'GET',
    path: OPENAPI_PATH,
    operationId: 'rpcOpenApi',
    tag: 'Documentation',
    summary: 'This OpenAPI 3.1 document',
    scope: 'none',
    alwaysOpen: true,
  },
];

const ERROR_BODY: Schema = {
  type: 'object',
  required: ['status', 'message', 'exceptionClass'],
  properties: {
    status: { type: 'integer', description: 'The HTTP status, repeated' },
    message: { type: 'string', description: 'What went wrong, for people (the official client shows it)' },
    exceptionClass: {
      type: 'string',
      description: 'The error kind',
      examples: ['InvalidInputError', 'ValidationError', 'NotFoundError', 'UnauthorizedError', 'ForbiddenError', 'UnavailableError'],
    },
  },
};

const ERROR_RESPONSES: Record<string, { status: number; description: string; exceptionClass: string; message: string }> = {
  BadRequest: { status: 400, description: 'Invalid input: unknown action, bad parameters or body', exceptionClass: 'InvalidInputError', message: "Invalid request body: body is missing required field 'urn'" },
  Unauthorized: { status: 401, description: 'Missing, invalid, expired or revoked token', exceptionClass: 'UnauthorizedError', message: "Missing access token: send the header 'Authorization: Bearer <token>'" },
  Forbidden: { status: 403, description: 'The token lacks the scope this endpoint needs', exceptionClass: 'ForbiddenError', message: "The access token of urn:li:corpuser:jdoe lacks scope 'write' (it has: read)" },
  NotFound: { status: 404, description: 'The entity or aspect does not exist', exceptionClass: 'NotFoundError', message: 'Entity urn:li:tag:missing not found' },
  Unprocessable: { status: 422, description: 'Well-formed input that breaks a schema or rule', exceptionClass: 'ValidationError', message: "Aspect 'status' of urn:li:tag:pii: field removed must be boolean" },
  Unavailable: { status: 503, description: 'A backend is down or did not answer in time', exceptionClass: 'UnavailableError', message: 'Neo4j is unavailable' },
  Error: { status: 500, description: 'Any other error, with the same body', exceptionClass: 'InternalError', message: 'Internal server error' },
};

const errorRef = (name: keyof typeof ERROR_RESPONSES) => ({ $ref: `#/components/responses/${name}` });

/** `/entitiesV2/:urn` → `/entitiesV2/{urn}`. */
export function toOpenApiPath(koaPath: string): string {
  return koaPath.replace(/:(\w+)/g, '{$1}');
}

/** The OpenAPI path key of a route: its templated path, plus `?action=<action>` for action routes. */
export function pathKey(def: Pick<RouteDefinition, 'path' | 'action'>): string {
  return toOpenApiPath(def.path) + (def.action ? `${ACTION_SEPARATOR}${def.action}` : '');
}

function security(scope: Scope | 'none', tokenOptional: boolean): Array<Record<string, string[]>> {
  const withToken = { bearerAuth: scope === 'none' ? [] : [scope] };
  return tokenOptional ? [{}, withToken] : [withToken];
}

function queryParameters(def: RouteDefinition): OpenApiParameter[] {
  const required = new Set(def.query?.required ?? []);
  return Object.entries(def.query?.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema;
    const list = rest.type === 'array';
    return {
      name,
      in: 'query' as const,
      required: required.has(name),
      ...(description ? { description: String(description) } : {}),
      schema: rest,
      ...(list ? { style: 'form' as const, explode: true } : {}),
    };
  });
}

function rpcOperation(def: RouteDefinition): OpenApiOperation {
  const parameters: OpenApiParameter[] = [
    ...Object.entries(def.pathParams ?? {}).map(([name, description]) => ({ name, in: 'path' as const, required: true, description, schema: { type: 'string' } })),
    ...queryParameters(def),
  ];
  const bodyRequired = Array.isArray(def.body?.required) && (def.body.required as unknown[]).length > 0;
  const tokenOptional = def.scope === 'none' || def.openByDefault === true;
  return {
    operationId: def.operationId,
    tags: [def.tag],
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(def.body
      ? {
          requestBody: {
            required: bodyRequired,
            content: { 'application/json': { schema: def.body, ...(def.example?.request !== undefined ? { example: def.example.request } : {}) } },
          },
        }
      : {}),
    responses: {
      '200': {
        description: 'Success',
        content: { 'application/json': def.example ? { example: def.example.response } : { schema: {} } },
      },
      '400': errorRef('BadRequest'),
      '401': errorRef('Unauthorized'),
      '403': errorRef('Forbidden'),
      ...(def.pathParams ? { '404': errorRef('NotFound') } : {}),
      ...(def.method === 'POST' ? { '422': errorRef('Unprocessable') } : {}),
      '503': errorRef('Unavailable'),
      default: errorRef('Error'),
    },
    security: security(def.scope, tokenOptional),
    'x-required-scope': def.scope,
    'x-token-optional': tokenOptional,
    'x-rpc': { method: def.method, path: def.path, ...(def.action ? { action: def.action } : {}) },
  };
}

function nonRpcOperation(e: NonRpcEndpoint): OpenApiOperation {
  const type = e.responseType ?? 'application/json';
  return {
    operationId: e.operationId,
    tags: [e.tag],
    summary: e.summary,
    ...(e.description ? { description: e.description } : {}),
    ...(e.parameters ? { parameters: e.parameters } : {}),
    ...(e.body ? { requestBody: { required: true, content: { 'application/json': { schema: e.body, ...(e.example?.request !== undefined ? { example: e.example.request } : {}) } } } } : {}),
    responses: {
      '200': { description: 'Success', content: { [type]: e.example ? { example: e.example.response } : { schema: type === 'text/html' ? { type: 'string' } : { type: 'object' } } } },
      ...(e.alwaysOpen ? {} : { '401': errorRef('Unauthorized'), '403': errorRef('Forbidden') }),
      default: errorRef('Error'),
    },
    security: e.alwaysOpen ? [{}] : security(e.scope, false),
    'x-required-scope': e.scope,
    'x-token-optional': e.alwaysOpen === true,
    'x-non-rpc': true,
  };
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  Service: 'Not RPC endpoints: liveness and the configuration the official client reads.',
  GraphQL: 'Not an RPC endpoint: the GraphQL API (deprecation).',
  Documentation: 'Not RPC endpoints: this documentation.',
};

/**
 * The OpenAPI 3.1 document of every RPC route definition (the same array the router is built from) plus the few
 * non-RPC endpoints the app serves. Route schemas are JSON Schema, which OpenAPI 3.1 uses as is.
 */
export function buildOpenApiDocument(definitions: RouteDefinition[]): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const add = (key: string, method: string, operation: OpenApiOperation) => {
    const item = (paths[key] ??= {});
    const verb = method.toLowerCase() as HttpMethodKey;
    // Two definitions on one method, path and action would make the router pick one silently.
    if (item[verb]) throw new Error(`Two endpoints are defined as ${method} ${key}: ${item[verb]!.operationId} and ${operation.operationId}`);
    item[verb] = operation;
  };
  for (const def of definitions) add(pathKey(def), def.method, rpcOperation(def));
  for (const e of NON_RPC_ENDPOINTS) add(e.path, e.method, nonRpcOperation(e));

  const tagNames = [...new Set([...definitions.map((d) => d.tag), ...NON_RPC_ENDPOINTS.map((e) => e.tag)])];
  return {
    openapi: '3.1.0',
    info: {
      title: 'graph-metadata-service RPC interface',
      version: VERSION,
      description:
        "DataHub GMS-compatible RPC endpoints. Every endpoint answers at the root and under `/gms`. Action endpoints share a path and are told apart by `?action=`; each action is listed as its own path. Errors always have the body {status, message, exceptionClass}.",
    },
    servers: [
      { url: '/', description: 'This service' },
      { url: '/gms', description: 'This service under the GMS prefix the official client uses' },
    ],
    tags: tagNames.map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
    paths,
    components: {
      schemas: { ErrorBody: ERROR_BODY },
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([name, r]) => [
          name,
          { description: r.description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' }, example: { status: r.status, message: r.message, exceptionClass: r.exceptionClass } } } },
        ]),
      ),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "Access token in 'Authorization: Bearer <token>' (issue one with `npm run token`). Scopes: read ⊂ write ⊂ admin. " +
            'Endpoints whose security lists an empty alternative need no token unless tokens are required everywhere: ' +
            'AUTH_REQUIRED_EVERYWHERE=true, or unset while the service listens beyond loopback (HOST=0.0.0.0, a network address); ' +
            'a token that is sent is always verified and must carry the listed scope.',
        },
      },
    },
  };
}

/** One operation of the document with the path, method and action it describes. */
export interface DocumentedOperation {
  key: string;
  method: string;
  operation: OpenApiOperation;
}

/** Every operation in the document, in document order. */
export function documentedOperations(doc: OpenApiDocument): DocumentedOperation[] {
  return Object.entries(doc.paths).flatMap(([key, item]) =>
    Object.entries(item).map(([method, operation]) => ({ key, method: method.toUpperCase(), operation: operation as OpenApiOperation })),
  );
}

const operationName = (o: RegisteredOperation) => `${o.method} ${pathKey(o)}`;

/**
 * Operations the router dispatches that the document does not describe, and RPC operations the document describes that
 * the router does not dispatch. Read from the router itself (its registered layers), not from the definitions.
 */
export function compareRouterWithDocument(router: Router, doc: OpenApiDocument): { undocumented: string[]; unrouted: string[] } {
  const registered = new Set(listRegisteredOperations(router).map(operationName));
  const documented = new Set(
    documentedOperations(doc)
      .filter((d) => !d.operation['x-non-rpc'])
      .map((d) => `${d.method} ${d.key}`),
  );
  return {
    undocumented: [...registered].filter((name) => !documented.has(name)).sort(),
    unrouted: [...documented].filter((name) => !registered.has(name)).sort(),
  };
}
