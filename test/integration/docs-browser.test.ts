import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { documentedOperations, type DocumentedOperation, type OpenApiDocument } from '../../src/http/openapi';
import { startTestService, type TestService } from '../support/service';

const OUTPUT_DIR = join(__dirname, '..', '..', 'test-output');

/** Debian's chromium, with everything that would reach the network switched off; playwright gives it a fresh temporary profile. */
const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

/**
 * The endpoints of the interface document (metadata-service-interface.md), as OpenAPI method + path key. `pending` marks
 * the ones other work was still adding when this test was written: they are checked once the service documents them.
 */
const INTERFACE_ENDPOINTS: Array<{ name: string; method: string; key: string; pending?: true }> = [
  { name: 'ingestProposal', method: 'POST', key: '/aspects?action=ingestProposal' },
  { name: 'ingestProposalBatch', method: 'POST', key: '/aspects?action=ingestProposalBatch' },
  { name: 'entities ingest', method: 'POST', key: '/entities?action=ingest' },
  { name: 'delete', method: 'POST', key: '/entities?action=delete' },
  { name: 'search', method: 'POST', key: '/entities?action=search' },
  { name: 'browse', method: 'POST', key: '/entities?action=browse' },
  { name: 'autocomplete', method: 'POST', key: '/entities?action=autocomplete' },
  { name: 'entitiesV2', method: 'GET', key: '/entitiesV2/{urn}' },
  { name: 'entities get', method: 'GET', key: '/entities/{urn}' },
  { name: 'aspects get', method: 'GET', key: '/aspects/{urn}' },
  { name: 'getTimeseriesAspectValues', method: 'POST', key: '/aspects?action=getTimeseriesAspectValues' },
  { name: 'relationships', method: 'GET', key: '/relationships' },
  { name: 'getEsTaskStatus', method: 'POST', key: '/operations?action=getEsTaskStatus' },
  { name: 'truncateTimeseriesAspect', method: 'POST', key: '/operations?action=truncateTimeseriesAspect' },
  { name: 'getIndexSizes', method: 'POST', key: '/operations?action=getIndexSizes' },
  { name: 'restoreIndices', method: 'POST', key: '/operations?action=restoreIndices' },
  { name: 'test evaluate', method: 'POST', key: '/test?action=evaluate' },
];

/** Operation ids of the endpoint articles a person can see right now. */
const visibleEndpoints = (page: Page) =>
  page.$$eval('article.endpoint', (articles) => articles.filter((a) => (a as HTMLElement).checkVisibility()).map((a) => (a as HTMLElement).dataset.operationId!));

const visibleNavEntries = (page: Page) =>
  page.$$eval('nav li[data-target]', (items) => items.filter((li) => (li as HTMLElement).checkVisibility()).map((li) => li.getAttribute('data-target')!.replace(/^op-/, '')));

/** What the page promises to match a search word against: method, path, operation id, tag and summary. */
const mentions = (o: DocumentedOperation, word: string) =>
  [o.method, o.key, o.operation.operationId, ...o.operation.tags, o.operation.summary].join(' ').toLowerCase().includes(word.toLowerCase());

describe('RPC documentation in a real browser', () => {
  let svc: TestService;
  let doc: OpenApiDocument;
  let operations: DocumentedOperation[];
  let browser: Browser;
  let context: BrowserContext;
  const foreignRequests: string[] = [];
  const consoleProblems: string[] = [];

  beforeAll(async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    svc = await startTestService();
    doc = (await svc.call('GET', '/rpc/openapi.json')).body;
    operations = documentedOperations(doc);
    browser = await chromium.launch(CHROMIUM);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.on('request', (request) => {
      if (!request.url().startsWith(svc.url)) foreignRequests.push(request.url());
    });
    context.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') consoleProblems.push(message.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  it('lists every endpoint of the OpenAPI document with its parameters and examples, and takes a screenshot', async () => {
    const page = await context.newPage();
    const response = await page.goto(`${svc.url}/rpc/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(await page.title()).toBe(doc.info.title);

    expect(operations.length).toBeGreaterThanOrEqual(15);
    expect((await visibleEndpoints(page)).sort()).toEqual(operations.map((o) => o.operation.operationId).sort());
    expect((await visibleNavEntries(page)).sort()).toEqual(operations.map((o) => o.operation.operationId).sort());
    for (const { method, key, operation } of operations) {
      const article = page.locator(`article#op-${operation.operationId}`);
      await expect(article.locator('h3').innerText()).resolves.toBe(`${method} ${key}`);
      expect(await article.locator('pre.example-request').innerText()).toContain(`${method} ${key.split('?')[0]}`);
      for (const parameter of operation.parameters ?? []) {
        expect(await article.locator('table.fields code', { hasText: new RegExp(`^${parameter.name}$`) }).count()).toBeGreaterThan(0);
      }
      const example = (operation.responses['200'] as { content?: Record<string, { example?: unknown }> }).content;
      if (example && Object.values(example)[0]?.example !== undefined) expect(await article.locator('pre.example-response').count()).toBe(1);
    }
    // The request example shows the body it documents.
    expect(await page.locator('#op-ingestProposal pre.example-request').innerText()).toContain('"aspectName": "status"');
    expect(await page.locator('#op-search pre.example-response').innerText()).toContain('"numEntities"');
    expect(await page.locator('#errors').isVisible()).toBe(true);

    await page.screenshot({ path: join(OUTPUT_DIR, 'rpc-docs.png') });
    await page.locator('#op-search').screenshot({ path: join(OUTPUT_DIR, 'rpc-docs-endpoint.png') });
    expect(foreignRequests).toEqual([]);
    expect(consoleProblems).toEqual([]);
    await page.close();
  });

  it('lists every endpoint of the interface document that the service implements', async () => {
    const page = await context.newPage();
    await page.goto(`${svc.url}/gms/rpc/docs`);
    const headings = await page.$$eval('article.endpoint h3', (hs) => hs.map((h) => (h as HTMLElement).innerText));
    const missing = INTERFACE_ENDPOINTS.filter((e) => !headings.includes(`${e.method} ${e.key}`));
    if (missing.length > 0) console.log(`Interface endpoints not served yet: ${missing.map((e) => e.name).join(', ')}`);
    expect(missing.filter((e) => !e.pending)).toEqual([]);
    // Links and examples follow the prefix the page was opened under.
    expect(await page.locator('header a').getAttribute('href')).toBe('/gms/rpc/openapi.json');
    expect(await page.locator('#op-getRelationships pre.example-request').innerText()).toMatch(/^GET \/gms\/relationships\?urn=/);
    await page.close();
  });

  it('filters the endpoints as one types in the search box', async () => {
    const page = await context.newPage();
    await page.goto(`${svc.url}/rpc/docs`);
    const all = operations.map((o) => o.operation.operationId);

    await page.locator('#q').pressSequentially('relationships');
    const expected = operations.filter((o) => mentions(o, 'relationships')).map((o) => o.operation.operationId);
    expect(expected).toContain('getRelationships');
    // GET /relationships, the official client's /openapi/relationships/v1 and the OpenAPI v3 relationship scroll.
    expect(expected.length).toBeLessThanOrEqual(3);
    expect((await visibleEndpoints(page)).sort()).toEqual([...expected].sort());
    expect((await visibleNavEntries(page)).sort()).toEqual([...expected].sort());
    expect(await page.locator('#match-count').innerText()).toBe(`${expected.length} of ${all.length} endpoints`);
    expect(page.url()).toBe(`${svc.url}/rpc/docs?q=relationships`);
    expect(await page.locator('section.intro').isVisible()).toBe(false);
    await page.screenshot({ path: join(OUTPUT_DIR, 'rpc-docs-filtered.png') });

    await page.locator('#q').fill('getRelationships');
    expect(await visibleEndpoints(page)).toEqual(['getRelationships']);

    await page.locator('#q').fill('no such endpoint anywhere');
    expect(await visibleEndpoints(page)).toEqual([]);
    expect(await page.locator('#no-match').isVisible()).toBe(true);

    await page.locator('#q').fill('');
    expect((await visibleEndpoints(page)).sort()).toEqual([...all].sort());
    expect(consoleProblems).toEqual([]);
    await page.close();
  });

  it('is readable and filterable without JavaScript (the server renders and filters)', async () => {
    const noScript = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const page = await noScript.newPage();
    await page.goto(`${svc.url}/gms/rpc/docs`);
    expect((await visibleEndpoints(page)).sort()).toEqual(operations.map((o) => o.operation.operationId).sort());

    await page.locator('#q').fill('autocomplete');
    await Promise.all([page.waitForURL(/\?q=autocomplete$/), page.locator('#q').press('Enter')]);
    expect(new URL(page.url()).pathname).toBe('/gms/rpc/docs');
    expect(await visibleEndpoints(page)).toEqual(operations.filter((o) => mentions(o, 'autocomplete')).map((o) => o.operation.operationId));
    expect(await page.locator('#match-count').innerText()).toBe(`1 of ${operations.length} endpoints`);
    expect(await page.locator('section.intro').isVisible()).toBe(false);
    await noScript.close();
  });

  it('renders hostile text as text', async () => {
    const page = await context.newPage();
    await page.goto(`${svc.url}/rpc/docs?q=${encodeURIComponent('"><script>window.pwned=1</script>')}`);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('#q').inputValue()).toBe('"><script>window.pwned=1</script>');
    expect(await visibleEndpoints(page)).toEqual([]);
    await page.close();
  });
});
