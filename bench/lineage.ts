import neo4j, { type Driver } from 'neo4j-driver';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Registry } from '../src/model/registry';
import { CypherLibrary } from '../src/stores/graph/cypher';
import { disableNagleForDriverSockets, type Neo4jExecutor } from '../src/stores/graph/neo4j-executor';
import { LineageStore, type LineageDirection, type LineageQuery } from '../src/stores/graph/lineage-store';
import { backends, flag, percentile, report, ROOT, startServiceProcess } from './lib';

/**
 * Multi-hop lineage on a 100,000-dataset layered DAG written straight into Neo4j (the shape the service projects:
 * :Entity nodes, DownstreamOf edges from downstream to upstream, each with a datasetKey aspect).
 * Through the service (searchAcrossLineage) 1, 3 and 10 hops up and down from random nodes and from hubs, beside
 * (a) the very statement and parameters the service runs, sent raw with neo4j-driver, and (b) hop by hop, one query
 * per hop (how stores without graph traversal do it). Sequential requests (latency, not throughput).
 *   BENCH_NEO4J_URI=bolt://127.0.0.1:7698 BENCH_SEARCH_URL=http://127.0.0.1:9211 npx tsx bench/lineage.ts [--datasets 100000] [--samples 100]
 */
const datasets = flag('datasets', 100_000);
const samples = flag('samples', 100);
const layers = 20;
const perLayer = Math.ceil(datasets / layers);
const HUB_FAN = 1500;
const urn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:${i % 3 === 0 ? 'snowflake' : 'hive'},lin.t${i},PROD)`;

/** Deterministic pseudo-random numbers, so every run builds the same graph. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** Upstream edges [downstream, upstream]: each node of layer L>0 reads 1–4 nodes (skewed to 1–2) of the 3 layers above. */
function buildEdges(): { edges: [number, number][]; hubsDown: number[]; hubsUp: number[] } {
  const r = rng(42);
  const edges: [number, number][] = [];
  for (let i = perLayer; i < datasets; i++) {
    const layer = Math.floor(i / perLayer);
    const k = 1 + Math.floor(r() ** 2 * 4);
    for (let j = 0; j < k; j++) {
      const from = Math.max(0, layer - 1 - Math.floor(r() * 3));
      edges.push([i, from * perLayer + Math.floor(r() * perLayer)]);
    }
  }
  // Hubs: 3 nodes of layer 2 read by 1,500 nodes each further down; 2 nodes of layer 15 reading 1,200 nodes each.
  const hubsDown = [2 * perLayer + 1, 2 * perLayer + 2, 2 * perLayer + 3];
  for (const h of hubsDown) for (let j = 0; j < HUB_FAN; j++) edges.push([3 * perLayer + Math.floor(r() * (datasets - 3 * perLayer)), h]);
  const hubsUp = [15 * perLayer + 1, 15 * perLayer + 2];
  for (const h of hubsUp) for (let j = 0; j < 1200; j++) edges.push([h, Math.floor(r() * 14 * perLayer)]);
  return { edges, hubsDown, hubsUp };
}

async function seed(driver: Driver, edges: [number, number][]) {
  const run = (text: string, params: Record<string, unknown>) => driver.executeQuery(text, params, { database: 'neo4j' });
  const existing = await run('MATCH ()-[r:DownstreamOf]->() RETURN count(r) AS n', {});
  if (Number(existing.records[0].get('n')) >= edges.length * 0.99) return false;
  for (let start = 0; start < datasets; start += 5000) {
    const rows = Array.from({ length: Math.min(5000, datasets - start) }, (_, k) => {
      const i = start + k;
      return { urn: urn(i), key: JSON.stringify({ platform: `urn:li:dataPlatform:${i % 3 === 0 ? 'snowflake' : 'hive'}`, name: `lin.t${i}`, origin: 'PROD' }) };
    });
    await run(
      `UNWIND $rows AS row
       MERGE (e:Entity {urn: row.urn}) ON CREATE SET e.type = 'dataset', e.createdAt = 0, e.rev = 1
       WITH e, row WHERE NOT EXISTS { (e)-[:ASPECT]->() }
       CREATE (e)-[:ASPECT]->(:Aspect {urn: row.urn, name: 'datasetKey', version: 0, value: row.key, hash: '', createdTime: 0, createdActor: 'urn:li:corpuser:bench'})`,
      { rows },
    );
  }
  for (let start = 0; start < edges.length; start += 10_000) {
    const rows = edges.slice(start, start + 10_000).map(([d, u]) => ({ d: urn(d), u: urn(u) }));
    await run(
      `UNWIND $rows AS row
       MATCH (d:Entity {urn: row.d}) MATCH (u:Entity {urn: row.u})
       MERGE (d)-[r:DownstreamOf {aspect: 'upstreamLineage'}]->(u) SET r.isLineage = true`,
      { rows },
    );
  }
  return true;
}

/** Hop by hop: one query per hop over the frontier, visited set kept by the caller, same visit cap. */
async function hopByHop(driver: Driver, start: string, direction: LineageDirection, hops: number, visitCap: number): Promise<number> {
  const text =
    direction === 'DOWNSTREAM'
      ? 'UNWIND $frontier AS u MATCH (:Entity {urn: u})<-[:DownstreamOf]-(m:Entity) RETURN DISTINCT m.urn AS urn'
      : 'UNWIND $frontier AS u MATCH (:Entity {urn: u})-[:DownstreamOf]->(m:Entity) RETURN DISTINCT m.urn AS urn';
  const visited = new Set([start]);
  let frontier = [start];
  for (let h = 0; h < hops && frontier.length > 0 && visited.size <= visitCap; h++) {
    const res = await driver.executeQuery(text, { frontier }, { database: 'neo4j', routing: 'READ' });
    frontier = res.records.map((r) => r.get('urn') as string).filter((u) => !visited.has(u));
    for (const u of frontier) visited.add(u);
  }
  return visited.size - 1;
}

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const out = await fn();
  return [performance.now() - t, out];
}

function summary(latencies: number[]) {
  const s = [...latencies].sort((a, b) => a - b);
  const r = (n: number) => Math.round(n * 100) / 100;
  return { n: s.length, p50: r(percentile(s, 50)), p95: r(percentile(s, 95)), p99: r(percentile(s, 99)), max: r(s[s.length - 1] ?? 0) };
}

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const service = await startServiceProcess(b, { LINEAGE_DEADLINE_MS: '30000' });
  // The raw references get the same TCP_NODELAY the service's driver has, so they are not slowed by Nagle's algorithm.
  disableNagleForDriverSockets();
  const driver = neo4j.driver(b.neo4jUri, undefined, { maxConnectionPoolSize: 10, disableLosslessIntegers: true });
  const rows: Record<string, Record<string, unknown>> = {};
  const profiles: Record<string, unknown> = {};
  try {
    const { edges, hubsDown, hubsUp } = buildEdges();
    const [seedMs, seeded] = await time(() => seed(driver, edges));
    console.error(`graph: ${datasets} datasets, ${edges.length} edges (${seeded ? `seeded in ${Math.round(seedMs / 1000)} s` : 'already there'})`);

    const registry = Registry.load(join(ROOT, 'schema'), 'li');
    const store = new LineageStore({ cypher: new CypherLibrary(join(ROOT, 'cypher')) } as unknown as Neo4jExecutor, registry.lineageRelationships());
    const r = rng(7);
    const pickRandom = (direction: LineageDirection) => {
      // Start where there is lineage to walk: downstream from the upper layers, upstream from the lower ones.
      const layer = direction === 'DOWNSTREAM' ? Math.floor(r() * 8) : 12 + Math.floor(r() * 8);
      return layer * perLayer + Math.floor(r() * perLayer);
    };
    const count = 100;
    const limits = { fanOut: 1000, visitCap: 10_000 };

    for (const hops of [1, 3, 10]) {
      for (const direction of ['DOWNSTREAM', 'UPSTREAM'] as LineageDirection[]) {
        for (const from of ['random', 'hub'] as const) {
          const hubs = direction === 'DOWNSTREAM' ? hubsDown : hubsUp;
          const n = hops === 10 ? Math.max(10, Math.floor(samples / 4)) : samples;
          const starts = Array.from({ length: n }, (_, k) => (from === 'hub' ? hubs[k % hubs.length] : pickRandom(direction)));
          const query = (i: number): LineageQuery => ({
            urn: urn(i), direction, columns: false, maxHops: hops, fanOut: limits.fanOut, visitCap: limits.visitCap,
            groups: [{ degrees: null, types: null, platforms: null, includeRemoved: false }], start: 0, count, aspects: ['datasetProperties', 'status'], deadlineMs: 30_000,
          });
          const svc: number[] = [];
          const raw: number[] = [];
          const hop: number[] = [];
          let totals = 0;
          let truncated = 0;
          // Warm-up (plans cached, pages in memory), then the three in turn per start node.
          for (const i of starts.slice(0, 3)) {
            const { text, params } = store.prepare(query(i));
            await driver.executeQuery(text, params, { database: 'neo4j', routing: 'READ' });
          }
          for (const i of starts) {
            const [ms, body] = await time(async () => {
              const res = await fetch(`${service.url}/entities?action=searchAcrossLineage`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ urn: urn(i), direction, maxHops: hops, count }),
              });
              if (!res.ok) throw new Error(`service answered ${res.status}: ${await res.text()}`);
              return (await res.json()) as { value: { numEntities: number; truncated: boolean } };
            });
            svc.push(ms);
            totals += body.value.numEntities;
            if (body.value.truncated) truncated++;
            const { text, params } = store.prepare(query(i));
            raw.push((await time(() => driver.executeQuery(text, params, { database: 'neo4j', routing: 'READ' })))[0]);
            hop.push((await time(() => hopByHop(driver, urn(i), direction, hops, limits.visitCap)))[0]);
          }
          const name = `${hops} hop${hops > 1 ? 's' : ''} ${direction.toLowerCase()} from ${from}`;
          const s = summary(svc);
          const a = summary(raw);
          const h = summary(hop);
          rows[name] = {
            'service p50': s.p50, 'service p99': s.p99, 'raw p50': a.p50, 'raw p99': a.p99, 'hop-by-hop p50': h.p50, 'hop-by-hop p99': h.p99,
            'service/raw p50': Math.round((s.p50 / a.p50) * 100) / 100, 'mean results': Math.round(totals / starts.length), 'truncated': `${truncated}/${starts.length}`,
            n: starts.length, load1: Math.round(loadavg()[0] * 100) / 100,
          };
          console.error(name, rows[name]);
        }
      }
    }
    // Where the time goes: PROFILE of the raw statement.
    for (const [name, i, direction, hops] of [
      ['3 hops downstream from random', pickRandom('DOWNSTREAM'), 'DOWNSTREAM', 3],
      ['10 hops downstream from hub', hubsDown[0], 'DOWNSTREAM', 10],
    ] as [string, number, LineageDirection, number][]) {
      const { text, params } = store.prepare({
        urn: urn(i), direction, columns: false, maxHops: hops, fanOut: limits.fanOut, visitCap: limits.visitCap,
        groups: [{ degrees: null, types: null, platforms: null, includeRemoved: false }], start: 0, count, aspects: ['datasetProperties', 'status'], deadlineMs: 30_000,
      });
      const res = await driver.executeQuery(`PROFILE ${text}`, params, { database: 'neo4j', routing: 'READ' });
      const ops: { operator: string; rows: number; dbHits: number }[] = [];
      const walk = (p: { operatorType: string; rows: number; dbHits: number; children: unknown[] }) => {
        ops.push({ operator: p.operatorType, rows: p.rows, dbHits: p.dbHits });
        for (const c of p.children) walk(c as typeof p);
      };
      walk(res.summary.profile as never);
      profiles[name] = { totalDbHits: ops.reduce((n, o) => n + o.dbHits, 0), top: ops.sort((x, y) => y.dbHits - x.dbHits).slice(0, 6) };
      console.error(name, JSON.stringify(profiles[name]));
    }
  } finally {
    await driver.close();
    await service.stop();
    await b.stop();
  }
  report('lineage', rows, { datasets, samples, profiles, loadavgAtEnd: loadavg() });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
