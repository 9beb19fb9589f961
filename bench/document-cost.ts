import { join } from 'node:path';
import { Registry } from '../src/model/registry';
import { aspectFragment, documentFromFragments, type AspectFragment } from '../src/services/indexing/document';
import { FragmentCache } from '../src/services/indexing/fragment-cache';
import { flag, ROOT } from './lib';

/**
 * CPU cost of the search documents of an ingest (the indexer's share of bench/ingest.ts a–c, without any server): N
 * datasets get bench/ingest.ts's five aspects phase by phase as it writes them (every dataset's first, then every
 * second, …), and after each the entity's document is rebuilt from its fragments, as the indexer does per outbox entry. Prints µs per aspect (median of --rounds) beside the reference:
 * the same rebuilds serializing the entity's fragment values as they are (JSON.stringify), the least any indexer does to
 * send the values, with no field merging and no word splitting. `through the cache` is what the indexer does with this
 * process's writes: each fragment goes into the FragmentCache at commit and the entity's fragments come out of it (parsed
 * back from JSON) for its document.
 *   npx tsx bench/document-cost.ts [--datasets 3000] [--rounds 7]
 */
const datasets = flag('datasets', 3000);
const rounds = flag('rounds', 7);
const registry = Registry.load(join(ROOT, 'schema'), 'li');
const entity = registry.entities.get('dataset')!;
const urnOf = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,bench.db_${i % 50}.table_${i},PROD)`;
const skewed = (i: number, n: number, salt: number) => Math.min(n - 1, Math.floor(n * ((((Math.imul(i + 1, 2654435761) ^ salt) >>> 0) / 2 ** 32) ** 3)));

function aspects(i: number): [string, Record<string, unknown>][] {
  const stamp = { time: 1_700_000_000_000, actor: 'urn:li:corpuser:bench' };
  const kinds = ['id', 'name', 'amount', 'created_at', 'status'];
  return [
    ['datasetProperties', { name: `table_${i}`, qualifiedName: `bench.db_${i % 50}.table_${i}`, description: `Benchmark table ${i}: ${'orders customers payments events sessions '.repeat(1 + (i % 6))}`.trim(), customProperties: { team: `team_${i % 7}` } }],
    ['schemaMetadata', {
      schemaName: `table_${i}`, platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
      fields: Array.from({ length: 5 + skewed(i, 76, 7) }, (_, f) => ({
        fieldPath: `col_${f}_${kinds[f % 5]}`, nativeDataType: 'varchar(32)', type: { type: { 'com.linkedin.schema.StringType': {} } },
        nullable: true, description: f % 2 ? `Column ${f} of table ${i}, as loaded from the upstream system` : undefined, recursive: false, isPartOfKey: f === 0,
      })),
    }],
    ['ownership', { owners: [{ owner: `urn:li:corpuser:user_${skewed(i, 500, 11)}`, type: 'DATAOWNER' }], lastModified: stamp }],
    ['globalTags', { tags: [{ tag: `urn:li:tag:tag_${skewed(i, 200, 17)}` }] }],
    ['upstreamLineage', { upstreams: [{ dataset: urnOf(Math.max(0, i - 1)), type: 'TRANSFORMED', auditStamp: stamp }] }],
  ];
}

type Build = (urn: string, fragments: Map<string, AspectFragment>) => unknown;
const service: Build = (urn, fragments) => documentFromFragments(registry, entity, urn, fragments);
const reference: Build = (urn, fragments) => JSON.stringify({ urn, values: [...fragments.values()].map((f) => f.values) });

/** The service's documents, with each entity's fragments kept in a FragmentCache between writes as the indexer keeps them. */
function throughCache(): Build {
  const cache = new FragmentCache(512 * 1024 * 1024);
  const revs = new Map<string, number>();
  return (urn, fragments) => {
    const previousRev = revs.get(urn) ?? null;
    const rev = (previousRev ?? 0) + 1;
    revs.set(urn, rev);
    const [name, fragment] = [...fragments].at(-1)!;
    cache.apply([{ urn, previousRev, rev, created: previousRev === null, wipedAll: false, removed: [], set: [[name, () => fragment]] }]);
    return documentFromFragments(registry, entity, urn, cache.get(urn, rev)!);
  };
}

function measure(build: Build): number {
  const perAspect: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Fresh datasets each round, as an ingest writes each once: nothing is answered from an earlier round's values.
    const inputs = Array.from({ length: datasets }, (_, i) => aspects(r * datasets + i));
    const start = process.cpuUsage();
    const fragments = inputs.map(() => new Map<string, AspectFragment>());
    // Phase by phase, as bench/ingest.ts writes them: every dataset's first aspect, then every second one, …
    for (let phase = 0; phase < 5; phase++) {
      for (let i = 0; i < datasets; i++) {
        const [name, value] = inputs[i][phase];
        fragments[i].set(name, aspectFragment(registry, entity, name, value));
        build(urnOf(r * datasets + i), fragments[i]);
      }
    }
    const used = process.cpuUsage(start);
    perAspect.push((used.user + used.system) / (datasets * 5));
  }
  perAspect.sort((a, b) => a - b);
  return +perAspect[rounds >> 1].toFixed(1);
}

const reached = measure(service);
const cached = measure(throughCache());
const floor = measure(reference);
console.log(JSON.stringify({ datasets, rounds, 'service documents: cpu µs per aspect (median)': reached, 'through the cache': cached, 'reference (values serialized as they are)': floor, ratio: +(reached / floor).toFixed(2), 'ratio through the cache': +(cached / floor).toFixed(2) }));
