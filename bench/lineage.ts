import neo4j, { type Driver, type ManagedTransaction } from 'neo4j-driver';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { TokenSigner } from '../src/auth/tokens';
import { Registry } from '../src/model/registry';
import { disableNagleForDriverSockets, Neo4jExecutor } from '../src/stores/graph/neo4j-executor';
import { LineageStore, type LineageDirection, type LineageQuery } from '../src/stores/graph/lineage-store';
import { backends, flag, http, percentile, report, ROOT, SDK_LINEAGE_QUERY, startServiceProcess } from './lib';
import { aspect, PHASES } from './catalog-data';
import { hopByHop, startLineageFloor } from './lineage-reference';

/**
 * Multi-hop lineage on a 100,000-dataset layered DAG written straight into Neo4j (the shape the service projects:
 * :Entity nodes, DownstreamOf edges from downstream to upstream), each dataset with the aspects an ingested table has
 * (key, properties, a schema of 5-80 fields, ownership, tags, status, sub-types, browse path, platform instance:
 * LINEAGE_ASPECTS): the page GraphQL shows picks its aspects out of them.
 * 1, 3 and 10 hops up and down from random nodes and from hubs, sequential requests (latency, not throughput), per
 * start node in turn, in an order that rotates from one start node to the next:
 *   service     searchAcrossLineage over HTTP (its default deadline, so a missed one is counted, not retried);
 *   GraphQL     scrollAcrossLineage over HTTP with the query the SDK's lineage client sends (datahub.sdk
 *               LineageClient: each result's name, platform and description, its degree and path), the same bounds:
 *               the page's entities are read as well, which no other column does;
 *   store       LineageStore.traverse in this process (the service's statements, without HTTP and the service; with no
 *               read cache, so a page is read in its hop every time);
 *   hop-by-hop  the reference: the best hop-by-hop Cypher for this graph, one statement per hop in one read
 *               transaction (DownstreamOf only, directed, the frontier of the first hop sought by urn, later ones by
 *               the element ids the hop before returned, rows of 48 neighbours per hop), each
 *               reached node with one parent (so its degree and one path) and its onward degree (the fan-out rule),
 *               the visited set kept here, the same fan-out and visit cap; no soft-delete check, filters, sort or page;
 *   +status     the same, also reading each reached node's soft-delete flag (soft-deleted results are hidden: the
 *               service must know it for every node it reaches; the write path keeps it on the node).
 *   by urn      the reference with every frontier sought by urn (as it was before element ids).
 *   HTTP floor  the +status walk behind a bare node:http server answering the first page (bench/lineage-reference.ts):
 *               what any Node HTTP service in front of Neo4j adds to the walk on this machine.
 * Then PROFILE of every statement the store runs, for 3 hops from random and 3 and 10 hops from a hub.
 *   BENCH_NEO4J_URI=bolt://127.0.0.1:7698 BENCH_SEARCH_URL=http://127.0.0.1:9211 npx tsx bench/lineage.ts [--datasets 100000] [--samples 100]
 * Targets (issue 37): from hubs, service p50 ≤ 1.2× hop-by-hop; 3 hops from random ≤ 1.2×; 10 hops from hubs answered
 * within the deadline, the cut flags right.
 */
const datasets = flag('datasets', 100_000);
const samples = flag('samples', 100);
const layers = 20;
const perLayer = Math.ceil(datasets / layers);
const HUB_FAN = 1500;
const TOKEN_SECRET = 'bench-secret-0123456789abcdef0123456789abcdef';
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
  // Seeded before when the last edges written are there (the database may hold other benchmarks' lineage too).
  const probe = edges.slice(-3).map(([d, u]) => ({ d: urn(d), u: urn(u) }));
  const existing = await run('UNWIND $probe AS p MATCH (:Entity {urn: p.d})-[r:DownstreamOf]->(:Entity {urn: p.u}) RETURN count(r) AS n', { probe });
  if (Number(existing.records[0].get('n')) >= probe.length) return false;
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

/** The aspects of an ingested table besides its key, as the service stores them: the latest of each linked by ASPECT. */
function lineageAspects(i: number): { name: string; value: string }[] {
  const catalog = PHASES.slice(0, 4).map((phase, p) => aspect('lin', i, p, i % 2 === 0));
  const platform = `urn:li:dataPlatform:${i % 3 === 0 ? 'snowflake' : 'hive'}`;
  return [
    ...catalog.map((a) => ({ name: a.name, value: JSON.stringify(a.value) })),
    { name: 'status', value: JSON.stringify({ removed: false }) },
    { name: 'subTypes', value: JSON.stringify({ typeNames: ['Table'] }) },
    { name: 'browsePathsV2', value: JSON.stringify({ path: [{ id: 'lin' }, { id: `db_${i % 50}` }] }) },
    { name: 'dataPlatformInstance', value: JSON.stringify({ platform }) },
  ];
}
const LINEAGE_ASPECTS = lineageAspects(0).length + 1;

/** Gives every dataset its other aspects (a graph seeded before they were written has only the key). */
async function seedAspects(driver: Driver): Promise<boolean> {
  const run = (text: string, params: Record<string, unknown>) => driver.executeQuery(text, params, { database: 'neo4j' });
  const last = await run("MATCH (e:Entity {urn: $urn}) RETURN EXISTS { (e)-[:ASPECT]->(:Aspect {name: 'datasetProperties'}) } AS there", { urn: urn(datasets - 1) });
  if (last.records[0]?.get('there') === true) return false;
  for (let start = 0; start < datasets; start += 2000) {
    const rows = Array.from({ length: Math.min(2000, datasets - start) }, (_, k) => ({ urn: urn(start + k), aspects: lineageAspects(start + k) }));
    await run(
      `UNWIND $rows AS row
       MATCH (e:Entity {urn: row.urn}) WHERE NOT EXISTS { (e)-[:ASPECT]->(:Aspect {name: 'datasetProperties'}) }
       UNWIND row.aspects AS a
       CREATE (e)-[:ASPECT]->(:Aspect {urn: row.urn, name: a.name, version: 0, value: a.value, hash: '', createdTime: 0, createdActor: 'urn:li:corpuser:bench'})`,
      { rows },
    );
  }
  return true;
}

/** An executor whose read transactions PROFILE every statement, for the plans of the store's statements. */
function profiling(executor: Neo4jExecutor, into: { text: string; profile: unknown; found: number | null }[]): Neo4jExecutor {
  const profiled = {
    cypher: executor.cypher,
    // prepare() as the service's store (type tokens, the soft-delete flag's migration record), unprofiled.
    rehearse: executor.rehearse.bind(executor),
    query: executor.query.bind(executor),
    read: (caller: string, work: (tx: ManagedTransaction) => Promise<unknown>, deadline?: { timeoutMs: number; onTimeout: () => Error }) =>
      executor.read(
        caller,
        (tx) =>
          work({
            run: async (text: string, params: Record<string, unknown>) => {
              const res = await tx.run(`PROFILE ${text}`, params);
              const found = res.records[0]?.keys.includes('found') ? res.records.reduce((n, r) => n + (r.get('found') as unknown[]).length, 0) : null;
              into.push({ text, profile: res.summary.profile, found });
              return res;
            },
          } as unknown as ManagedTransaction),
        deadline,
      ),
  };
  // A walk of one hop runs its statements auto-commit in the service; profiled here in a read transaction.
  return { ...profiled, readEachStatement: profiled.read } as unknown as Neo4jExecutor;
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
  const service = await startServiceProcess(b, { TOKEN_SECRET });
  const { token } = await new TokenSigner(TOKEN_SECRET).issue({ actor: 'urn:li:corpuser:bench', scopes: ['read'], ttlSeconds: 3600 });
  // The raw reference gets the same TCP_NODELAY the service's driver has, so it is not slowed by Nagle's algorithm.
  disableNagleForDriverSockets();
  const driver = neo4j.driver(b.neo4jUri, undefined, { maxConnectionPoolSize: 10, disableLosslessIntegers: true });
  const executor = new Neo4jExecutor(
    { uri: b.neo4jUri, user: '', password: '', database: 'neo4j', timeoutMs: 10_000, cypherDir: join(ROOT, 'cypher') },
    pino({ level: 'warn' }),
  );
  const rows: Record<string, Record<string, unknown>> = {};
  const profiles: Record<string, unknown> = {};
  let stopFloor = () => {};
  try {
    const { edges, hubsDown, hubsUp } = buildEdges();
    const [seedMs, seeded] = await time(() => seed(driver, edges));
    const [aspectsMs, aspectsSeeded] = await time(() => seedAspects(driver));
    console.error(
      `graph: ${datasets} datasets, ${edges.length} edges (${seeded ? `seeded in ${Math.round(seedMs / 1000)} s` : 'already there'}), ${LINEAGE_ASPECTS} aspects each (${aspectsSeeded ? `written in ${Math.round(aspectsMs / 1000)} s` : 'already there'})`,
    );

    const registry = Registry.load(join(ROOT, 'schema'), 'li');
    const store = new LineageStore(executor, registry.lineageRelationships(), registry.urnNamespace);
    // As the service does at start: hops read the soft-delete flag once every entity has it.
    await store.prepare();
    await store.flagEarlierSoftDeletes();
    const r = rng(7);
    const pickRandom = (direction: LineageDirection) => {
      // Start where there is lineage to walk: downstream from the upper layers, upstream from the lower ones.
      const layer = direction === 'DOWNSTREAM' ? Math.floor(r() * 8) : 12 + Math.floor(r() * 8);
      return layer * perLayer + Math.floor(r() * perLayer);
    };
    const count = 100;
    // The service's defaults (src/config): fan-out 1,000, result cap 10,000, deadline 10 s.
    const limits = { fanOut: 1000, visitCap: 10_000, deadlineMs: 10_000 };
    // The store's query as the service builds it for this request (no filters: soft-deleted entities hidden).
    const query = (i: number, direction: LineageDirection, hops: number): LineageQuery => ({
      urn: urn(i), direction, columns: false, maxHops: hops, fanOut: limits.fanOut, visitCap: limits.visitCap,
      groups: [{ degrees: null, types: null, platforms: null, includeRemoved: false }], start: 0, count,
      aspects: ['datasetProperties', 'dataJobInfo', 'dataFlowInfo', 'chartInfo', 'dashboardInfo', 'dataPlatformInstance', 'status', 'schemaFieldKey'], deadlineMs: limits.deadlineMs,
    });
    // Each HTTP column is timed until its whole answer has arrived, as the floor's is; the answer is parsed (and
    // checked) after that: the client's own JSON.parse took 0.26 ms of REST's 27 KB and 0.44 ms of GraphQL's 56 KB
    // from a hub, CPU of this process, not the service's latency.
    const callService = async (i: number, direction: LineageDirection, hops: number): Promise<[number, { numEntities: number; truncated: boolean } | null]> => {
      const [ms, res] = await time(() => http(`${service.url}/entities?action=searchAcrossLineage`, { json: { urn: urn(i), direction, maxHops: hops, count } }));
      if (res.status === 504) return [ms, null];
      if (!res.ok) throw new Error(`service answered ${res.status}: ${res.text}`);
      return [ms, (JSON.parse(res.text) as { value: { numEntities: number; truncated: boolean } }).value];
    };

    const callGraphql = async (i: number, direction: LineageDirection, hops: number): Promise<number> => {
      const [ms, res] = await time(() => http(`${service.url}/api/graphql`, { json: { query: SDK_LINEAGE_QUERY, variables: { input: { urn: urn(i), direction, maxHops: hops, count } } }, headers: { Authorization: `Bearer ${token}` } }));
      const body = JSON.parse(res.text) as { data?: { scrollAcrossLineage?: { searchResults: unknown[] } }; errors?: { message: string }[] };
      if (!res.ok || body.errors || !body.data?.scrollAcrossLineage) throw new Error(`GraphQL answered ${res.status}: ${res.text.slice(0, 300)}`);
      return ms;
    };

    const floor = await startLineageFloor(b.neo4jUri, limits);
    const callFloor = async (i: number, direction: LineageDirection, hops: number) => {
      const res = await http(floor.url, { json: { urn: urn(i), direction, maxHops: hops, count } });
      if (!res.ok) throw new Error(`the floor answered ${res.status}: ${res.text}`);
    };
    stopFloor = floor.stop;

    for (const hops of [1, 3, 10]) {
      for (const direction of ['DOWNSTREAM', 'UPSTREAM'] as LineageDirection[]) {
        for (const from of ['random', 'hub'] as const) {
          const hubs = direction === 'DOWNSTREAM' ? hubsDown : hubsUp;
          const n = hops === 10 ? Math.max(10, Math.floor(samples / 4)) : samples;
          const starts = Array.from({ length: n }, (_, k) => (from === 'hub' ? hubs[k % hubs.length] : pickRandom(direction)));
          const svc: number[] = [];
          const overGraphql: number[] = [];
          const inProcess: number[] = [];
          const hop: number[] = [];
          const hopStatus: number[] = [];
          const hopByUrn: number[] = [];
          const overHttp: number[] = [];
          let totals = 0;
          let referenceTotals = 0;
          let truncated = 0;
          let missed = 0;
          // Warm-up (plans cached, pages in memory), then every column per start node.
          for (const i of starts.slice(0, 3)) {
            await callService(i, direction, hops);
            await callGraphql(i, direction, hops);
            await store.traverse(query(i, direction, hops));
            await hopByHop(driver, urn(i), direction, hops, limits.fanOut, limits.visitCap, false);
            await hopByHop(driver, urn(i), direction, hops, limits.fanOut, limits.visitCap, true);
            await hopByHop(driver, urn(i), direction, hops, limits.fanOut, limits.visitCap, false, false);
            await callFloor(i, direction, hops);
          }
          const columns = (i: number): (() => Promise<void>)[] => [
            async () => {
              const [ms, body] = await callService(i, direction, hops);
              svc.push(ms);
              if (body === null) missed++;
              else {
                totals += body.numEntities;
                if (body.truncated) truncated++;
              }
            },
            async () => void overGraphql.push(await callGraphql(i, direction, hops)),
            async () => void inProcess.push((await time(() => store.traverse(query(i, direction, hops))))[0]),
            async () => {
              const [refMs, { reached }] = await time(() => hopByHop(driver, urn(i), direction, hops, limits.fanOut, limits.visitCap, false));
              hop.push(refMs);
              referenceTotals += Math.min(reached, limits.visitCap);
            },
            async () => void hopStatus.push((await time(() => hopByHop(driver, urn(i), direction, hops, limits.fanOut, limits.visitCap, true)))[0]),
            async () => void hopByUrn.push((await time(() => hopByHop(driver, urn(i), direction, hops, limits.fanOut, limits.visitCap, false, false)))[0]),
            async () => void overHttp.push((await time(() => callFloor(i, direction, hops)))[0]),
          ];
          // The columns' order rotates from one start to the next: in a fixed order each column always ran right after
          // the same other one had walked the same nodes, on the caches that one warmed (the reference after the store).
          for (const [k, i] of starts.entries()) {
            const measures = columns(i);
            for (let m = 0; m < measures.length; m++) await measures[(m + k) % measures.length]();
          }
          const name = `${hops} hop${hops > 1 ? 's' : ''} ${direction.toLowerCase()} from ${from}`;
          const s = summary(svc);
          const st = summary(inProcess);
          const h = summary(hop);
          const hs = summary(hopStatus);
          const ratio = (x: number, y: number) => Math.round((x / y) * 100) / 100;
          rows[name] = {
            'service p50': s.p50, 'service p99': s.p99, 'GraphQL p50': summary(overGraphql).p50, 'GraphQL/hop-by-hop p50': ratio(summary(overGraphql).p50, h.p50),
            'store p50': st.p50, 'hop-by-hop p50': h.p50, 'hop-by-hop p99': h.p99, '+status p50': hs.p50,
            'hop-by-hop by urn p50': summary(hopByUrn).p50, 'HTTP floor p50': summary(overHttp).p50,
            'HTTP floor/hop-by-hop p50': ratio(summary(overHttp).p50, h.p50), 'service/HTTP floor p50': ratio(s.p50, summary(overHttp).p50),
            'service/hop-by-hop p50': ratio(s.p50, h.p50), 'store/hop-by-hop p50': ratio(st.p50, h.p50), 'service/+status p50': ratio(s.p50, hs.p50), 'store/+status p50': ratio(st.p50, hs.p50),
            'mean results': Math.round(totals / Math.max(1, starts.length - missed)), 'reference results': Math.round(referenceTotals / starts.length),
            truncated: `${truncated}/${starts.length}`, 'deadline missed': missed, n: starts.length, load1: Math.round(loadavg()[0] * 100) / 100,
          };
          console.error(name, rows[name]);
        }
      }
    }
    // Where the time goes: PROFILE of every statement the store runs (one per hop, then the finish: page and maxHops cut).
    for (const [name, i, direction, hops] of [
      ['3 hops downstream from random', pickRandom('DOWNSTREAM'), 'DOWNSTREAM', 3],
      ['3 hops downstream from hub', hubsDown[0], 'DOWNSTREAM', 3],
      ['10 hops downstream from hub', hubsDown[0], 'DOWNSTREAM', 10],
    ] as [string, number, LineageDirection, number][]) {
      const runs: { text: string; profile: unknown; found: number | null }[] = [];
      // Prepared as the service's store is (it then reads the soft-delete flag, not the status aspect).
      const profiled = new LineageStore(profiling(executor, runs), registry.lineageRelationships(), registry.urnNamespace);
      await profiled.prepare();
      runs.length = 0;
      await profiled.traverse(query(i, direction, hops));
      profiles[name] = runs.map((run, k) => {
        const ops: { operator: string; details: string; rows: number; dbHits: number }[] = [];
        const walk = (p: { operatorType: string; arguments?: { Details?: string }; rows: number; dbHits: number; children: unknown[] }) => {
          ops.push({ operator: p.operatorType, details: (p.arguments?.Details ?? '').slice(0, 80), rows: p.rows, dbHits: p.dbHits });
          for (const c of p.children) walk(c as typeof p);
        };
        walk(run.profile as never);
        return {
          statement: run.text.startsWith('UNWIND range') ? `hop ${k + 1}` : 'finish',
          totalDbHits: ops.reduce((n, o) => n + o.dbHits, 0),
          ...(run.found !== null ? { neighbours: run.found } : {}),
          top: [...ops].sort((x, y) => y.dbHits - x.dbHits).slice(0, 5),
        };
      });
      console.error(name, JSON.stringify(profiles[name], null, 1));
    }
  } finally {
    stopFloor();
    await driver.close();
    await executor.driver.close();
    await service.stop();
    await b.stop();
  }
  report('lineage', rows, { datasets, samples, profiles, loadavgAtEnd: loadavg() });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
