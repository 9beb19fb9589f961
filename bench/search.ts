import { join } from 'node:path';
import neo4j from 'neo4j-driver';
import { loadConfig } from '../src/config';
import { defaultBrowsePaths } from '../src/model/browse-paths';
import { contentHash } from '../src/model/canonical';
import { Registry } from '../src/model/registry';
import { parseUrn } from '../src/model/urn';
import { buildDocument } from '../src/services/indexing/document';
import { SearchService } from '../src/services/search/search-service';
import { AcrossEntitiesSearch, type AcrossRequest } from '../src/services/search/across-entities';
import { parseFilter } from '../src/services/search/query-builder';
import { TokenSigner } from '../src/auth/tokens';
import { createSearchEngine } from '../src/stores/search/adapters';
import type { BulkOperation, SearchEngine } from '../src/stores/search/engine';
import { entityIndexDefinition, IndexNames } from '../src/stores/search/mappings';
import { backends, compareWithRaw, flag, http, report, ROOT, runLoad, startServiceProcess, stringFlag, type ComparedOperation } from './lib';

/**
 * Search, autocomplete, browse and searchAcrossEntities on N datasets (default 100,000), each beside the same engine
 * requests sent straight to the engine (built by the service's own builders, without its HTTP, validation and
 * deleted-hit guard): p50 at one client, throughput at --concurrency clients, and their ratios. Then a GraphQL
 * scrollAcrossEntities through every urn in pages of --scroll-page (the graph client's get_urns_by_filter), beside the
 * engine's search_after through the same pages.
 *   npx tsx bench/search.ts [--datasets 100000] [--requests 2000] [--concurrency 8] [--seed direct|service|none]
 * --seed direct (default) writes entities, latest aspects and documents straight into Neo4j and the engine (what the
 * write path and the indexer would store, without edges and history); service: through ingestProposalBatch (slow);
 * none: reuse what BENCH_NEO4J_URI / BENCH_SEARCH_URL already hold.
 */
const datasets = flag('datasets', 100_000);
const requests = flag('requests', 2000);
const concurrency = flag('concurrency', 8);
const seedMode = stringFlag('seed', 'direct');
const scrollPage = flag('scroll-page', 5000);
const TOKEN_SECRET = 'bench-secret-0123456789abcdef0123456789abcdef';
const PLATFORMS = ['hive', 'kafka', 'snowflake', 'postgres', 'bigquery'];
const WORDS = ['orders', 'customers', 'payments', 'events', 'sessions', 'invoices', 'products', 'inventory', 'clicks', 'refunds'];
const INDEX = 'datasetindex_v2';

const urnOf = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:${PLATFORMS[i % 5]},db${i % 37}.${WORDS[i % 10]}_${i},PROD)`;

function aspectsOf(i: number): Record<string, Record<string, unknown>> {
  return {
    datasetProperties: { name: `${WORDS[i % 10]}_${i}`, description: `${WORDS[(i + 3) % 10]} data for ${WORDS[(i + 5) % 10]} analytics, row ${i}` },
    globalTags: { tags: [{ tag: `urn:li:tag:tier${i % 4}` }] },
    ownership: { owners: [{ owner: `urn:li:corpuser:owner${i % 100}`, type: 'DATAOWNER' }] },
  };
}

async function seedThroughService(url: string, engine: SearchEngine) {
  // One batch at a time: concurrent batches all touching the same few tag nodes queue on their locks.
  const seed = await runLoad(1, Math.ceil(datasets / 50), async (batch) => {
    const list = [];
    for (let i = batch * 50; i < Math.min(datasets, (batch + 1) * 50); i++) {
      const urn = urnOf(i);
      for (const [aspectName, value] of Object.entries(aspectsOf(i))) {
        list.push({ entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } });
      }
    }
    const res = await fetch(`${url}/aspects?action=ingestProposalBatch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ proposals: list }) });
    await res.arrayBuffer();
    return res.ok;
  });
  if (seed.errors > 0) throw new Error(`${seed.errors} seeding batches failed`);
  for (;;) {
    await engine.refresh(INDEX);
    if ((await engine.count(INDEX)) >= datasets) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Latest aspects (key and default browse paths included) as Neo4j nodes, and the indexer's documents, in batches. */
async function seedDirect(registry: Registry, neo4jUri: string, engine: SearchEngine) {
  const entity = registry.entity('dataset');
  if (!(await engine.indexExists(INDEX))) await engine.createIndex(INDEX, entityIndexDefinition(registry, entity));
  const driver = neo4j.driver(neo4jUri, undefined, { disableLosslessIntegers: true });
  const now = Date.now();
  const rev = now * 1000;
  const systemMetadata = JSON.stringify({ lastObserved: now, runId: 'bench' });
  const BATCH = 2000;
  try {
    for (let from = 0; from < datasets; from += BATCH) {
      const rows = [];
      const operations: BulkOperation[] = [];
      for (let i = from; i < Math.min(datasets, from + BATCH); i++) {
        const urn = urnOf(i);
        const parsed = parseUrn(urn);
        const values = new Map<string, Record<string, unknown>>(Object.entries(aspectsOf(i)));
        values.set(entity.keyAspect, registry.keyAspectFor(parsed, entity).value);
        values.set('browsePaths', { paths: defaultBrowsePaths(parsed) });
        rows.push({ urn, aspects: [...values].map(([name, value]) => ({ name, value: JSON.stringify(value), hash: contentHash(value) })) });
        operations.push({ op: 'index', index: INDEX, id: urn, doc: buildDocument(registry, entity, urn, values), version: rev });
      }
      await driver.executeQuery(
        `UNWIND $rows AS row
         MERGE (e:Entity {urn: row.urn}) ON CREATE SET e.type = 'dataset', e.createdAt = $now
         SET e.rev = $rev
         WITH e, row
         UNWIND row.aspects AS a
         MERGE (e)-[:ASPECT]->(l:Aspect {urn: row.urn, name: a.name, version: 0})
         SET l.value = a.value, l.hash = a.hash, l.createdTime = $now, l.createdActor = 'urn:li:corpuser:bench', l.systemMetadata = $systemMetadata`,
        { rows, now, rev, systemMetadata },
        { database: 'neo4j' },
      );
      const failed = (await engine.bulk(operations)).filter((r) => !r.ok);
      if (failed.length > 0) throw new Error(`${failed.length} documents refused, e.g. ${failed[0].error}`);
    }
  } finally {
    await driver.close();
  }
  await engine.refresh(INDEX);
}

const searches = (n: number) => {
  switch (n % 4) {
    case 0:
      return { input: WORDS[n % 10], entity: 'dataset', start: 0, count: 10 };
    case 1:
      return { input: `tags:tier${n % 4}`, entity: 'dataset', start: 0, count: 10 };
    case 2:
      return { input: '*', entity: 'dataset', start: 0, count: 10, filter: { or: [{ and: [{ field: 'platform', value: `urn:li:dataPlatform:${PLATFORMS[n % 5]}`, condition: 'EQUAL' }] }] } };
    default:
      return { input: `${WORDS[n % 10]}_${(n * 31) % datasets}`, entity: 'dataset', start: 0, count: 10 };
  }
};
const browses = (n: number) => ({ path: `/prod/${PLATFORMS[n % 5]}`, entity: 'dataset', start: 0, limit: 10 });
const autocompletes = (n: number) => ({ query: `${WORDS[n % 10]}_${n % 9}`, entity: 'dataset', limit: 10 });
/** searchAcrossEntities as the rest.li body, and as the service's request (the same words and filters as `searches`). */
const acrossBodies = (n: number) => {
  const { input, filter } = searches(n) as { input: string; filter?: unknown };
  return { input, entities: ['dataset', 'chart', 'dashboard'], start: 0, count: 10, ...(filter ? { filter } : {}) };
};
const acrossRequest = (n: number): AcrossRequest & { start: number } => {
  const body = acrossBodies(n) as { input: string; filter?: unknown };
  return {
    types: ['dataset', 'chart', 'dashboard'],
    input: body.input,
    filter: parseFilter(body.filter),
    sort: [],
    includeSoftDeleted: false,
    count: 10,
    start: 0,
  };
};

const SCROLL_QUERY = `query scroll($scrollId: String, $count: Int) {
  scrollAcrossEntities(input: {types: [DATASET], query: "*", count: $count, scrollId: $scrollId,
                               searchFlags: {skipHighlighting: true, skipAggregates: true}}) {
    nextScrollId
    searchResults { entity { urn } }
  }
}`;

/** Every urn through GraphQL scrollAcrossEntities, page after page, as the graph client's get_urns_by_filter does. */
async function graphqlScroll(url: string, token: string): Promise<{ urns: number; seconds: number; pages: number }> {
  const started = performance.now();
  let scrollId: string | null = null;
  let urns = 0;
  let pages = 0;
  do {
    const res = await http(`${url}/api/graphql`, { json: { query: SCROLL_QUERY, variables: { scrollId, count: scrollPage } }, headers: { Authorization: `Bearer ${token}` } });
    const body = JSON.parse(res.text) as { data?: { scrollAcrossEntities: { nextScrollId: string | null; searchResults: unknown[] } }; errors?: unknown };
    if (!res.ok || !body.data) throw new Error(`scroll failed: ${res.status} ${res.text.slice(0, 300)}`);
    urns += body.data.scrollAcrossEntities.searchResults.length;
    scrollId = body.data.scrollAcrossEntities.nextScrollId;
    pages++;
  } while (scrollId);
  return { urns, seconds: Math.round(performance.now() - started) / 1000, pages };
}

/** The same pages straight from the engine: the service's own page request, search_after the last hit's sort values. */
async function engineScroll(engine: SearchEngine, across: AcrossEntitiesSearch): Promise<{ urns: number; seconds: number; pages: number }> {
  const started = performance.now();
  const request: AcrossRequest = { types: ['dataset'], input: '*', filter: [], sort: [], includeSoftDeleted: false, count: scrollPage, skipAggregates: true, skipHighlighting: true };
  let after: unknown[] | null = null;
  let urns = 0;
  let pages = 0;
  for (;;) {
    const { index, body } = across.buildScrollPage(request, after);
    const page = await engine.search(index, body);
    urns += page.hits.length;
    pages++;
    if (page.hits.length < scrollPage) break;
    after = page.hits[page.hits.length - 1].sort ?? null;
  }
  return { urns, seconds: Math.round(performance.now() - started) / 1000, pages };
}

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const rows: Record<string, Record<string, unknown>> = {};
  const service = await startServiceProcess(b, { OUTBOX_BATCH_SIZE: '1000', TOKEN_SECRET });
  const engine = createSearchEngine({ engine: 'opensearch', url: b.searchUrl, timeoutMs: 30_000 });
  const config = loadConfig({ NEO4J_URI: b.neo4jUri, SEARCH_URL: b.searchUrl });
  const registry = Registry.load(join(ROOT, 'schema'), config.URN_NAMESPACE);
  try {
    const seedStart = performance.now();
    if (seedMode === 'service') await seedThroughService(service.url, engine);
    else if (seedMode === 'direct') await seedDirect(registry, b.neo4jUri, engine);
    rows.seeding = { mode: seedMode, datasets, indexed: await engine.count(INDEX), seconds: Math.round((performance.now() - seedStart) / 1000) };

    const post = async (action: string, body: unknown) => {
      return (await http(`${service.url}/entities?action=${action}`, { json: body })).ok;
    };
    // The raw reference: the same engine requests, built by the service's own builders, sent straight to the engine.
    const builder = new SearchService(registry, engine, new IndexNames(''), null as never);
    const across = new AcrossEntitiesSearch(registry, new IndexNames(''), null as never);
    const operations: Record<string, ComparedOperation> = {
      search: {
        service: (n) => post('search', searches(n)),
        raw: async (n) => {
          const { index, body } = builder.buildSearch(searches(n));
          await engine.search(index, { ...body, from: 0, size: 10 });
        },
      },
      autocomplete: {
        service: (n) => post('autocomplete', autocompletes(n)),
        raw: async (n) => {
          const { index, body } = builder.buildAutocomplete(autocompletes(n));
          await engine.search(index, body);
        },
      },
      browse: {
        service: (n) => post('browse', browses(n)),
        raw: async (n) => {
          const { index, groups, items } = builder.buildBrowse(browses(n));
          await Promise.all([engine.search(index, groups), engine.search(index, items)]);
        },
      },
      searchAcrossEntities: {
        service: (n) => post('searchAcrossEntities', acrossBodies(n)),
        raw: async (n) => {
          await engine.msearch(across.buildSearch(acrossRequest(n)));
        },
      },
    };
    rows.summary = await compareWithRaw(operations, rows, { concurrency, requests, warmup: 300, rawLabel: 'engine', pids: { service: service.child.pid!, ...b.pids } });
    const { token } = await new TokenSigner(TOKEN_SECRET).issue({ actor: 'urn:li:corpuser:bench', scopes: ['read'], ttlSeconds: 3600 });
    // Warm both, then alternate: the later run of each side is kept.
    const scrolls: Record<string, { urns: number; seconds: number; pages: number }> = {};
    for (let round = 0; round < 2; round++) {
      scrolls.graphql = await graphqlScroll(service.url, token);
      scrolls.engine = await engineScroll(engine, across);
    }
    rows['GraphQL scrollAcrossEntities, every urn'] = scrolls.graphql;
    rows['engine search_after (raw), same pages'] = scrolls.engine;
    rows.scroll = { serviceOverRaw: Math.round((scrolls.graphql.seconds / scrolls.engine.seconds) * 100) / 100 };
  } finally {
    await engine.close();
    await service.stop();
    await b.stop();
  }
  report('search', rows, { datasets, requests, concurrency, seed: seedMode });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
