import neo4j from 'neo4j-driver';
import { join } from 'node:path';
import { CypherLibrary } from '../src/stores/graph/cypher';
import { backends, flag, report, ROOT, runLoad, startServiceProcess } from './lib';

/**
 * Read latency at 32 concurrent readers: entitiesV2 and relationships through the service, beside the same Cypher
 * statements sent straight to Neo4j with neo4j-driver.
 *   npx tsx bench/read.ts [--datasets 2000] [--requests 20000] [--concurrency 32]
 */
const datasets = flag('datasets', 2000);
const requests = flag('requests', 20_000);
const concurrency = flag('concurrency', 32);

const datasetUrn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,read.table_${i},PROD)`;
const ownerUrn = (i: number) => `urn:li:corpuser:reader_${i % 50}`;

function proposal(urn: string, aspectName: string, value: unknown) {
  return { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } };
}

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const rows: Record<string, Record<string, unknown>> = {};
  const service = await startServiceProcess(b);
  try {
    for (let start = 0; start < datasets; start += 100) {
      const proposals = [];
      for (let i = start; i < Math.min(datasets, start + 100); i++) {
        proposals.push(proposal(datasetUrn(i), 'datasetProperties', { name: `table_${i}`, description: `read benchmark ${i}` }));
        proposals.push(proposal(datasetUrn(i), 'ownership', { owners: [{ owner: ownerUrn(i), type: 'DATAOWNER' }] }));
        proposals.push(proposal(datasetUrn(i), 'globalTags', { tags: [{ tag: `urn:li:tag:read_${i % 20}` }] }));
      }
      const res = await fetch(`${service.url}/aspects?action=ingestProposalBatch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ proposals }) });
      if (!res.ok) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
    }
    const pick = (n: number) => (n * 7919) % datasets;
    const get = async (path: string) => {
      const res = await fetch(`${service.url}${path}`);
      await res.arrayBuffer();
      return res.ok;
    };
    // Warm up both paths before measuring.
    await runLoad(concurrency, 2000, (n) => get(`/entitiesV2/${encodeURIComponent(datasetUrn(pick(n)))}`));
    rows['service entitiesV2'] = { ...(await runLoad(concurrency, requests, (n) => get(`/entitiesV2/${encodeURIComponent(datasetUrn(pick(n)))}`))) };
    rows['service relationships'] = {
      ...(await runLoad(concurrency, requests, (n) => get(`/relationships?direction=INCOMING&urn=${encodeURIComponent(ownerUrn(n))}&types=OwnedBy&count=100`))),
    };

    const driver = neo4j.driver(b.neo4jUri, undefined, { maxConnectionPoolSize: 100, disableLosslessIntegers: true });
    const cypher = new CypherLibrary(join(ROOT, 'cypher'));
    const query = async (statement: string, params: Record<string, unknown>) => {
      await driver.executeQuery(cypher.get(statement), params, { database: 'neo4j', routing: 'READ' });
    };
    await runLoad(concurrency, 2000, (n) => query('aspects/latest', { urn: datasetUrn(pick(n)), names: null }));
    rows['neo4j-driver latest aspects (raw)'] = { ...(await runLoad(concurrency, requests, (n) => query('aspects/latest', { urn: datasetUrn(pick(n)), names: null }))) };
    rows['neo4j-driver relationships (raw)'] = {
      ...(await runLoad(concurrency, requests, (n) =>
        query('relationships/incoming', { urn: ownerUrn(n), types: ['OwnedBy'], start: neo4j.int(0), count: neo4j.int(100) }),
      )),
    };
    await driver.close();
  } finally {
    await service.stop();
    await b.stop();
  }
  report('read', rows, { datasets, requests, concurrency });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
