import { join } from 'node:path';
import { loadConfig } from '../src/config';
import { Registry } from '../src/model/registry';
import { SearchService } from '../src/services/search/search-service';
import { createSearchEngine } from '../src/stores/search/adapters';
import { IndexNames } from '../src/stores/search/mappings';
import { backends, flag, report, ROOT, runLoad, startServiceProcess } from './lib';

/**
 * Search, browse and autocomplete latency on N datasets (default 100,000), beside the same search body sent straight
 * to the engine (built by the same query builder, without the service's HTTP, validation and Neo4j hit check).
 *   npx tsx bench/search.ts [--datasets 100000] [--requests 5000] [--concurrency 8]
 */
const datasets = flag('datasets', 100_000);
const requests = flag('requests', 5000);
const concurrency = flag('concurrency', 8);
const PLATFORMS = ['hive', 'kafka', 'snowflake', 'postgres', 'bigquery'];
const WORDS = ['orders', 'customers', 'payments', 'events', 'sessions', 'invoices', 'products', 'inventory', 'clicks', 'refunds'];

const urnOf = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:${PLATFORMS[i % 5]},db${i % 37}.${WORDS[i % 10]}_${i},PROD)`;

function proposals(i: number) {
  const urn = urnOf(i);
  const p = (aspectName: string, value: unknown) => ({ entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } });
  return [
    p('datasetProperties', { name: `${WORDS[i % 10]}_${i}`, description: `${WORDS[(i + 3) % 10]} data for ${WORDS[(i + 5) % 10]} analytics, row ${i}` }),
    p('globalTags', { tags: [{ tag: `urn:li:tag:tier${i % 4}` }] }),
    p('ownership', { owners: [{ owner: `urn:li:corpuser:owner${i % 100}`, type: 'DATAOWNER' }] }),
  ];
}

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const rows: Record<string, Record<string, unknown>> = {};
  const service = await startServiceProcess(b, { OUTBOX_BATCH_SIZE: '1000' });
  const engine = createSearchEngine({ engine: 'opensearch', url: b.searchUrl, timeoutMs: 30_000 });
  try {
    const seedStart = performance.now();
    // One batch at a time: concurrent batches all touching the same few tag nodes queue on their locks.
    const seed = await runLoad(1, Math.ceil(datasets / 50), async (batch) => {
      const list = [];
      for (let i = batch * 50; i < Math.min(datasets, (batch + 1) * 50); i++) list.push(...proposals(i));
      const res = await fetch(`${service.url}/aspects?action=ingestProposalBatch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ proposals: list }) });
      await res.arrayBuffer();
      return res.ok;
    });
    if (seed.errors > 0) throw new Error(`${seed.errors} seeding batches failed`);
    // Wait until the outbox is drained: the index count reaches the dataset count.
    for (;;) {
      await engine.refresh('datasetindex_v2');
      if ((await engine.count('datasetindex_v2')) >= datasets) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    rows.seeding = { datasets, aspects: datasets * 3, ingestSeconds: seed.seconds, untilSearchableSeconds: Math.round((performance.now() - seedStart) / 1000) };

    const post = async (action: string, body: unknown) => {
      const res = await fetch(`${service.url}/entities?action=${action}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await res.arrayBuffer();
      return res.ok;
    };
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
    await runLoad(concurrency, 500, (n) => post('search', searches(n)));
    rows['service search'] = { ...(await runLoad(concurrency, requests, (n) => post('search', searches(n)))) };
    rows['service browse'] = { ...(await runLoad(concurrency, requests, (n) => post('browse', { path: `/prod/${PLATFORMS[n % 5]}`, entity: 'dataset', start: 0, limit: 10 }))) };
    rows['service autocomplete'] = { ...(await runLoad(concurrency, requests, (n) => post('autocomplete', { query: `${WORDS[n % 10]}_${n % 9}`, entity: 'dataset', limit: 10 }))) };

    // Raw reference: the same search bodies straight to the engine.
    const config = loadConfig({ NEO4J_URI: b.neo4jUri, SEARCH_URL: b.searchUrl });
    const registry = Registry.load(join(ROOT, 'schema'), config.URN_NAMESPACE);
    const builder = new SearchService(registry, engine, new IndexNames(''), null as never);
    rows['engine search (raw)'] = {
      ...(await runLoad(concurrency, requests, async (n) => {
        const { index, body } = builder.buildSearch(searches(n) as never);
        await engine.search(index, { ...body, from: 0, size: 10 });
      })),
    };
  } finally {
    await engine.close();
    await service.stop();
    await b.stop();
  }
  report('search', rows, { datasets, requests, concurrency });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
