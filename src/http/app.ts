import Koa, { type Context, type Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth';
import { InvalidInputError, MethodNotAllowedError, NotFoundError } from '../model/errors';
import type { HealthService } from '../services/health';
import { DOCS_CONTENT_SECURITY_POLICY, renderDocsPage } from './docs-page';
import { errorMiddleware } from './errors';
import { buildOpenApiDocument, DOCS_PATH, OPENAPI_PATH } from './openapi';
import { refusingUnknownFields, type RouteDefinition } from './route';
import { buildRpcRouter } from './rpc';

export interface HttpDependencies {
  logger: Logger;
  bodyLimitBytes: number;
  health: HealthService;
  serverConfig: () => Record<string, unknown>;
  auth: Authenticator;
  routes: RouteDefinition[];
  /** Extra middleware mounted before the JSON body parser (GraphQL reads its own body). */
  beforeBodyParser?: Koa.Middleware[];
}

/** HTTP/1.1 requires a Host header (the server leaves this check to the app, so the refusal has the JSON error body). */
function requireHost(ctx: Context, next: Next) {
  if (ctx.req.httpVersion === '1.1' && !ctx.req.headers.host) throw new InvalidInputError('Missing Host header');
  return next();
}

/** Every route answers at the root and under `/gms`; a trailing slash is ignored. */
function normalizePath(ctx: Context, next: Next) {
  let path = ctx.path;
  if (path === '/gms' || path.startsWith('/gms/')) path = path.slice(4) || '/';
  if (path.length > 1 && path.endsWith('/')) path = path.replace(/\/+$/, '') || '/';
  if (path !== ctx.path) ctx.path = path;
  return next();
}

function requestContext(logger: Logger) {
  const debug = logger.isLevelEnabled('debug');
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const id = /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', id);
    ctx.state.requestId = id;
    // A child logger costs a serialization of its bindings: build it only when something logs (errors, debug).
    let log: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', { configurable: true, enumerable: true, get: () => (log ??= logger.child({ requestId: id })) });
    if (!debug) return next();
    const started = performance.now();
    try {
      await next();
    } finally {
      (ctx.state.log as Logger).debug({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) }, 'request');
    }
  };
}

export function createHttpApp(deps: HttpDependencies): Koa {
  const app = new Koa();
  app.proxy = false;
  app.silent = true;
  app.use(requestContext(deps.logger));
  app.use(errorMiddleware(deps.logger));
  app.use(requireHost);
  app.use(normalizePath);
  app.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/health') {
      const report = await deps.health.check();
      ctx.status = report.status === 'UP' ? 200 : 503;
      ctx.body = report;
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/config') {
      ctx.body = deps.serverConfig();
      return;
    }
    await next();
  });
  for (const middleware of deps.beforeBodyParser ?? []) app.use(middleware);
  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: `${deps.bodyLimitBytes}b`,
      strict: true,
      // The official client and curl users do not always send a JSON content type.
      extendTypes: { json: ['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/*+json'] },
      onerror: (err) => {
        throw err;
      },
    }),
  );
  const routes = deps.routes.map(refusingUnknownFields);
  const router = buildRpcRouter(routes, deps.auth);
  app.use(router.routes());
  app.use(docsRoutes(routes));
  app.use(async (ctx) => {
    throw new NotFoundError(`No endpoint ${ctx.method} ${ctx.path}`);
  });
  return app;
}

/** `GET /rpc/openapi.json` and `GET /rpc/docs`, both built from the route definitions the router uses. No token needed. */
function docsRoutes(routes: RouteDefinition[]) {
  const openApi = buildOpenApiDocument(routes);
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== OPENAPI_PATH && ctx.path !== DOCS_PATH) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new MethodNotAllowedError(`${ctx.method} is not allowed on ${ctx.path}; use GET`);
    if (ctx.path === OPENAPI_PATH) {
      ctx.body = openApi;
      return;
    }
    const basePath = /^\/gms(\/|$)/.test(ctx.originalUrl) ? '/gms' : '';
    const query = typeof ctx.query.q === 'string' ? ctx.query.q : '';
    ctx.set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = renderDocsPage(openApi, { basePath, query });
  };
}
