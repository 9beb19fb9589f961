import { execute, parse } from 'graphql';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { graphqlSchema, plainArgumentsForArgumentlessFields, type GraphqlSchemaDependencies } from '../src/http/graphql';
import { QueryExecutor } from '../src/http/graphql-execution';
import { EntityTypeNames } from '../src/model/entity-type-names';
import { Registry } from '../src/model/registry';
import type { LineageResult } from '../src/services/lineage/lineage-service';
import { flag, report, ROOT, SDK_LINEAGE_QUERY } from './lib';

/**
 * CPU cost of answering a GraphQL lineage page (no server: the service's schema and resolvers in this process, the
 * walk's result given): the SDK's LineageClient query (datahub.sdk, acryl-datahub 1.x) for a page of --count results,
 * each with its entity's name, platform and description, its degree and a path of two entities, executed by graphql-js
 * and serialized. Beside the reference: the same answer built by plain JavaScript from the same rows and serialized
 * (what a hand-written serializer of this one query would do). graphql-js runs as shipped and with the service's
 * patch for fields without arguments (src/http/graphql.ts), and the query compiled as the service runs a query sent
 * again (graphql-jit, src/http/graphql-execution.ts), alternating round by round. Medians of --rounds, µs per page.
 * NODE_ENV=production as the service runs (graphql-js adds development checks without it):
 *   NODE_ENV=production npx tsx bench/graphql-execution.ts [--count 100] [--pages 2000] [--rounds 7]
 */
const count = flag('count', 100);
const pages = flag('pages', 2000);
const rounds = flag('rounds', 7);
const registry = Registry.load(join(ROOT, 'schema'), 'li');
const urn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:${i % 3 === 0 ? 'snowflake' : 'hive'},lin.t${i},PROD)`;
const start = urn(10001);
const shown = ['datasetProperties', 'dataJobInfo', 'dataFlowInfo', 'chartInfo', 'dashboardInfo', 'dataPlatformInstance', 'status'];

/** A page as LineageService answers it: every third result with a description, none with a stored platform. */
function page(): LineageResult {
  const results = Array.from({ length: count }, (_, k) => {
    const u = urn(20000 + k);
    const aspects = new Map<string, Record<string, unknown>>(k % 3 === 0 ? [['datasetProperties', { name: `t${k}`, description: `Table ${k} of the warehouse` }]] : []);
    return { urn: u, type: 'dataset', degree: 1, path: [{ urn: start, type: 'dataset' }, { urn: u, type: 'dataset' }], aspects, rev: k, direction: 'DOWNSTREAM' as const };
  });
  return { start: 0, count, total: 1489, truncated: false, truncatedBy: [], maxHops: 1, aspectsRead: shown, results };
}

const deps = {
  deprecation: {},
  lineage: { lineage: async () => page(), urnNamespace: 'li' },
  search: { names: new EntityTypeNames(registry), urnNamespace: 'li' },
  reads: { aspectsOfMany: async () => new Map() },
  registry,
} as unknown as GraphqlSchemaDependencies;
const schema = graphqlSchema(deps);
const SDK_LINEAGE_DOCUMENT = parse(SDK_LINEAGE_QUERY);
const variableValues = { input: { urn: start, direction: 'DOWNSTREAM', maxHops: 1, count } };

/** The reference: the SDK's answer for the same page, built directly. */
async function byHand(): Promise<string> {
  const result = page();
  const name = (u: string) => u.slice(u.indexOf(',') + 1, u.lastIndexOf(','));
  const platform = (u: string) => u.slice(u.indexOf('dataPlatform:') + 13, u.indexOf(','));
  return JSON.stringify({
    data: {
      scrollAcrossLineage: {
        nextScrollId: 'eyJvZmZzZXQiOjEwMH0',
        searchResults: result.results.map((r) => ({
          degree: r.degree,
          entity: { urn: r.urn, type: 'DATASET', name: name(r.urn), platform: { name: platform(r.urn) }, properties: r.aspects.get('datasetProperties') ? { description: r.aspects.get('datasetProperties')!.description ?? null } : null },
          paths: [{ path: r.path.map((p) => ({ urn: p.urn, type: 'DATASET' })) }],
        })),
      },
    },
    extensions: {},
  });
}

async function overGraphql(): Promise<string> {
  const result = await execute({ schema, document: SDK_LINEAGE_DOCUMENT, variableValues, contextValue: { revocation: { settled: true } } });
  if (result.errors) throw new Error(result.errors[0].message);
  return JSON.stringify({ ...result, extensions: {} });
}

const executor = new QueryExecutor();

/** As the service answers a query it has seen before: compiled. */
async function compiled(): Promise<string> {
  const result = await executor.execute({ schema, document: SDK_LINEAGE_DOCUMENT, variableValues, contextValue: { revocation: { settled: true } } });
  if (result.errors) throw new Error(result.errors[0].message);
  return JSON.stringify({ ...result, extensions: {} });
}

async function perPage(run: () => Promise<string>): Promise<number> {
  const t0 = process.cpuUsage();
  for (let i = 0; i < pages; i++) await run();
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / pages;
}

async function main() {
  if (process.env.NODE_ENV !== 'production') throw new Error('Run with NODE_ENV=production, as the service runs: graphql-js adds development checks without it');
  const values = createRequire(require.resolve('graphql'))('./execution/values.js') as { getArgumentValues: unknown };
  const shipped = values.getArgumentValues;
  plainArgumentsForArgumentlessFields();
  const patched = values.getArgumentValues;
  const asShipped = () => ((values.getArgumentValues = shipped), overGraphql());
  const withPatch = () => ((values.getArgumentValues = patched), overGraphql());
  // Same answer every way (the reference is only a reference if it answers what GraphQL does).
  if ((await withPatch()) !== (await byHand()) || (await asShipped()) !== (await byHand())) throw new Error('GraphQL and the reference answer differently');
  // The executor compiles the query on a later run: every run must answer the same.
  for (let run = 0; run < 3; run++) if ((await compiled()) !== (await byHand())) throw new Error('The compiled query and the reference answer differently');
  const samples: Record<string, number[]> = { reference: [], 'graphql-js as shipped': [], 'graphql-js patched': [], 'compiled (graphql-jit)': [] };
  for (let r = 0; r < rounds + 1; r++) {
    const round = {
      reference: await perPage(byHand),
      'graphql-js as shipped': await perPage(asShipped),
      'graphql-js patched': await perPage(withPatch),
      'compiled (graphql-jit)': ((values.getArgumentValues = patched), await perPage(compiled)),
    };
    // The first round warms the JIT up.
    if (r > 0) for (const [k, v] of Object.entries(round)) samples[k].push(v);
  }
  values.getArgumentValues = patched;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const reference = median(samples.reference);
  const rows = Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [k, { 'µs per page (median)': Math.round(median(v)), 'over reference': Math.round((median(v) / reference) * 100) / 100, rounds: v.map(Math.round).join(' ') }]),
  );
  report('graphql-execution', rows, { count, pages, rounds, bytes: (await byHand()).length });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
