import Router from '@koa/router';
import Ajv, { type ValidateFunction } from 'ajv';
import type { Context } from 'koa';
import type { Authenticator, Principal } from '../auth';
import { NO_TOKEN, type RevocationCheck } from '../auth/revocation-check';
import { InvalidInputError, MethodNotAllowedError } from '../model/errors';
import { assertNesting } from '../model/nesting';
import { withSafeIntegers } from '../model/safe-integers';
import type { RouteDefinition, Schema } from './route';

/** `List(a,b)`, `a,b` is NOT split (URNs contain commas); repeated parameters arrive as arrays. */
export function parseListParam(raw: unknown): string[] {
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return values.flatMap((v) => {
    const s = String(v);
    const m = /^List\((.*)\)$/s.exec(s);
    return m ? (m[1] === '' ? [] : m[1].split(',').map((x) => x.trim())) : [s];
  });
}

function describe(validate: ValidateFunction, where: string): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => {
      const path = e.instancePath ? `${where}${e.instancePath.replace(/\//g, '.')}` : where;
      if (e.keyword === 'required') return `${where} is missing required field '${(e.params as { missingProperty: string }).missingProperty}'`;
      if (e.keyword === 'additionalProperties') return `${path} has unknown field '${(e.params as { additionalProperty: string }).additionalProperty}'`;
      if (e.keyword === 'enum') return `${path} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
      return `${path} ${e.message}`;
    })
    .join('; ');
}

interface CompiledRoute {
  def: RouteDefinition;
  query?: ValidateFunction;
  body?: ValidateFunction;
}

/** Builds the koa router from route definitions: action dispatch, input validation, authorization. */
export function buildRpcRouter(definitions: RouteDefinition[], auth: Authenticator): Router {
  const ajv = new Ajv({ strict: false, coerceTypes: true, allErrors: true, useDefaults: true });
  const groups = new Map<string, CompiledRoute[]>();
  for (const def of definitions) {
    const key = `${def.method} ${def.path}`;
    const compiled: CompiledRoute = {
      def,
      query: def.query ? ajv.compile(withSafeIntegers({ type: 'object', ...def.query })) : undefined,
      body: def.body ? ajv.compile(withSafeIntegers(def.body)) : undefined,
    };
    groups.set(key, [...(groups.get(key) ?? []), compiled]);
  }

  const router = new Router();
  const paths = new Map<string, Set<string>>();
  for (const [key, routes] of groups) {
    const [method, path] = key.split(' ');
    paths.set(path, new Set([...(paths.get(path) ?? []), method]));
    const handler = async (ctx: Context) => {
      const route = pick(routes, ctx);
      const answer = await run(route, ctx, auth);
      if (answer !== null && typeof answer === 'object' && !Buffer.isBuffer(answer)) {
        ctx.type = 'application/json';
        ctx.body = withFloatingUnionMembers(JSON.stringify(answer));
      } else ctx.body = answer;
    };
    router.register(path, [method], Object.assign(handler, { [DISPATCHES]: reachable(routes).map((r) => r.def.action) }));
  }
  // Known path, wrong method: 405 rather than a misleading 404.
  for (const [path, methods] of paths) {
    const methodNotAllowed = async (ctx: Context) => {
      if (!methods.has(ctx.method)) throw new MethodNotAllowedError(`${ctx.method} is not allowed on ${path}; use ${[...methods].join(', ')}`);
    };
    router.all(path, Object.assign(methodNotAllowed, { [METHOD_NOT_ALLOWED]: true }));
  }
  return router;
}

/** Marks on the router's handlers, so what the router really dispatches can be listed from its layers. */
const DISPATCHES = Symbol('dispatched actions');
const METHOD_NOT_ALLOWED = Symbol('405 fallback');

/** One (method, path, action) the router answers; `action` only for routes dispatched on `?action=`. */
export interface RegisteredOperation {
  method: string;
  path: string;
  action?: string;
}

/**
 * What a router answers, read from its registered layers (`router.stack`): each layer's methods (less the HEAD koa adds
 * for GET) and path, times the actions its handler dispatches. A layer registered by other means than buildRpcRouter's
 * definitions is listed too (without action), so nothing the router serves escapes the OpenAPI drift check.
 */
export function listRegisteredOperations(router: Router): RegisteredOperation[] {
  return router.stack.flatMap((layer) => {
    const handlers = layer.stack as Array<{ [DISPATCHES]?: Array<string | undefined>; [METHOD_NOT_ALLOWED]?: true }>;
    if (handlers.some((h) => h[METHOD_NOT_ALLOWED])) return [];
    const actions = handlers.find((h) => h[DISPATCHES])?.[DISPATCHES] ?? [undefined];
    const methods = layer.methods.filter((m) => m !== 'HEAD' || !layer.methods.includes('GET'));
    return methods.flatMap((method) => actions.map((action) => ({ method, path: String(layer.path), ...(action ? { action } : {}) })));
  });
}

/** The routes of one method and path that a request can reach: the actions if any, else the first definition. */
function reachable(routes: CompiledRoute[]): CompiledRoute[] {
  const withAction = routes.filter((r) => r.def.action);
  return withAction.length > 0 ? withAction : routes.slice(0, 1);
}

function pick(routes: CompiledRoute[], ctx: Context): CompiledRoute {
  const withAction = routes.filter((r) => r.def.action);
  if (withAction.length === 0) return reachable(routes)[0];
  const action = ctx.query.action;
  if (typeof action !== 'string' || action === '') {
    throw new InvalidInputError(`Missing parameter 'action'; expected one of ${withAction.map((r) => r.def.action).join(', ')}`);
  }
  const route = withAction.find((r) => r.def.action === action);
  if (!route) {
    throw new InvalidInputError(`Unknown action '${action}'; expected one of ${withAction.map((r) => r.def.action).join(', ')}`);
  }
  return route;
}

async function run(route: CompiledRoute, ctx: Context, auth: Authenticator): Promise<unknown> {
  const options = { openByDefault: route.def.openByDefault };
  const { scope, writes } = route.def;
  if (route.def.revocationInStatements) {
    const { principal, revocation } = await auth.authorizeWrite(ctx, scope, options);
    try {
      const answer = await handle(route, ctx, principal, revocation);
      // Unless its writes' commit or its lineage walk checked the token, nothing did yet: it is looked up before the answer.
      await revocation.confirm();
      return answer;
    } catch (err) {
      // A revoked token is refused as revoked (401), whatever else failed.
      await revocation.confirm();
      throw err;
    }
  }
  if (scope === 'write' || scope === 'admin' || writes === true) return handle(route, ctx, await auth.authorize(ctx, scope, options));
  // A read runs while its token's revocation is looked up, and answers (or fails) only once the token is confirmed.
  const { principal, confirmed } = await auth.authorizeRead(ctx, scope, options);
  const answer = handle(route, ctx, principal);
  answer.catch(() => undefined);
  await confirmed;
  return answer;
}

async function handle(route: CompiledRoute, ctx: Context, principal: Principal, revocation: RevocationCheck = NO_TOKEN): Promise<unknown> {
  const query: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(route.def.query?.properties ?? {})) {
    const raw = ctx.query[name];
    if (raw === undefined) continue;
    if ((schema as Schema).type === 'array') query[name] = parseListParam(raw);
    else query[name] = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    // Python clients send `async=False` (str() of a bool); DataHub's server reads booleans in any case.
    if ((schema as Schema).type === 'boolean' && typeof query[name] === 'string') query[name] = (query[name] as string).toLowerCase();
  }
  if (route.query && !route.query(query)) throw new InvalidInputError(`Invalid query parameters: ${describe(route.query, 'query')}`);
  // A body in a media type the JSON parser does not read would be dropped silently, and the call run with defaults.
  const sentBody = Number(ctx.get('content-length')) > 0 || ctx.get('transfer-encoding') !== '';
  if (sentBody && (ctx.request as { rawBody?: string }).rawBody === undefined) {
    ctx.throw(415, `Unsupported Content-Type '${ctx.get('content-type')}': send the request body as application/json`);
  }
  const rawBody = (ctx.request as { body?: unknown }).body;
  // The official client's OpenAPI delete sends `[]`: on a route that takes no body, an empty list is no body.
  const empty = rawBody === undefined || rawBody === null || rawBody === '' || (!route.def.body && Array.isArray(rawBody) && rawBody.length === 0);
  const body = empty ? {} : rawBody;
  // A route whose body schema is a list (OpenAPI v3 batchGet) takes a JSON list; every other route an object.
  const wantsList = (route.def.body as Schema | undefined)?.type === 'array';
  if (typeof body !== 'object' || Array.isArray(body) !== wantsList) throw new InvalidInputError(`Request body must be a JSON ${wantsList ? 'list' : 'object'}`);
  assertNesting(body, 'Request body');
  if (route.body && !route.body(body)) throw new InvalidInputError(`Invalid request body: ${describe(route.body, 'body')}`);
  return route.def.handle({
    params: (ctx as Context & { params?: Record<string, string> }).params ?? {},
    query,
    body: body as Record<string, unknown>,
    principal,
    revocation,
    ctx,
  });
}

/** A `double` or `float` union member (rest.li's `{"double": 60}`) holding a whole number. */
const WHOLE_FLOATING_MEMBER = /"(double|float)":(-?\d+)(?=[,}\]])/g;

/**
 * A JSON answer with each whole number held by a `double` or `float` union member written as one (`{"double": 60.0}`),
 * as DataHub's Java serializer writes it: JavaScript writes 60, and Python clients then read an int where DataHub's
 * answer gives them a float (structured property values, allowed values). Keys inside JSON strings are escaped, so
 * only real members match.
 */
export function withFloatingUnionMembers(json: string): string {
  if (!json.includes('"double":') && !json.includes('"float":')) return json;
  return json.replace(WHOLE_FLOATING_MEMBER, '"$1":$2.0');
}

