import { join } from 'node:path';
import { Registry } from '../src/model/registry';
import { aspectFragment, documentFromFragments, type AspectFragment } from '../src/services/indexing/document';
import { entityIndexDefinition } from '../src/stores/search/mappings';
import { aspect, PHASES } from './catalog-data';
import { cpuSnapshot, flag, http, ROOT, stringFlag } from './lib';

/**
 * The engine's CPU per search document, by index mapping and bulk size: scenario a's documents (bench/catalog-data.ts,
 * each dataset's document rebuilt after each of its five aspects, as the indexer sends them) sent straight to the engine
 * at a fixed pace (--rate documents/s) in bulks of --bulk, external versions, the entity indices' settings (the engine's
 * default refresh). Each variant gets a fresh index; the engine's CPU is counted until 2 s after the last bulk. Variants:
 * `base` (the service's mapping and documents), `tier<N>` (merge policy: N segments per tier, the engine's default 10), `del<N>` (merge policy: N % of deleted
 * documents allowed, the default 20), `nokw` (text fields without their `.keyword` subfield), `noparts`
 * (documents without the word fields urnTokens, nameParts, textParts), `srcx` (those word fields indexed but left out
 * of the stored _source), `nodv` (no doc values for the `.keyword` subfields of text fields but name's, nor for
 * nameExact), `nonorms` (no norms on the word fields and autocomplete), `refresh1s` (an explicit 1 s refresh interval,
 * as entity indices had before), `idle1s` (search-idle after 1 s instead of 30: nobody searches, so no refresh at all).
 * Needs BENCH_SEARCH_URL and BENCH_PIDS=opensearch:<pid>.
 *   npx tsx bench/engine-documents.ts [--datasets 2000] [--rate 1000] [--bulk 10] [--variants base,nokw,base,nokw]
 */
const datasets = flag('datasets', 3000);
const pace = flag('rate', 1000);
const bulkSize = flag('bulk', 10);
const variants = stringFlag('variants', 'base,nokw,base').split(',');
const url = process.env.BENCH_SEARCH_URL!;
const pid = Number((process.env.BENCH_PIDS ?? '').split(',').find((p) => p.startsWith('opensearch'))!.split(':')[1]);
const registry = Registry.load(join(ROOT, 'schema'), 'li');
const entity = registry.entities.get('dataset')!;

function variantDefinition(variant: string): Record<string, any> {
  const def = structuredClone(entityIndexDefinition(registry, entity)) as Record<string, any>;
  for (const [name, m] of Object.entries<Record<string, any>>(def.mappings.properties)) {
    if (variant === 'nokw' && m.type === 'text' && m.fields?.keyword && name !== 'autocomplete') delete m.fields;
    if (variant === 'nodv' && m.type === 'text' && m.fields?.keyword && name !== 'name') m.fields.keyword.doc_values = false;
    if (variant === 'nodv' && name === 'nameExact') m.doc_values = false;
    if (variant === 'nonorms' && ['urnTokens', 'nameParts', 'textParts', 'autocomplete'].includes(name)) m.norms = false;
  }
  if (variant === 'srcx') def.mappings._source = { excludes: ['textParts', 'nameParts', 'urnTokens'] };
  if (variant === 'refresh1s') def.settings.refresh_interval = '1s';
  if (variant === 'idle1s') def.settings['index.search.idle.after'] = '1s';
  const tier = /^tier(\d+)$/.exec(variant);
  if (tier) def.settings['index.merge.policy.segments_per_tier'] = Number(tier[1]);
  const deletes = /^del(\d+)$/.exec(variant);
  if (deletes) def.settings['index.merge.policy.deletes_pct_allowed'] = Number(deletes[1]);
  return def;
}

function variantDocument(variant: string, doc: Record<string, unknown>): Record<string, unknown> {
  if (variant === 'noparts') {
    const { textParts, nameParts, urnTokens, ...rest } = doc;
    return rest;
  }
  return doc;
}

async function run(variant: string, round: number): Promise<Record<string, unknown>> {
  const index = `variant_${variant}_${round}`;
  await http(`${url}/${index}`, { method: 'DELETE' });
  const created = await http(`${url}/${index}`, { method: 'PUT', json: variantDefinition(variant) });
  if (!created.ok) throw new Error(created.text);
  const fragments = Array.from({ length: datasets }, () => new Map<string, AspectFragment>());
  const docs: { id: string; doc: unknown }[] = [];
  for (let phase = 0; phase < PHASES.length; phase++) {
    for (let i = 0; i < datasets; i++) {
      const a = aspect(`r${round}`, i, phase, i % 3 === 0);
      fragments[i].set(a.name, aspectFragment(registry, entity, a.name, a.value));
      docs.push({ id: a.urn, doc: variantDocument(variant, documentFromFragments(registry, entity, a.urn, fragments[i]) as Record<string, unknown>) });
    }
  }
  const before = cpuSnapshot({ opensearch: pid });
  const start = Date.now();
  let bytes = 0;
  for (let k = 0; k < docs.length; k += bulkSize) {
    const due = start + (k / pace) * 1000;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const body = docs.slice(k, k + bulkSize).map((d, j) => `${JSON.stringify({ index: { _index: index, _id: d.id, version: k + j + 1, version_type: 'external_gte' } })}\n${JSON.stringify(d.doc)}\n`).join('');
    bytes += body.length;
    const res = await http(`${url}/_bulk`, { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } });
    if (!res.ok || JSON.parse(res.text).errors) throw new Error(res.text.slice(0, 500));
  }
  await new Promise((r) => setTimeout(r, 2000));
  // Merges the run started count towards it: they are part of what the documents cost.
  for (let waited = 0; waited < 30_000; waited += 250) {
    const merges = JSON.parse((await http(`${url}/${index}/_stats/merge`)).text)._all.primaries.merges;
    if (merges.current === 0) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const after = cpuSnapshot({ opensearch: pid });
  const stats = JSON.parse((await http(`${url}/${index}/_stats/store,merge,segments`)).text);
  await http(`${url}/${index}`, { method: 'DELETE' });
  return { variant, docs: docs.length, 'engine µs per doc': +(((after.processes.opensearch - before.processes.opensearch) * 1000) / docs.length).toFixed(1), 'bytes per doc': Math.round(bytes / docs.length), 'store MB': +(stats._all.primaries.store.size_in_bytes / 1e6).toFixed(1), merges: stats._all.primaries.merges.total, 'merged MB': +(stats._all.primaries.merges.total_size_in_bytes / 1e6).toFixed(1), segments: stats._all.primaries.segments.count };
}

async function main(): Promise<void> {
  let round = 0;
  for (const v of variants) console.log(JSON.stringify(await run(v, round++)));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
