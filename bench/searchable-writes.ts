import neo4j from 'neo4j-driver';
import { backends, compareWithRaw, flag, http, report, startServiceProcess, type RunResult } from './lib';

/**
 * Writes that answer once searchable (X-DataHub-Sync-Index-Update: true, EmitMode.SYNC_WAIT) beside plain writes, each
 * beside its raw reference in the same run. Raw, searchable: the same value written in one Neo4j transaction, then its
 * document indexed with `refresh=true` (the fastest an index makes one document searchable); raw, plain: the same
 * without the refresh. One `datasetProperties` proposal per request, a new dataset each time.
 *   npx tsx bench/searchable-writes.ts [--requests 400] [--concurrency 16] [--warmup 100]
 */
const requests = flag('requests', 400);
const concurrency = flag('concurrency', 16);
const warmup = flag('warmup', 100);

const RAW_INDEX = 'bench_searchable_raw';
const RAW_STATEMENT = `
MERGE (e:BenchSearchable {urn: $urn})
CREATE (e)-[:ASPECT]->(:BenchSearchableAspect {name: 'datasetProperties', value: $value, version: 0, createdOn: timestamp()})`;

async function main() {
  const b = await backends();
  const service = await startServiceProcess(b);
  const driver = neo4j.driver(b.neo4jUri, undefined, { disableLosslessIntegers: true });
  const rows: Record<string, RunResult | Record<string, unknown>> = {};
  try {
    await driver.executeQuery('CREATE INDEX bench_searchable IF NOT EXISTS FOR (n:BenchSearchable) ON (n.urn)', {}, { database: 'neo4j' });
    await http(`${b.searchUrl}/${RAW_INDEX}`, { method: 'PUT', json: { settings: { number_of_shards: 1, number_of_replicas: 0 } } });
    const run = Date.now().toString(36);
    let n = 0;
    const next = (side: string) => {
      const name = `${side}_${run}_${n++}`;
      return { name, urn: `urn:li:dataset:(urn:li:dataPlatform:hive,bench.${name},PROD)`, value: { name, description: `orders of ${name}, one row per order line`, customProperties: { owner: 'sales', tier: 'gold' } } };
    };
    const serviceWrite = (headers: Record<string, string> | undefined) => async () => {
      const { urn, value } = next('service');
      const proposal = { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'datasetProperties', aspect: { value: JSON.stringify(value), contentType: 'application/json' }, ...(headers ? { headers } : {}) };
      return (await http(`${service.url}/aspects?action=ingestProposal`, { json: { proposal } })).ok;
    };
    const rawWrite = (refresh: boolean) => async () => {
      const { urn, value } = next('raw');
      await driver.executeQuery(RAW_STATEMENT, { urn, value: JSON.stringify(value) }, { database: 'neo4j' });
      const res = await http(`${b.searchUrl}/${RAW_INDEX}/_doc/${encodeURIComponent(urn)}?refresh=${refresh}`, { method: 'PUT', json: { urn, ...value } });
      if (!res.ok) throw new Error(res.text);
    };
    const summary = await compareWithRaw(
      {
        searchable: { service: serviceWrite({ 'X-DataHub-Sync-Index-Update': 'true' }), raw: rawWrite(true) },
        plain: { service: serviceWrite(undefined), raw: rawWrite(false) },
      },
      rows,
      { concurrency, requests, warmup, rawLabel: 'Neo4j + engine', pids: b.pids },
    );
    report('searchable-writes', rows, { requests, concurrency, summary });
  } finally {
    await driver.close();
    await service.stop();
    await b.stop();
  }
}

void main();
