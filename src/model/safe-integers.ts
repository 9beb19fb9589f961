/**
 * Ajv's `integer` accepts 1e308 and even Infinity (JSON's 1e400). Bounds every integer of a JSON Schema that has no
 * bounds of its own to the safe range, so no handler, Neo4j or the search engine receives an integer it cannot hold.
 */
export function withSafeIntegers<T extends Record<string, unknown>>(schema: T): T {
  const copy: Record<string, unknown> = Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => (isSchema(x) ? withSafeIntegers(x) : x)) : isSchema(v) ? withSafeIntegers(v) : v]),
  );
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('integer')) {
    copy.minimum ??= Number.MIN_SAFE_INTEGER;
    copy.maximum ??= Number.MAX_SAFE_INTEGER;
  }
  return copy as T;
}

const isSchema = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
