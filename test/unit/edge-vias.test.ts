import { join } from 'node:path';
import { fineGrainedColumnEdges, jobColumnEdges } from '../../src/model/aspects/fine-grained-lineage';
import { Registry } from '../../src/model/registry';
import { columnEdgeKey, edgeKey } from '../../src/services/write-path/prepare';

const registry = Registry.load(join(__dirname, '..', '..', 'schema'));
const ds = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${n},PROD)`;
const col = (n: string, c: string) => `urn:li:schemaField:(${ds(n)},${c})`;
const stamp = { time: 0, actor: 'urn:li:corpuser:x' };

describe('the nodes lineage edges pass through (DataHub via)', () => {
  test("an upstream's query goes with its own dataset, item by item; the first one named wins for a repeated target", () => {
    const value = {
      upstreams: [
        { dataset: ds('a'), type: 'TRANSFORMED', auditStamp: stamp },
        { dataset: ds('b'), type: 'TRANSFORMED', auditStamp: stamp, query: 'urn:li:query:q1' },
        { dataset: ds('b'), type: 'TRANSFORMED', auditStamp: stamp, query: 'urn:li:query:q2' },
      ],
    };
    expect(registry.edgesOf(registry.aspects.get('upstreamLineage')!, value)).toEqual([
      { type: 'DownstreamOf', target: ds('a'), isLineage: true },
      { type: 'DownstreamOf', target: ds('b'), isLineage: true, via: 'urn:li:query:q1' },
    ]);
  });

  test("a dataset's column lineage passes through its query; a job's through the job (its owner), not a query it names", () => {
    const fine = { fineGrainedLineages: [{ upstreamType: 'FIELD_SET', upstreams: [col('a', 'x')], downstreamType: 'FIELD', downstreams: [col('b', 'y')], query: 'urn:li:query:q' }] };
    expect(fineGrainedColumnEdges(fine, 'li')).toEqual([{ source: col('b', 'y'), target: col('a', 'x'), via: 'urn:li:query:q' }]);
    expect(jobColumnEdges(fine, 'li')).toEqual([{ source: col('b', 'y'), target: col('a', 'x') }]);
  });

  test('edge keys tell a via apart, so a changed via replaces the edge', () => {
    expect(edgeKey({ type: 'DownstreamOf', target: ds('a') })).toBe(`DownstreamOf|${ds('a')}`);
    expect(edgeKey({ type: 'DownstreamOf', target: ds('a'), via: 'urn:li:query:q' })).not.toBe(edgeKey({ type: 'DownstreamOf', target: ds('a'), via: 'urn:li:query:r' }));
    expect(columnEdgeKey({ source: col('b', 'y'), target: col('a', 'x'), via: 'urn:li:query:q' })).toBe(`${col('b', 'y')}|${col('a', 'x')}\u0000urn:li:query:q`);
  });
});
