import { structuredPropertyIndexField } from '../../model/aspects/structuredProperties';

/**
 * A facet bucket's key as DataHub writes it. A structured property's number values are doubles (the index maps them
 * as `double`, DataHub stores them as Java doubles), so DataHub answers `30.0` and `1.0E7` where JSON has 30 and
 * 10000000; every other key is the engine's text of it.
 */
export function facetKeyText(facet: string, key: unknown, keyAsString?: string): string {
  if (typeof key === 'number' && structuredPropertyIndexField(facet) !== null) return javaDoubleText(key);
  return keyAsString ?? String(key);
}

/** Java's Double.toString: a fraction part always, scientific notation below 10^-3 and from 10^7 on. */
export function javaDoubleText(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
  const magnitude = Math.abs(n);
  if (magnitude === 0 || (magnitude >= 1e-3 && magnitude < 1e7)) return Number.isInteger(n) ? n.toFixed(1) : String(n);
  const [mantissa, exponent] = n.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}
