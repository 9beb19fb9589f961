import neo4j from 'neo4j-driver';
import { startHttpFloor } from './http-floor';
import { backends, compareWithRaw, flag, http, report, startServiceProcess, stringFlag, type ComparedOperation } from './lib';

/**
 * entitiesV2 and relationships through the service, beside the same Cypher statements sent straight to Neo4j with
 * neo4j-driver (the raw reference): p50 at 1 client, throughput at --concurrency clients, and their ratios.
 * Datasets carry a schema of 10-40 fields, properties, ownership by skewed owners (owner 0 owns about half of all
 * datasets) and tags; relationships pages through owners' OwnedBy edges, hot owners included. entitiesV2 is also sent
 * through a bare node:http server (bench/http-floor.ts), the floor the service's ratio is read against, and so is
 * relationships (the floor of reads without kept pages).
 * The service processes here serve cached entities and relationship pages without asking Neo4j (READ_CACHE_UNCHECKED=true;
 * every write tells them first): entitiesV2 is measured again with requests alternating between two service processes,
 * and both again through a process that checks every cached copy with Neo4j and keeps no relationship pages
 * (READ_CACHE_UNCHECKED=false).
 *   npx tsx bench/read.ts [--datasets 2000] [--requests 10000] [--concurrency 32] [--only entitiesV2|relationships]
 */
const datasets = flag('datasets', 2000);
const requests = flag('requests', 10_000);
const concurrency = flag('concurrency', 32);
const OWNERS = 50;

/** The raw references: the single best statement for one request's answer (the service shares statements between requests). */
const RAW_LATEST = `MATCH (e:Entity {urn: $urn})-[:ASPECT]->(a:Aspect)
WHERE $names IS NULL OR a.name IN $names
RETURN a.name AS name, a.value AS value, a.createdTime AS createdTime, a.createdActor AS createdActor, a.systemMetadata AS systemMetadata`;
const RAW_INCOMING = `MATCH (s:Entity {urn: $urn})<-[r]-(t:Entity)
WHERE size($types) = 0 OR type(r) IN $types
WITH DISTINCT type(r) AS type, t.urn AS entity
ORDER BY type, entity
WITH collect(type + '|' + entity) AS rows
RETURN size(rows) AS total, rows[$start..($start + $count)] AS page`;

const datasetUrn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,read.table_${i},PROD)`;
/** Skewed: owner 0 owns about half the datasets, owner 1 a quarter, and so on. */
const ownerOf = (i: number) => Math.min(OWNERS - 1, Math.floor(-Math.log2(((Math.imul(i + 1, 2654435761) >>> 0) / 2 ** 32) || 1e-9) * 0.9));
const ownerUrn = (o: number) => `urn:li:corpuser:reader_${o}`;

function proposal(urn: string, aspectName: string, value: unknown) {
  return { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } };
}

function schema(i: number) {
  const fields = Array.from({ length: 10 + (i % 31) }, (_, f) => ({
    fieldPath: `column_${f}`,
    nativeDataType: f % 3 ? 'string' : 'bigint',
    type: { type: { [f % 3 ? 'com.linkedin.schema.StringType' : 'com.linkedin.schema.NumberType']: {} } },
    description: `Column ${f} of table ${i}`,
    nullable: f % 2 === 0,
  }));
  return { schemaName: `table_${i}`, platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } }, fields };
}

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const rows: Record<string, Record<string, unknown>> = {};
  const service = await startServiceProcess(b, { READ_CACHE_UNCHECKED: 'true' });
  const serviceStarted = performance.now();
  const driver = neo4j.driver(b.neo4jUri, undefined, { maxConnectionPoolSize: 100, disableLosslessIntegers: true });
  try {
    for (let start = 0; start < datasets; start += 100) {
      const proposals = [];
      for (let i = start; i < Math.min(datasets, start + 100); i++) {
        proposals.push(proposal(datasetUrn(i), 'datasetProperties', { name: `table_${i}`, description: `read benchmark ${i}`, customProperties: { team: `team_${i % 7}` } }));
        proposals.push(proposal(datasetUrn(i), 'schemaMetadata', schema(i)));
        proposals.push(proposal(datasetUrn(i), 'ownership', { owners: [{ owner: ownerUrn(ownerOf(i)), type: 'DATAOWNER' }] }));
        proposals.push(proposal(datasetUrn(i), 'globalTags', { tags: [{ tag: 'urn:li:tag:pii' }, { tag: `urn:li:tag:read_${i % 20}` }] }));
      }
      const res = await http(`${service.url}/aspects?action=ingestProposalBatch`, { json: { proposals } });
      if (!res.ok) throw new Error(`seeding failed: ${res.status} ${res.text}`);
    }
    // Unchecked reads begin once every write begun before the process started can have ended (BACKEND_TIMEOUT_MS + 3.5 s):
    // seeding a catalog that is already there can take less than that.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 9000 - (performance.now() - serviceStarted))));
    const pick = (n: number) => (n * 7919) % datasets;
    // Owners in proportion to how often they appear: hot owners are asked for most.
    const owner = (n: number) => ownerOf(pick(n));
    const get = async (path: string) => (await http(`${service.url}${path}`)).ok;
    // The best raw form: one auto-commit statement per request (one round trip; executeQuery would add BEGIN and COMMIT).
    const query = async (statement: string, params: Record<string, unknown>) => {
      const session = driver.session({ database: 'neo4j', defaultAccessMode: neo4j.session.READ });
      try {
        await session.run(statement, params);
      } finally {
        await session.close();
      }
    };
    const floor = await startHttpFloor(b.neo4jUri, { latest: RAW_LATEST, incoming: RAW_INCOMING });
    const operations: Record<string, ComparedOperation> = {
      entitiesV2: {
        service: (n) => get(`/entitiesV2/${encodeURIComponent(datasetUrn(pick(n)))}`),
        raw: (n) => query(RAW_LATEST, { urn: datasetUrn(pick(n)), names: null }),
      },
      // Not the service: a bare Node HTTP server in front of Neo4j, the floor the service is read against (bench/http-floor.ts).
      'entitiesV2 via a bare node:http server': {
        service: async (n) => (await http(`${floor.url}/${encodeURIComponent(datasetUrn(pick(n)))}`)).ok,
        raw: (n) => query(RAW_LATEST, { urn: datasetUrn(pick(n)), names: null }),
      },
      relationships: {
        service: (n) => get(`/relationships?direction=INCOMING&urn=${encodeURIComponent(ownerUrn(owner(n)))}&types=OwnedBy&count=100`),
        raw: (n) => query(RAW_INCOMING, { urn: ownerUrn(owner(n)), types: ['OwnedBy'], start: neo4j.int(0), count: neo4j.int(100) }),
      },
      // The floor for relationships read without kept pages (READ_CACHE_UNCHECKED=false, the default) below.
      'relationships via a bare node:http server': {
        service: async (n) => (await http(`${floor.url}/relationships?direction=INCOMING&urn=${encodeURIComponent(ownerUrn(owner(n)))}&types=OwnedBy&count=100`)).ok,
        raw: (n) => query(RAW_INCOMING, { urn: ownerUrn(owner(n)), types: ['OwnedBy'], start: neo4j.int(0), count: neo4j.int(100) }),
      },
    };
    const only = stringFlag('only', '');
    if (only) for (const name of Object.keys(operations)) if (!name.startsWith(only)) delete operations[name];
    const options = { concurrency, requests, warmup: 2000, rawLabel: 'neo4j-driver', pids: { service: service.child.pid!, ...b.pids } };
    let summary: Record<string, Record<string, number>>;
    try {
      summary = await compareWithRaw(operations, rows, options);
    } finally {
      floor.stop();
    }
    if (!only || 'relationships'.startsWith(only)) {
      const checking = await startServiceProcess(b, { READ_CACHE_UNCHECKED: 'false' });
      try {
        const checked = {
          'relationships, no pages kept (READ_CACHE_UNCHECKED=false)': {
            service: async (n: number) => (await http(`${checking.url}/relationships?direction=INCOMING&urn=${encodeURIComponent(ownerUrn(owner(n)))}&types=OwnedBy&count=100`)).ok,
            raw: operations.relationships.raw,
          },
        };
        Object.assign(summary, await compareWithRaw(checked, rows, { ...options, pids: { ...options.pids, service: checking.child.pid! } }));
      } finally {
        await checking.stop();
      }
    }
    if (!only || 'entitiesV2'.startsWith(only)) {
      const entity = (n: number) => `/entitiesV2/${encodeURIComponent(datasetUrn(pick(n)))}`;
      const second = await startServiceProcess(b, { READ_CACHE_UNCHECKED: 'true' });
      try {
        // A process trusts its cache once every write begun before it started can have ended (BACKEND_TIMEOUT_MS + 3.5 s).
        await new Promise((resolve) => setTimeout(resolve, 9000));
        const alternating = {
          'entitiesV2, 2 service processes (requests alternate)': {
            service: async (n: number) => (await http(`${n % 2 ? second.url : service.url}${entity(n)}`)).ok,
            raw: operations.entitiesV2.raw,
          },
        };
        Object.assign(summary, await compareWithRaw(alternating, rows, { ...options, pids: { ...options.pids, 'second service': second.child.pid! } }));
      } finally {
        await second.stop();
      }
      const checking = await startServiceProcess(b, { READ_CACHE_UNCHECKED: 'false' });
      try {
        const checked = {
          'entitiesV2, cache checked with Neo4j (READ_CACHE_UNCHECKED=false)': {
            service: async (n: number) => (await http(`${checking.url}${entity(n)}`)).ok,
            raw: operations.entitiesV2.raw,
          },
        };
        Object.assign(summary, await compareWithRaw(checked, rows, { ...options, pids: { ...options.pids, service: checking.child.pid! } }));
      } finally {
        await checking.stop();
      }
    }
    rows.summary = summary;
  } finally {
    await driver.close();
    await service.stop();
    await b.stop();
  }
  report('read', rows, { datasets, requests, concurrency });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
