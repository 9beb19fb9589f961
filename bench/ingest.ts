import neo4j from 'neo4j-driver';
import { join } from 'node:path';
import { contentHash } from '../src/model/canonical';
import { CypherLibrary } from '../src/stores/graph/cypher';
import { backends, flag, report, ROOT, runLoad, startServiceProcess } from './lib';

/**
 * Jobs are spread over entities (job n writes aspect ⌊n/N⌋ of dataset n mod N), as many ingestion clients writing
 * different entities would, rather than 16 writers queueing on one entity's lock.
 *
 * ingestProposal throughput: N datasets x 5 aspects through the service with 16 concurrent HTTP clients, beside the
 * same upserts sent straight to Neo4j with neo4j-driver (same statement, same parameters, 16 concurrent sessions).
 *   npx tsx bench/ingest.ts [--datasets 10000] [--concurrency 16]
 */
const datasets = flag('datasets', 10_000);
const concurrency = flag('concurrency', 16);

function aspectsOf(prefix: string, i: number) {
  const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,${prefix}.table_${i},PROD)`;
  const upstream = `urn:li:dataset:(urn:li:dataPlatform:hive,${prefix}.table_${Math.max(0, i - 1)},PROD)`;
  const owner = `urn:li:corpuser:user_${i % 500}`;
  const tag = `urn:li:tag:tag_${i % 200}`;
  return {
    urn,
    aspects: [
      { name: 'datasetProperties', value: { name: `table_${i}`, description: `Benchmark table number ${i} of ${prefix}`, customProperties: { team: `team_${i % 7}` } }, edges: [] as { type: string; target: string; targetType: string }[] },
      { name: 'ownership', value: { owners: [{ owner, type: 'DATAOWNER' }] }, edges: [{ type: 'OwnedBy', target: owner, targetType: 'corpuser' }] },
      { name: 'globalTags', value: { tags: [{ tag }] }, edges: [{ type: 'TaggedWith', target: tag, targetType: 'tag' }] },
      { name: 'status', value: { removed: false }, edges: [] },
      {
        name: 'upstreamLineage',
        value: { upstreams: [{ dataset: upstream, type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:bench' } }] },
        edges: [{ type: 'DownstreamOf', target: upstream, targetType: 'dataset' }],
      },
    ],
  };
}

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const total = datasets * 5;
  const rows: Record<string, Record<string, unknown>> = {};
  try {
    // Raw reference: the upsert statement straight through neo4j-driver.
    const driver = neo4j.driver(b.neo4jUri, undefined, { maxConnectionPoolSize: 100 });
    const statement = new CypherLibrary(join(ROOT, 'cypher')).get('aspects/upsert');
    const keyDefaults = (urn: string) => {
      const key = { platform: 'urn:li:dataPlatform:hive', name: urn.split(',')[1], origin: 'PROD' };
      return [{ name: 'datasetKey', value: JSON.stringify(key), hash: contentHash(key) }];
    };
    const raw = await runLoad(concurrency, total, async (n) => {
      const { urn, aspects } = aspectsOf('raw', n % datasets);
      const a = aspects[Math.floor(n / datasets)];
      const now = Date.now();
      const session = driver.session({ database: 'neo4j' });
      try {
        await session.executeWrite((tx) =>
          tx.run(statement, {
            urn,
            entityType: 'dataset',
            name: a.name,
            value: JSON.stringify(a.value),
            hash: contentHash(a.value),
            actor: 'urn:li:corpuser:bench',
            now,
            systemMetadata: JSON.stringify({ runId: 'bench', lastObserved: now }),
            retention: 20,
            edges: a.edges,
            edgeKeys: a.edges.map((e) => `${e.type}|${e.target}`),
            defaults: keyDefaults(urn),
            revFloor: now * 1000,
            ns: 'raw-bench',
          }),
        );
      } finally {
        await session.close();
      }
    });
    rows['neo4j-driver (raw)'] = { ...raw, aspectsPerSecond: raw.perSecond };
    // CALL … IN TRANSACTIONS needs an auto-commit transaction.
    const cleanup = driver.session({ database: 'neo4j' });
    await cleanup.run("MATCH (o:Outbox {ns: 'raw-bench'}) CALL (o) { DELETE o } IN TRANSACTIONS OF 5000 ROWS");
    await cleanup.close();
    await driver.close();

    // The service, in its own process, over HTTP.
    const service = await startServiceProcess(b);
    try {
      const result = await runLoad(concurrency, total, async (n) => {
        const { urn, aspects } = aspectsOf('svc', n % datasets);
        const a = aspects[Math.floor(n / datasets)];
        const res = await fetch(`${service.url}/aspects?action=ingestProposal`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            proposal: { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: a.name, aspect: { value: JSON.stringify(a.value), contentType: 'application/json' } },
          }),
        });
        await res.arrayBuffer();
        return res.ok;
      });
      rows['service ingestProposal'] = { ...result, aspectsPerSecond: result.perSecond };
      rows.ratio = { serviceOverRaw: Math.round((result.perSecond / raw.perSecond) * 100) / 100 };
    } finally {
      await service.stop();
    }
  } finally {
    await b.stop();
  }
  report('ingest', rows, { datasets, aspectsPerDataset: 5, concurrency });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
