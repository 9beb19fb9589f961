import { smallestFirst } from '../../src/stores/graph/lineage-store';

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

const byUrn = (a: { urn: string }, b: { urn: string }) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0);

describe("a lineage hop's page rows first (smallestFirst)", () => {
  test('the kept rows with the smallest urns come first in urn order; every row is there once', () => {
    const r = rng(11);
    for (let round = 0; round < 300; round++) {
      const n = Math.floor(r() * 300);
      const rows = Array.from({ length: n }, (_, i) => ({
        urn: `urn:li:dataset:(urn:li:dataPlatform:${r() < 0.5 ? 'hive' : 'snowflake'},t${Math.floor(r() * 1e6)}_${i},PROD)`,
        kept: r() < 0.7,
      }));
      const count = Math.floor(r() * 120);
      const ordered = smallestFirst([...rows], count, (row) => row.kept);
      const expected = rows.filter((row) => row.kept).sort(byUrn).slice(0, count);
      expect(ordered.slice(0, expected.length)).toEqual(expected);
      expect([...ordered].sort(byUrn)).toEqual([...rows].sort(byUrn));
    }
  });

  test('rows after the page may come in any order, but none kept is smaller than the last on the page', () => {
    const rows = ['e', 'b', 'x', 'a', 'd', 'c', 'f'].map((urn) => ({ urn }));
    const ordered = smallestFirst(rows, 3, () => true);
    expect(ordered.slice(0, 3).map((row) => row.urn)).toEqual(['a', 'b', 'c']);
    expect(ordered.slice(3).every((row) => row.urn > 'c')).toBe(true);
  });

  test('rows not kept never take a place on the page, however small their urn', () => {
    const rows = ['a', 'b', 'c', 'd'].map((urn) => ({ urn }));
    const ordered = smallestFirst(rows, 2, (row) => row.urn !== 'a');
    expect(ordered.slice(0, 2).map((row) => row.urn)).toEqual(['b', 'c']);
    expect(ordered).toHaveLength(4);
  });

  test('no page left to fill leaves the rows as they are', () => {
    const rows = ['c', 'a', 'b'].map((urn) => ({ urn }));
    expect(smallestFirst(rows, 0, () => true)).toBe(rows);
  });
});
