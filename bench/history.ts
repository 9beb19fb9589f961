import neo4j, { type Driver } from 'neo4j-driver';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Registry } from '../src/model/registry';
import { CypherLibrary } from '../src/stores/graph/cypher';
import { LineageStore } from '../src/stores/graph/lineage-store';
import pino from 'pino';
import { disableNagleForDriverSockets, Neo4jExecutor } from '../src/stores/graph/neo4j-executor';
import { backends, flag, http, percentile, report, ROOT, startServiceProcess } from './lib';

/**
 * History reads beside the raw Cypher they run, sequential requests (latency):
 * (a) the timeline of entities with 8 aspects × 20 versions each, written through the service (20 rounds of one batch
 *     of 8 aspects per entity), all categories over the whole history; raw: `history/entityVersions` sent with
 *     neo4j-driver (the one statement the timeline runs);
 * (b) lineage 3 hops up and down from random nodes of a 100,000-dataset layered DAG written straight into Neo4j (as
 *     bench/lineage.ts, plus each dataset's upstreamLineage versions: a third of them had another upstream before,
 *     kept as a history version and a :LineagePast record): today's lineage, as-of lineage at now (the same graph) and
 *     as of a moment before the changes; raw: today's walk run in this process by LineageStore (its statements
 *     without HTTP and the service), and the as-of hop statements in sequence without the service's checks.
 *   BENCH_NEO4J_URI=… BENCH_SEARCH_URL=… npx tsx bench/history.ts [--datasets 100000] [--samples 100] [--entities 20]
 * Targets (issue 36): timeline p50 ≤ 20 ms; as-of lineage p50 ≤ 2× today's from the same start.
 */
const datasets = flag('datasets', 100_000);
const samples = flag('samples', 100);
const entities = flag('entities', 20);
const layers = 20;
const perLayer = Math.ceil(datasets / layers);
const T_BEFORE = 1_600_000_000_000; // the older upstreams were written then
const T_NOW = 1_700_000_000_000; // today's upstreams
const urn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:${i % 3 === 0 ? 'snowflake' : 'hive'},hist.t${i},PROD)`;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** Per dataset of layer > 0: 1–4 upstreams in the 3 layers above, and for a third of them the upstream set it had before. */
function buildLineage(): { now: number[][]; before: (number[] | null)[] } {
  const r = rng(42);
  const now: number[][] = Array.from({ length: datasets }, () => []);
  const before: (number[] | null)[] = Array.from({ length: datasets }, () => null);
  const pick = (layer: number) => Math.max(0, layer - 1 - Math.floor(r() * 3)) * perLayer + Math.floor(r() * perLayer);
  for (let i = perLayer; i < datasets; i++) {
    const layer = Math.floor(i / perLayer);
    const k = 1 + Math.floor(r() ** 2 * 4);
    now[i] = [...new Set(Array.from({ length: k }, () => pick(layer)))];
    if (i % 3 === 1) before[i] = [pick(layer), ...now[i].slice(1)];
  }
  return { now, before };
}

async function seed(driver: Driver, lineage: ReturnType<typeof buildLineage>): Promise<boolean> {
  const run = (text: string, params: Record<string, unknown>) => driver.executeQuery(text, params, { database: 'neo4j' });
  const existing = await run("MATCH (a:Aspect {name: 'upstreamLineage'}) WHERE a.urn STARTS WITH 'urn:li:dataset:(urn:li:dataPlatform:' AND a.urn CONTAINS ',hist.t' RETURN count(a) AS n", {});
  if (Number(existing.records[0].get('n')) >= (datasets - perLayer) * 0.99) return false;
  // The lineage history index is complete on a database seeded this way (every removed edge has its record).
  await run("MERGE (m:HistoryMeta {name: 'lineagePast'}) SET m.complete = true, m.knownFrom = 0", {});
  const value = (ups: number[]) => JSON.stringify({ upstreams: ups.map((u) => ({ dataset: urn(u), type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:bench' } })) });
  for (let start = 0; start < datasets; start += 2000) {
    const rows = Array.from({ length: Math.min(2000, datasets - start) }, (_, k) => {
      const i = start + k;
      const b = lineage.before[i];
      return {
        urn: urn(i),
        key: JSON.stringify({ platform: `urn:li:dataPlatform:${i % 3 === 0 ? 'snowflake' : 'hive'}`, name: `hist.t${i}`, origin: 'PROD' }),
        now: lineage.now[i].length > 0 ? value(lineage.now[i]) : null,
        before: b ? value(b) : null,
        ups: lineage.now[i].map(urn),
        removed: b ? b.filter((u) => !lineage.now[i].includes(u)).map(urn) : [],
      };
    });
    await run(
      `UNWIND $rows AS row
       MERGE (e:Entity {urn: row.urn}) ON CREATE SET e.type = 'dataset', e.createdAt = 0, e.rev = 1
       WITH e, row WHERE NOT EXISTS { (e)-[:ASPECT]->() }
       CREATE (e)-[:ASPECT]->(:Aspect {urn: row.urn, name: 'datasetKey', version: 0, value: row.key, hash: '', createdTime: $before, createdActor: 'urn:li:corpuser:bench'})
       FOREACH (_ IN CASE WHEN row.now IS NULL THEN [] ELSE [1] END |
         CREATE (e)-[:ASPECT]->(:Aspect {urn: row.urn, name: 'upstreamLineage', version: 0, value: row.now, hash: '', createdTime: CASE WHEN row.before IS NULL THEN $before ELSE $now END, createdActor: 'urn:li:corpuser:bench'}))
       FOREACH (_ IN CASE WHEN row.before IS NULL THEN [] ELSE [1] END |
         CREATE (:Aspect {urn: row.urn, name: 'upstreamLineage', version: 1, value: row.before, hash: '', createdTime: $before, createdActor: 'urn:li:corpuser:bench'}))`,
      { rows, before: T_BEFORE, now: T_NOW },
    );
    await run(
      `UNWIND $rows AS row
       UNWIND row.ups AS up
       MERGE (u:Entity {urn: up}) ON CREATE SET u.type = 'dataset', u.createdAt = 0, u.placeholder = true
       WITH row, u MATCH (d:Entity {urn: row.urn})
       CREATE (d)-[:DownstreamOf {aspect: 'upstreamLineage', isLineage: true}]->(u)`,
      { rows },
    );
    await run(
      `UNWIND $rows AS row
       UNWIND row.removed AS gone
       MERGE (:LineagePast {target: gone, type: 'DownstreamOf', source: row.urn, aspect: 'upstreamLineage'})`,
      { rows },
    );
  }
  return true;
}

/** 20 rounds of one batch of 8 aspects (all timeline categories) per entity, through the service. */
async function seedTimeline(url: string): Promise<string[]> {
  const urns = Array.from({ length: entities }, (_, e) => `urn:li:dataset:(urn:li:dataPlatform:kafka,timeline_bench_${Date.now()}_${e},PROD)`);
  const stamp = { time: 1, actor: 'urn:li:corpuser:bench' };
  const aspects = (round: number, u: string): Record<string, unknown> => ({
    datasetProperties: { description: `description ${round}`, customProperties: { round: String(round) } },
    globalTags: { tags: [{ tag: `urn:li:tag:t${round % 4}` }, { tag: `urn:li:tag:u${round % 3}` }] },
    glossaryTerms: { terms: [{ urn: `urn:li:glossaryTerm:g${round % 5}` }], auditStamp: stamp },
    ownership: { owners: [{ owner: `urn:li:corpuser:o${round % 3}`, type: round % 2 ? 'DATAOWNER' : 'TECHNICAL_OWNER' }] },
    institutionalMemory: { elements: [{ url: `https://docs/${round % 4}`, description: `doc ${round}`, createStamp: stamp }] },
    schemaMetadata: {
      schemaName: 's', platform: 'urn:li:dataPlatform:kafka', version: 0, hash: '', platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
      fields: Array.from({ length: 20 + (round % 5) }, (_, f) => ({ fieldPath: `f${f}`, nativeDataType: f === round % 20 ? 'text' : 'string', type: { type: { 'com.linkedin.schema.StringType': {} } }, description: `field ${f} ${round % 2}` })),
    },
    editableSchemaMetadata: { editableSchemaFieldInfo: [{ fieldPath: `f${round % 20}`, description: `edited ${round}` }] },
    upstreamLineage: { upstreams: [{ dataset: `urn:li:dataset:(urn:li:dataPlatform:kafka,up_${round % 6},PROD)`, type: 'TRANSFORMED' }] },
  });
  for (const u of urns) {
    for (let round = 0; round < 20; round++) {
      const proposals = Object.entries(aspects(round, u)).map(([aspectName, value]) => ({
        entityType: 'dataset', entityUrn: u, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' },
      }));
      const res = await http(`${url}/aspects?action=ingestProposalBatch`, { json: { proposals } });
      if (!res.ok) throw new Error(`seeding the timeline: ${res.status} ${res.text}`);
      await new Promise((r) => setTimeout(r, 2)); // each round its own millisecond
    }
  }
  return urns;
}

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const out = await fn();
  return [performance.now() - t, out];
}

function summary(latencies: number[]) {
  const s = [...latencies].sort((a, b) => a - b);
  const r = (n: number) => Math.round(n * 100) / 100;
  return { p50: r(percentile(s, 50)), p95: r(percentile(s, 95)), p99: r(percentile(s, 99)) };
}

async function main() {
  const b = await backends(['neo4j', 'opensearch']);
  const service = await startServiceProcess(b, { LINEAGE_DEADLINE_MS: '30000' });
  disableNagleForDriverSockets();
  const driver = neo4j.driver(b.neo4jUri, undefined, { maxConnectionPoolSize: 10, disableLosslessIntegers: true });
  const cypher = new CypherLibrary(join(ROOT, 'cypher'));
  const executor = new Neo4jExecutor({ uri: b.neo4jUri, user: '', password: '', database: 'neo4j', timeoutMs: 10_000, cypherDir: join(ROOT, 'cypher') }, pino({ level: 'warn' }));
  const rows: Record<string, Record<string, unknown>> = {};
  try {
    // (a) timeline
    const timelineUrns = await seedTimeline(service.url);
    const categories = 'TAG,OWNERSHIP,DOCUMENTATION,GLOSSARY_TERM,TECHNICAL_SCHEMA,LINEAGE';
    const valued = ['schemaMetadata', 'editableSchemaMetadata', 'globalTags', 'ownership', 'institutionalMemory', 'editableDatasetProperties', 'datasetProperties', 'glossaryTerms', 'upstreamLineage'];
    const svc: number[] = [];
    const raw: number[] = [];
    let transactions = 0;
    for (let k = 0; k < Math.max(samples, 3 * timelineUrns.length); k++) {
      const u = timelineUrns[k % timelineUrns.length];
      const [ms, body] = await time(async () => {
        const res = await http(`${service.url}/openapi/v2/timeline/v1/${encodeURIComponent(u)}?categories=${categories}&startTime=0`);
        if (!res.ok) throw new Error(`timeline: ${res.status} ${res.text}`);
        return JSON.parse(res.text) as unknown[];
      });
      if (k >= timelineUrns.length) svc.push(ms); // the first pass warms plans and pages
      transactions += body.length;
      const [rawMs] = await time(() => driver.executeQuery(cypher.get('history/entityVersions'), { urn: u, valued }, { database: 'neo4j', routing: 'READ' }));
      if (k >= timelineUrns.length) raw.push(rawMs);
    }
    rows['timeline, 8 aspects × 20 versions'] = { 'service p50': summary(svc).p50, 'service p99': summary(svc).p99, 'raw p50': summary(raw).p50, 'raw p99': summary(raw).p99, 'mean transactions': Math.round(transactions / Math.max(samples, 3 * timelineUrns.length)), n: svc.length };
    console.error(rows['timeline, 8 aspects × 20 versions']);

    // (b) as-of lineage
    const lineage = buildLineage();
    const [seedMs, seeded] = await time(() => seed(driver, lineage));
    console.error(`graph: ${datasets} datasets (${seeded ? `seeded in ${Math.round(seedMs / 1000)} s` : 'already there'})`);
    const r = rng(7);
    const hopText = (outTypes: string[], inTypes: string[]) =>
      cypher.get('history/lineageHop').replaceAll('{{outTypes}}', outTypes.join('|') || '__NoLineage__').replaceAll('{{inTypes}}', inTypes.join('|') || '__NoLineage__');
    for (const direction of ['DOWNSTREAM', 'UPSTREAM'] as const) {
      const starts = Array.from({ length: samples }, () => (direction === 'DOWNSTREAM' ? Math.floor(r() * 8) : 12 + Math.floor(r() * 8)) * perLayer + Math.floor(r() * perLayer));
      const lists: Record<string, number[]> = { today: [], 'as of now': [], 'as of before': [], 'raw today': [], 'raw as-of hops': [] };
      let totalToday = 0;
      let totalBefore = 0;
      const call = (i: number, asOfTime?: number) =>
        http(`${service.url}/entities?action=searchAcrossLineage`, { json: { urn: urn(i), direction, maxHops: 3, count: 100, ...(asOfTime ? { asOfTime } : {}) } }).then((res) => {
          if (!res.ok) throw new Error(`lineage: ${res.status} ${res.text}`);
          return JSON.parse(res.text) as { value: { numEntities: number } };
        });
      // The raw references: today's walk by LineageStore in this process, and the as-of hop statement.
      const registry = Registry.load(join(ROOT, 'schema'), 'li');
      const store = new LineageStore(executor, registry.lineageRelationships(), registry.urnNamespace);
      const upstream = direction === 'UPSTREAM';
      const fields = [...registry.aspects.values()].flatMap((a) => a.relationships.filter((f) => f.isLineage).map((f) => ({ aspect: a.name, f })));
      const ownAspects = ['status', ...new Set(fields.filter((x) => x.f.isUpstream === upstream).map((x) => x.aspect))].filter((a) => registry.entities.get('dataset')!.aspects.has(a));
      const outTypes = [...new Set(fields.filter((x) => x.f.isUpstream === upstream).map((x) => x.f.name))].sort();
      const inTypes = [...new Set(fields.filter((x) => x.f.isUpstream !== upstream).map((x) => x.f.name))].sort();
      const hop = hopText(outTypes, inTypes);
      for (const [k, i] of starts.entries()) {
        const warm = k < 3;
        const [a, today] = await time(() => call(i));
        const [c] = await time(() => call(i, T_NOW + 1));
        const [d, before] = await time(() => call(i, T_BEFORE + 1));
        const [e] = await time(() =>
          store.traverse({
            urn: urn(i), direction, columns: false, maxHops: 3, fanOut: 1000, visitCap: 10_000,
            groups: [{ degrees: null, types: null, platforms: null, includeRemoved: false }], start: 0, count: 100,
            aspects: ['datasetProperties', 'dataJobInfo', 'dataFlowInfo', 'chartInfo', 'dashboardInfo', 'dataPlatformInstance', 'status', 'schemaFieldKey'], deadlineMs: 30_000,
          }),
        );
        // Raw as-of floor: the hop statements in sequence (3 for 3 hops; the last also looks at the nodes it reaches).
        const [f] = await time(async () => {
          const visited = new Set([urn(i)]);
          let frontier = [urn(i)];
          for (let h = 0; h < 3 && frontier.length > 0; h++) {
            const params = { frontier: frontier.map((u) => ({ urn: u, names: ownAspects })), t: neo4j.int(T_NOW + 1), valued: ['status'], inTypes, lookahead: h === 2, shown: ['status'] };
            // Auto-commit, as the service sends them.
            const session = driver.session({ database: 'neo4j', defaultAccessMode: neo4j.session.READ });
            const res = await session.run(hop, params).finally(() => session.close());
            const next: string[] = [];
            const add = (u: string) => !visited.has(u) && (visited.add(u), next.push(u));
            for (const rec of res.records) {
              for (const o of rec.get('out') as { target: string }[]) add(o.target);
              for (const o of rec.get('own') as { current: boolean; value: string | null }[]) {
                if (!o.current && o.value) for (const up of (JSON.parse(o.value).upstreams ?? []) as { dataset: string }[]) add(up.dataset);
              }
              for (const s of rec.get('inward') as { src: string; valid: boolean; settled: boolean; value: string | null }[]) {
                if (s.valid || (!s.settled && s.value && s.value.includes(JSON.stringify(rec.get('u'))))) add(s.src);
              }
            }
            frontier = next;
          }
        });
        if (warm) continue;
        lists.today.push(a);
        lists['as of now'].push(c);
        lists['as of before'].push(d);
        lists['raw today'].push(e);
        lists['raw as-of hops'].push(f);
        totalToday += today.value.numEntities;
        totalBefore += before.value.numEntities;
      }
      const p = Object.fromEntries(Object.entries(lists).map(([k, v]) => [k, summary(v)]));
      const name = `3 hops ${direction.toLowerCase()} from random`;
      rows[name] = {
        'today p50': p.today.p50,
        'as-of now p50': p['as of now'].p50,
        'as-of before p50': p['as of before'].p50,
        'as-of now / today p50': Math.round((p['as of now'].p50 / p.today.p50) * 100) / 100,
        'as-of before / today p50': Math.round((p['as of before'].p50 / p.today.p50) * 100) / 100,
        'raw today p50': p['raw today'].p50,
        'raw as-of hops p50': p['raw as-of hops'].p50,
        'today p99': p.today.p99,
        'as-of now p99': p['as of now'].p99,
        'mean results today': Math.round(totalToday / lists.today.length),
        'mean results before': Math.round(totalBefore / lists.today.length),
        n: lists.today.length,
        load1: Math.round(loadavg()[0] * 100) / 100,
      };
      console.error(name, rows[name]);
    }
  } finally {
    await driver.close();
    await executor.driver.close();
    await service.stop();
    await b.stop();
  }
  report('history', rows, { datasets, samples, entities, loadavgAtEnd: loadavg() });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
