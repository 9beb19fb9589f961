import { createHash } from 'node:crypto';
import type { Schema } from './route';
import { documentedOperations, DOCS_PATH, OPENAPI_PATH, type DocumentedOperation, type OpenApiDocument, type OpenApiOperation } from './openapi';

/** HTML that is already safe to emit. Anything else interpolated into `html` is escaped. */
class SafeHtml {
  constructor(readonly value: string) {}
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function renderValue(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(renderValue).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/** Tagged template: every interpolated value is HTML-escaped unless it is itself the result of `html`. */
function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  return new SafeHtml(strings.reduce((out, s, i) => out + renderValue(values[i - 1]) + s));
}

/** Escapes the text, then shows `backticked` parts as code. */
function prose(text: string | undefined): SafeHtml {
  return new SafeHtml(escapeHtml(text ?? '').replace(/`([^`]+)`/g, '<code>$1</code>'));
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** Lower-case text an endpoint is found by: method, path, operation id, tag and summary. */
export function searchText(method: string, key: string, operation: OpenApiOperation): string {
  return [method, key, operation.operationId, ...operation.tags, operation.summary].join(' ').toLowerCase();
}

/** Every whitespace-separated word of the query occurs in the endpoint's search text (the same rule as the page script). */
export function matchesQuery(text: string, query: string): boolean {
  return query.toLowerCase().split(/\s+/).filter(Boolean).every((word) => text.includes(word));
}

function typeLabel(schema: Schema | undefined): string {
  if (!schema) return '';
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const types = Array.isArray(schema.type) ? schema.type.map(String) : schema.type ? [String(schema.type)] : [];
  if (types.includes('array')) return `array of ${typeLabel(schema.items as Schema | undefined) || 'any'}`;
  return types.join(' | ') || 'any';
}

function constraints(schema: Schema): string {
  const parts: string[] = [];
  for (const [key, label] of [['minimum', 'min'], ['maximum', 'max'], ['minLength', 'min length'], ['maxLength', 'max length'], ['minItems', 'min items'], ['maxItems', 'max items'], ['pattern', 'pattern']] as const) {
    if (schema[key] !== undefined) parts.push(`${label} ${String(schema[key])}`);
  }
  return parts.join(', ');
}

interface Field {
  name: string;
  where?: string;
  schema: Schema;
  required: boolean;
  description?: string;
}

function fieldTable(fields: Field[], withLocation: boolean): SafeHtml {
  return html`<table class="fields">
<thead><tr><th scope="col">Name</th>${withLocation ? html`<th scope="col">In</th>` : ''}<th scope="col">Type</th><th scope="col">Required</th><th scope="col">Default</th><th scope="col">Description</th></tr></thead>
<tbody>${fields.map(
    (f) => html`<tr><td><code>${f.name}</code></td>${withLocation ? html`<td>${f.where}</td>` : ''}<td>${typeLabel(f.schema)}</td><td>${f.required ? 'yes' : 'no'}</td><td>${
      f.schema.default !== undefined ? html`<code>${JSON.stringify(f.schema.default)}</code>` : ''
    }</td><td>${prose([f.description ?? (f.schema.description as string | undefined), constraints(f.schema)].filter(Boolean).join('. '))}</td></tr>
`,
  )}</tbody>
</table>`;
}

function bodyFields(schema: Schema): Field[] {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {}).map(([name, s]) => ({ name, schema: s, required: required.has(name) }));
}

function authText(operation: OpenApiOperation): string {
  const scope = operation['x-required-scope'];
  if (operation['x-non-rpc'] && operation['x-token-optional']) return 'No token needed.';
  if (!operation['x-token-optional']) return `Bearer token with scope ${scope}.`;
  if (scope === 'none') return 'No token needed while the service listens on loopback only; where tokens are required everywhere (HOST beyond loopback, or AUTH_REQUIRED_EVERYWHERE=true), a bearer token with scope read.';
  return `No token needed while the service listens on loopback only; a token that is sent, and every call where tokens are required everywhere (HOST beyond loopback, or AUTH_REQUIRED_EVERYWHERE=true), needs scope ${scope}.`;
}

function exampleRequest(basePath: string, method: string, key: string, operation: OpenApiOperation): string {
  const [path, action] = key.split('?');
  const query = (operation.parameters ?? [])
    .filter((p) => p.in === 'query' && p.required)
    .map((p) => `${p.name}=${Array.isArray(p.schema.enum) ? String(p.schema.enum[0]) : p.schema.default !== undefined ? String(p.schema.default) : `{${p.name}}`}`);
  const search = [action, ...query].filter(Boolean).join('&');
  const lines = [`${method} ${basePath}${path}${search ? `?${search}` : ''}`];
  const body = operation.requestBody?.content['application/json'];
  if (body) lines.push('Content-Type: application/json');
  if (!operation['x-token-optional']) lines.push('Authorization: Bearer <token>');
  if (body) lines.push('', body.example !== undefined ? json(body.example) : '{}');
  return lines.join('\n');
}

function exampleResponse(operation: OpenApiOperation): string | undefined {
  const ok = operation.responses['200'];
  if (!ok || '$ref' in ok) return undefined;
  const [type, media] = Object.entries(ok.content ?? {})[0] ?? [];
  if (!media || media.example === undefined) return undefined;
  return `200 OK\nContent-Type: ${type}\n\n${json(media.example)}`;
}

function errorStatuses(operation: OpenApiOperation): string[] {
  return Object.keys(operation.responses).filter((s) => /^[45]\d\d$/.test(s));
}

const anchor = (operation: OpenApiOperation) => `op-${operation.operationId}`;

function endpointArticle(basePath: string, { key, method, operation }: DocumentedOperation, visible: boolean): SafeHtml {
  const parameters: Field[] = (operation.parameters ?? []).map((p) => ({ name: p.name, where: p.in, schema: p.schema, required: p.required, description: p.description }));
  const body = operation.requestBody?.content['application/json'];
  const response = exampleResponse(operation);
  const errors = errorStatuses(operation);
  return html`<article class="endpoint" id="${anchor(operation)}" data-operation-id="${operation.operationId}" data-search="${searchText(method, key, operation)}"${visible ? '' : html` hidden`}>
<h3><span class="method method-${method.toLowerCase()}">${method}</span> <code class="path">${key}</code></h3>
<p class="summary">${operation.summary}</p>
${operation.description ? html`<p class="description">${prose(operation.description)}</p>` : ''}
<p class="auth"><strong>Auth:</strong> ${authText(operation)}</p>
${parameters.length > 0 ? html`<h4>Parameters</h4>${fieldTable(parameters, true)}` : ''}
${
  body
    ? html`<h4>Request body${operation.requestBody?.required ? '' : ' (optional)'}</h4>
${bodyFields(body.schema).length > 0 ? fieldTable(bodyFields(body.schema), false) : ''}
<details><summary>JSON Schema of the body</summary><pre>${json(body.schema)}</pre></details>`
    : ''
}
<div class="examples">
<div><h4>Example request</h4><pre class="example-request">${exampleRequest(basePath, method, key, operation)}</pre></div>
${response ? html`<div><h4>Example response</h4><pre class="example-response">${response}</pre></div>` : ''}
</div>
${errors.length > 0 ? html`<p class="errors"><strong>Errors:</strong> ${errors.join(', ')}, with the <a href="#errors">error body</a>.</p>` : ''}
</article>
`;
}

const STYLE = `
:root { color-scheme: light; --fg: #1d2330; --muted: #5b6475; --line: #dde2ea; --bg: #f6f8fb; --accent: #1f5fbf; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fff; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; }
header { padding: 20px 32px 16px; border-bottom: 1px solid var(--line); background: var(--bg); }
header h1 { margin: 0 0 4px; font-size: 24px; }
header p { margin: 4px 0; color: var(--muted); }
form[role=search] { display: flex; gap: 8px; align-items: center; margin-top: 12px; flex-wrap: wrap; }
form[role=search] input { flex: 0 1 420px; padding: 7px 10px; font-size: 15px; border: 1px solid #aab3c2; border-radius: 6px; }
form[role=search] button { padding: 7px 14px; font-size: 14px; border: 1px solid #aab3c2; border-radius: 6px; background: #fff; cursor: pointer; }
#match-count { margin-left: 4px; }
.layout { display: grid; grid-template-columns: 330px minmax(0, 1fr); }
nav { border-right: 1px solid var(--line); padding: 16px 12px 32px 20px; position: sticky; top: 0; align-self: start; max-height: 100vh; overflow: auto; }
nav ul { list-style: none; margin: 0; padding: 0; }
nav .nav-tag { margin: 10px 0 4px; font-weight: 600; font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
nav a { display: block; padding: 2px 0; color: var(--fg); text-decoration: none; font-size: 13px; overflow-wrap: anywhere; }
nav a:hover { color: var(--accent); }
main { padding: 8px 32px 48px; min-width: 0; }
h2 { margin: 28px 0 8px; font-size: 20px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.endpoint { border: 1px solid var(--line); border-radius: 8px; padding: 4px 18px 12px; margin: 14px 0; }
.endpoint h3 { font-size: 16px; margin: 12px 0 4px; overflow-wrap: anywhere; }
.endpoint h4 { margin: 14px 0 6px; font-size: 14px; }
.method { display: inline-block; min-width: 52px; text-align: center; padding: 1px 6px; border-radius: 4px; color: #fff; font: 600 12px/1.6 ui-monospace, monospace; vertical-align: 1px; }
.method-get { background: #1f7a4d; } .method-post { background: #1f5fbf; } .method-delete { background: #b3261e; }
.summary { margin: 4px 0; font-weight: 500; }
.description, .auth, .errors { margin: 6px 0; color: #30384a; }
table.fields { border-collapse: collapse; width: 100%; font-size: 13px; }
table.fields th, table.fields td { text-align: left; border-bottom: 1px solid var(--line); padding: 4px 8px 4px 0; vertical-align: top; }
table.fields th { color: var(--muted); font-weight: 600; }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; overflow: auto; max-height: 360px; margin: 0; }
.examples { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 14px; }
details { margin: 8px 0; } summary { cursor: pointer; color: var(--accent); font-size: 13px; }
.intro { margin-top: 16px; }
@media (max-width: 800px) { .layout { display: block; } nav { position: static; max-height: none; border-right: 0; border-bottom: 1px solid var(--line); } }
`;

// Progressive enhancement: the form works without JavaScript (the server filters on ?q=); with it, filtering is live.
const SCRIPT = `
(function () {
  var input = document.getElementById('q');
  var count = document.getElementById('match-count');
  var none = document.getElementById('no-match');
  var intro = document.querySelector('section.intro');
  var endpoints = Array.prototype.slice.call(document.querySelectorAll('article.endpoint'));
  var groups = Array.prototype.slice.call(document.querySelectorAll('section.tag-group'));
  function apply() {
    var words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    endpoints.forEach(function (article) {
      var text = article.getAttribute('data-search');
      var match = words.every(function (w) { return text.indexOf(w) !== -1; });
      article.hidden = !match;
      var link = document.querySelector('nav li[data-target="' + article.id + '"]');
      if (link) link.hidden = !match;
      if (match) shown++;
    });
    groups.forEach(function (group) {
      var visible = group.querySelector('article.endpoint:not([hidden])') !== null;
      group.hidden = !visible;
      var navGroup = document.querySelector('nav li[data-group="' + group.id + '"]');
      if (navGroup) navGroup.hidden = !visible;
    });
    count.textContent = shown + ' of ' + endpoints.length + ' endpoints';
    none.hidden = shown > 0;
    // The introduction would push the matches below the fold while filtering.
    intro.hidden = words.length > 0;
    var url = new URL(window.location.href);
    if (input.value) url.searchParams.set('q', input.value); else url.searchParams.delete('q');
    window.history.replaceState(null, '', url);
  }
  input.addEventListener('input', apply);
  input.form.addEventListener('submit', function (event) { event.preventDefault(); apply(); });
})();
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Only the page's own inline style and script run; nothing is loaded from anywhere. */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${sha256(STYLE)}`,
  `script-src ${sha256(SCRIPT)}`,
  "img-src 'none'",
  "connect-src 'none'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface DocsPageOptions {
  /** `''` or `/gms`: the prefix the page was requested under, used in links and examples. */
  basePath: string;
  /** The search words (`?q=`); endpoints not matching are rendered hidden. */
  query?: string;
}

/** The server-rendered documentation page of an OpenAPI document: readable without JavaScript, filterable with it. */
export function renderDocsPage(doc: OpenApiDocument, { basePath, query = '' }: DocsPageOptions): string {
  const operations = documentedOperations(doc);
  const visible = new Set(operations.filter((o) => matchesQuery(searchText(o.method, o.key, o.operation), query)).map((o) => o.operation.operationId));
  const tags = doc.tags.map((tag, i) => ({ ...tag, id: `tag-${i}`, operations: operations.filter((o) => o.operation.tags[0] === tag.name) })).filter((t) => t.operations.length > 0);
  const errorExamples = Object.values(doc.components.responses).map((r) => r.content['application/json'].example as { status: number; exceptionClass: string; message: string });

  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${doc.info.title}</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body>
<header>
<h1>${doc.info.title}</h1>
<p>Version ${doc.info.version} · ${operations.length} endpoints · <a href="${basePath}${OPENAPI_PATH}">OpenAPI 3.1 document</a></p>
<form role="search" method="get" action="${basePath}${DOCS_PATH}">
<label for="q">Filter endpoints</label>
<input id="q" name="q" type="search" value="${query}" placeholder="e.g. relationships, search, POST /entities" autocomplete="off">
<button type="submit">Filter</button>
<span id="match-count" aria-live="polite">${visible.size} of ${operations.length} endpoints</span>
</form>
</header>
<div class="layout">
<nav aria-label="Endpoints">
<ul>
${tags.map(
  (tag) => html`<li data-group="${tag.id}"${tag.operations.some((o) => visible.has(o.operation.operationId)) ? '' : html` hidden`}><div class="nav-tag">${tag.name}</div><ul>
${tag.operations.map(
  (o) => html`<li data-target="${anchor(o.operation)}"${visible.has(o.operation.operationId) ? '' : html` hidden`}><a href="#${anchor(o.operation)}"><span class="method method-${o.method.toLowerCase()}">${o.method}</span> ${o.key}</a></li>
`,
)}</ul></li>
`,
)}</ul>
</nav>
<main>
<section class="intro"${query.trim() ? html` hidden` : ''}>
<p>${prose(doc.info.description)}</p>
<h2 id="auth">Authentication</h2>
<p>${prose(String(doc.components.securitySchemes.bearerAuth.description ?? ''))}</p>
<h2 id="errors">Errors</h2>
<p>Every failed request answers with a JSON body <code>{status, message, exceptionClass}</code>:</p>
<table class="fields"><thead><tr><th scope="col">Status</th><th scope="col">exceptionClass</th><th scope="col">Example message</th></tr></thead>
<tbody>${errorExamples.map((e) => html`<tr><td>${e.status}</td><td><code>${e.exceptionClass}</code></td><td>${e.message}</td></tr>`)}</tbody></table>
</section>
${tags.map(
  (tag) => html`<section class="tag-group" id="${tag.id}"${tag.operations.some((o) => visible.has(o.operation.operationId)) ? '' : html` hidden`}>
<h2>${tag.name}</h2>
${tag.description ? html`<p>${prose(tag.description)}</p>` : ''}
${tag.operations.map((o) => endpointArticle(basePath, o, visible.has(o.operation.operationId)))}
</section>
`,
)}
<p id="no-match"${visible.size > 0 ? html` hidden` : ''}>No endpoint matches the filter.</p>
</main>
</div>
<script>${new SafeHtml(SCRIPT)}</script>
</body>
</html>
`;
  return page.value;
}
