import Router from '@koa/router';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANONYMOUS, NOTHING_TO_CONFIRM, type Authenticator } from '../../src/auth';
import { NO_TOKEN } from '../../src/auth/revocation-check';
import { buildOpenApiDocument, compareRouterWithDocument, documentedOperations, type OpenApiDocument } from '../../src/http/openapi';
import type { RouteDefinition } from '../../src/http/route';
import { buildRpcRouter, listRegisteredOperations } from '../../src/http/rpc';
import { startTestService, type TestService } from '../support/service';

/** The RPC routers the running app has mounted (@koa/router marks its dispatch middleware with `.router`). */
function mountedRouters(svc: TestService): Router[] {
  return (svc.app.middleware as Array<{ router?: Router }>).map((m) => m.router).filter((r): r is Router => r instanceof Router);
}

/** Validates with @seriousme/openapi-schema-validator (the official OpenAPI 3.1 JSON Schema). It is ESM-only: run it in a child node. */
function validateOpenApi(doc: unknown): { valid: boolean; errors?: unknown } {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const script = `import { Validator } from '@seriousme/openapi-schema-validator';
      const result = await new Validator().validate(process.argv[1]);
      console.log(JSON.stringify(result));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, file], { cwd: join(__dirname, '../..') });
    return JSON.parse(out.toString());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const allowAll: Authenticator = { authorize: async () => ANONYMOUS, authorizeRead: async () => ({ principal: ANONYMOUS, confirmed: NOTHING_TO_CONFIRM }), authorizeWrite: async () => ({ principal: ANONYMOUS, revocation: NO_TOKEN }) };

const definition = (overrides: Partial<RouteDefinition>): RouteDefinition => ({
  operationId: 'sample',
  method: 'POST',
  path: '/sample',
  tag: 'Sample',
  summary: 'A sample endpoint',
  scope: 'none',
  handle: async () => ({}),
  ...overrides,
});

describe('OpenAPI document of the running service', () => {
  let svc: TestService;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    svc = await startTestService();
    const res = await svc.call('GET', '/rpc/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(async () => svc.close());

  it('describes every operation the mounted RPC router dispatches, and nothing it does not', () => {
    const routers = mountedRouters(svc);
    expect(routers).toHaveLength(1);
    const registered = listRegisteredOperations(routers[0]);
    expect(registered.length).toBeGreaterThanOrEqual(10);
    expect(compareRouterWithDocument(routers[0], doc)).toEqual({ undocumented: [], unrouted: [] });
  });

  it('is a valid OpenAPI 3.1 document with a distinct path key per action', () => {
    expect(validateOpenApi(doc)).toEqual({ valid: true });
    expect(doc.openapi).toBe('3.1.0');
    const ops = documentedOperations(doc);
    expect(new Set(ops.map((o) => o.operation.operationId)).size).toBe(ops.length);
    expect(doc.paths['/aspects?action=ingestProposal']?.post?.operationId).toBe('ingestProposal');
    expect(doc.paths['/entities?action=search']?.post?.['x-rpc']).toEqual({ method: 'POST', path: '/entities', action: 'search' });
    expect(doc.paths['/entitiesV2/{urn}']?.get?.parameters).toContainEqual(expect.objectContaining({ name: 'urn', in: 'path', required: true }));
  });

  it('documents the error body, the bearer scheme with each route scope, and the non-RPC endpoints', () => {
    expect(doc.components.schemas.ErrorBody).toMatchObject({ required: ['status', 'message', 'exceptionClass'] });
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const ingest = doc.paths['/aspects?action=ingestProposal']!.post!;
    expect(ingest.security).toEqual([{}, { bearerAuth: ['write'] }]);
    expect(ingest.responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' });
    const evaluate = doc.paths['/test?action=evaluate']?.post;
    if (evaluate) expect(evaluate.security).toEqual([{ bearerAuth: [evaluate['x-required-scope']] }]);
    for (const [path, method] of [['/health', 'get'], ['/config', 'get'], ['/api/graphql', 'post'], ['/rpc/docs', 'get'], ['/rpc/openapi.json', 'get']] as const) {
      expect(doc.paths[path]?.[method]?.['x-non-rpc']).toBe(true);
    }
  });

  it('is served under /gms too, without a token', async () => {
    const res = await svc.call('GET', '/gms/rpc/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(doc);
    expect((await svc.call('POST', '/rpc/openapi.json', {})).status).toBe(405);
  });
});

describe('OpenAPI drift check', () => {
  const described = [
    definition({ operationId: 'a', path: '/things', action: 'a' }),
    definition({ operationId: 'b', path: '/things', action: 'b' }),
    definition({ operationId: 'get', method: 'GET', path: '/things/:urn', pathParams: { urn: 'urn' } }),
  ];

  it('passes when the router is built from the described definitions', () => {
    const router = buildRpcRouter(described, allowAll);
    expect(listRegisteredOperations(router)).toEqual([
      { method: 'POST', path: '/things', action: 'a' },
      { method: 'POST', path: '/things', action: 'b' },
      { method: 'GET', path: '/things/:urn' },
    ]);
    expect(compareRouterWithDocument(router, buildOpenApiDocument(described))).toEqual({ undocumented: [], unrouted: [] });
  });

  it('fails when the router dispatches a definition the document was not built from', () => {
    const extraAction = definition({ operationId: 'c', path: '/things', action: 'c' });
    const extraRoute = definition({ operationId: 'gone', method: 'DELETE', path: '/things/:urn' });
    const router = buildRpcRouter([...described, extraAction, extraRoute], allowAll);
    expect(compareRouterWithDocument(router, buildOpenApiDocument(described))).toEqual({
      undocumented: ['DELETE /things/{urn}', 'POST /things?action=c'],
      unrouted: [],
    });
  });

  it('fails when a route is registered on the router by hand, outside the definitions', () => {
    const router = buildRpcRouter(described, allowAll);
    router.get('/sneaky', async (ctx) => {
      ctx.body = {};
    });
    expect(compareRouterWithDocument(router, buildOpenApiDocument(described)).undocumented).toEqual(['GET /sneaky']);
  });

  it('fails when the document describes a definition the router cannot reach', () => {
    // A plain definition on a path that also has actions is never dispatched (the router requires ?action= there).
    const unreachable = definition({ operationId: 'plain', path: '/things' });
    const router = buildRpcRouter([...described, unreachable], allowAll);
    expect(compareRouterWithDocument(router, buildOpenApiDocument([...described, unreachable])).unrouted).toEqual(['POST /things']);
  });

  it('refuses two definitions of the same method, path and action', () => {
    expect(() => buildOpenApiDocument([...described, definition({ operationId: 'again', path: '/things', action: 'a' })])).toThrow(/Two endpoints/);
  });
});
