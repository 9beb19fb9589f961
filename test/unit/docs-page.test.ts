import { DOCS_CONTENT_SECURITY_POLICY, escapeHtml, matchesQuery, renderDocsPage } from '../../src/http/docs-page';
import { buildOpenApiDocument } from '../../src/http/openapi';
import type { RouteDefinition } from '../../src/http/route';

const HOSTILE = '<script>alert("x")</script>';

const hostileRoute: RouteDefinition = {
  operationId: 'hostile',
  method: 'POST',
  path: '/things',
  action: 'poke',
  tag: `Tag ${HOSTILE}`,
  summary: `Summary ${HOSTILE}`,
  description: `Description \`${HOSTILE}\` and <b>bold</b>`,
  scope: 'write',
  body: { type: 'object', properties: { [`field${HOSTILE}`]: { type: 'string', description: `Field ${HOSTILE}`, default: HOSTILE } } },
  example: { request: { value: `</pre>${HOSTILE}` }, response: { value: `</pre>${HOSTILE}` } },
  handle: async () => ({}),
};

describe('documentation page', () => {
  const page = renderDocsPage(buildOpenApiDocument([hostileRoute]), { basePath: '', query: `"><img src=x onerror=alert(1)>` });

  it('escapes every text taken from route definitions and the request', () => {
    expect(page).not.toContain(HOSTILE);
    expect(page).not.toContain('<b>bold</b>');
    expect(page).not.toContain('<img src=x');
    expect(page).toContain(escapeHtml(HOSTILE));
    expect(page).toContain(`value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"`);
    // The page's own single script is the only one.
    expect(page.match(/<script>/g)).toHaveLength(1);
  });

  it('shows backticked text as code, still escaped', () => {
    expect(page).toContain(`<code>${escapeHtml(HOSTILE)}</code>`);
  });

  it('allows only its own inline style and script', () => {
    expect(DOCS_CONTENT_SECURITY_POLICY).toMatch(/default-src 'none'/);
    expect(DOCS_CONTENT_SECURITY_POLICY).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(DOCS_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline/);
  });

  it('matches a query when every word occurs, case-insensitively', () => {
    expect(matchesQuery('get /relationships getrelationships', 'GET relationships')).toBe(true);
    expect(matchesQuery('get /relationships getrelationships', 'post relationships')).toBe(false);
    expect(matchesQuery('anything', '  ')).toBe(true);
  });
});
