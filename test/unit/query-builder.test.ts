import { facetAggregations, filterQuery, parseFilter, queriedFields, rewriteQuery, SearchSchema, textQuery, type FieldInfo } from '../../src/services/search/query-builder';
import { analyze, queryParts, subwords } from '../../src/services/search/text-analysis';

/** The shape of the engine request; the counts it yields on a real engine are in search.test.ts. */
describe('search query builder', () => {
  const field = (name: string, over: Partial<FieldInfo> = {}): FieldInfo => ({ name, text: false, urnTypes: [], queryByDefault: false, boost: 1, facet: false, ...over });
  const schema = new SearchSchema('dataset', 'li', [
    field('name', { text: true, queryByDefault: true, boost: 10 }),
    field('description', { text: true, queryByDefault: true }),
    field('platform', { facet: true, urnTypes: ['dataPlatform'] }),
    field('tags', { facet: true, queryByDefault: true, urnTypes: ['tag'] }),
    field('owners', { facet: true, urnTypes: ['corpuser'] }),
    field('origin', { text: true, facet: true }),
  ]);
  const criterion = (f: string, value: string) => ({ field: f, value, condition: 'EQUAL' });

  it('aggregates every facet over the hits when there is no filter', () => {
    const { aggs, facets, filterInQuery } = facetAggregations([], schema);
    expect(filterInQuery).toBe(true);
    expect(aggs).toEqual({
      platform: { terms: { field: 'platform', size: 50 } },
      tags: { terms: { field: 'tags', size: 50 } },
      owners: { terms: { field: 'owners', size: 50 } },
      origin: { terms: { field: 'origin.keyword', size: 50 } },
    });
    expect(facets).toEqual(['platform', 'tags', 'owners', 'origin'].map((facet) => ({ facet, path: [facet] })));
  });

  it('moves a filter on no facet into the query and aggregates the filtered hits directly', () => {
    const { aggs, filterInQuery } = facetAggregations(parseFilter({ or: [{ and: [criterion('name', 'orders')] }] }), schema);
    expect(filterInQuery).toBe(true);
    expect(Object.values(aggs).every((a) => 'terms' in a)).toBe(true);
  });

  it('counts each filtered facet without its own criteria, and the others together under the whole filter', () => {
    const filter = parseFilter({ or: [{ and: [criterion('platform', 'urn:li:dataPlatform:hive'), criterion('tags', 'pii')] }] });
    const { aggs, facets, filterInQuery } = facetAggregations(filter, schema);
    expect(filterInQuery).toBe(false);
    const platformTerm = { terms: { platform: ['urn:li:dataPlatform:hive'] } };
    const tagTerm = { terms: { tags: ['pii', 'urn:li:tag:pii'] } };
    expect(aggs).toEqual({
      '@filter0': { filter: { bool: { filter: [tagTerm] } }, aggs: { platform: { terms: { field: 'platform', size: 50 } } } },
      '@filter1': { filter: { bool: { filter: [platformTerm] } }, aggs: { tags: { terms: { field: 'tags', size: 50 } } } },
      '@filter2': {
        filter: { bool: { filter: [platformTerm, tagTerm] } },
        aggs: { owners: { terms: { field: 'owners', size: 50 } }, origin: { terms: { field: 'origin.keyword', size: 50 } } },
      },
    });
    expect(facets).toEqual([
      { facet: 'platform', path: ['@filter0', 'platform'] },
      { facet: 'tags', path: ['@filter1', 'tags'] },
      { facet: 'owners', path: ['@filter2', 'owners'] },
      { facet: 'origin', path: ['@filter2', 'origin'] },
    ]);
  });

  it('aggregates a facet over every hit when its criteria were a whole OR branch', () => {
    const filter = parseFilter({ or: [{ and: [criterion('platform', 'urn:li:dataPlatform:hive')] }, { and: [criterion('owners', 'jdoe')] }] });
    const { aggs, facets } = facetAggregations(filter, schema);
    expect(aggs.platform).toEqual({ terms: { field: 'platform', size: 50 } });
    expect(aggs.owners).toEqual({ terms: { field: 'owners', size: 50 } });
    expect(facets.find((f) => f.facet === 'tags')!.path).toEqual(['@filter0', 'tags']);
  });

  it('filters a structured property by its qualified name or its field name, with or without .keyword', () => {
    const query = (f: string) => filterQuery(parseFilter({ or: [{ and: [{ field: f, values: ['gold'], condition: 'EQUAL' }] }] }), schema);
    const expected = { bool: { filter: [{ terms: { 'structuredProperties.io_acryl_tier': ['gold'] } }] } };
    for (const f of ['structuredProperties.io.acryl.tier', 'structuredProperties.io_acryl_tier', 'structuredProperties.io.acryl.tier.keyword']) expect(query(f)).toEqual(expected);
    const exists = filterQuery(parseFilter({ or: [{ and: [{ field: 'structuredProperties.io.acryl.tier', condition: 'EXISTS', negated: true }] }] }), schema);
    expect(exists).toEqual({ bool: { filter: [{ bool: { must_not: [{ exists: { field: 'structuredProperties.io_acryl_tier' } }] } }] } });
  });

  it('highlights the default fields and the fields the input names', () => {
    expect(queriedFields('orders', schema).sort()).toEqual(['description', 'name', 'nameParts', 'tags', 'textParts', 'urnTokens']);
    expect(queriedFields('owners:jdoe AND (origin:PROD OR name.keyword:x)', schema)).toEqual(expect.arrayContaining(['owners', 'origin', 'name.keyword']));
    expect(queriedFields('unknown:x', schema)).not.toContain('unknown');
  });

  it('splits free-text terms into words as the index does, the last also as a prefix of a name word', () => {
    expect(rewriteQuery('SampleKafka', schema)).toBe('(SampleKafka OR "sample kafka" OR (sample AND nameParts:kafka*))');
    expect(rewriteQuery('b4_events', schema)).toBe('(b4_events OR "b 4 events" OR ("b 4" AND nameParts:events*))');
    expect(rewriteQuery('covid', schema)).toBe('(covid OR nameParts:covid*)');
    expect(rewriteQuery('ab', schema)).toBe('ab');
    expect(rewriteQuery('orders_2024 AND tags:pii', schema)).toBe('(orders_2024 OR "orders 2024" OR (orders AND nameParts:2024*)) AND (tags:pii OR tags:urn\\:li\\:tag\\:pii)');
    expect(rewriteQuery('ord*', schema)).toBe('ord*');
  });

  it("reads a fielded value's backslash escapes as query_string does: the next character literal, wildcards only unescaped", () => {
    // DataHub's own smoke tests search `qualifiedName:entities\.datasetSingle*`.
    expect(rewriteQuery('description:entities\\.orders*', schema)).toBe('description:entities.orders*');
    expect(rewriteQuery('description:a\\*b?', schema)).toBe('description:a\\*b?');
    expect(rewriteQuery('tags:pii\\-x', schema)).toBe('(tags:pii\\-x OR tags:urn\\:li\\:tag\\:pii\\-x)');
    // A quoted value is one phrase, wildcards in it literal.
    expect(rewriteQuery('description:"a\\"b c*"', schema)).toBe('description:"a\\"b c*"');
    expect(rewriteQuery('tags:"pii x"', schema)).toBe('(tags:"pii x" OR tags:"urn:li:tag:pii x")');
  });

  it('answers a whole URN with that entity first', () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)';
    expect(textQuery(urn, schema)).toEqual({
      bool: {
        should: [{ term: { urn: { value: urn, boost: 1000 } } }, { match: { urnTokens: { query: expect.stringContaining('kafka samplekafkadataset sample kafka dataset'), operator: 'and' } } }],
        minimum_should_match: 1,
      },
    });
  });
});

describe('text analysis', () => {
  it('splits on case changes, digits and separators, lower case, originals kept', () => {
    expect(subwords('HTTPServerLog2')).toEqual(['HTTP', 'Server', 'Log', '2']);
    expect(analyze('covid19_geotab.us-border')).toEqual(['covid19_geotab.us-border', 'covid19_geotab', 'covid19', 'geotab', 'covid 19 geotab', 'us-border', 'us', 'border', 'us border']);
    expect(queryParts('SampleKafka')).toEqual(['sample', 'kafka']);
    expect(queryParts('sample')).toEqual([]);
  });
});
