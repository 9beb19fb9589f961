import { facetKeyText, javaDoubleText } from '../../src/services/search/facet-keys';

describe("facet keys as DataHub writes them", () => {
  test("a structured property's numbers as Java doubles; other keys as the engine gives them", () => {
    expect(facetKeyText('structuredProperties.io_acryl_sla', 30)).toBe('30.0');
    expect(facetKeyText('structuredProperties.io_acryl_sla', 7.5)).toBe('7.5');
    expect(facetKeyText('structuredProperties.io_acryl_tier', 'gold')).toBe('gold');
    expect(facetKeyText('numUpstreams', 30)).toBe('30');
    expect(facetKeyText('createdAt', 1700000000000, '2023-11-14')).toBe('2023-11-14');
  });

  test("Java's Double.toString", () => {
    expect([0, -2, 0.001, 9999999, 1e7, 12345678.5, 0.0001, -2.5e-5].map(javaDoubleText)).toEqual(['0.0', '-2.0', '0.001', '9999999.0', '1.0E7', '1.23456785E7', '1.0E-4', '-2.5E-5']);
  });
});
