/** One RFC 6902 operation. */
export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

const pointer = (segment: string | number) => String(segment).replace(/~/g, '~0').replace(/\//g, '~1');

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A JSON Patch turning `from` into `to` (the timeline's rawDiff): objects member by member, arrays item by item. */
export function jsonPatch(from: unknown, to: unknown, path = ''): PatchOperation[] {
  if (same(from, to)) return [];
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(from) && isObject(to)) {
    const ops: PatchOperation[] = [];
    for (const key of Object.keys(from)) if (!(key in to)) ops.push({ op: 'remove', path: `${path}/${pointer(key)}` });
    for (const [key, value] of Object.entries(to)) {
      if (!(key in from)) ops.push({ op: 'add', path: `${path}/${pointer(key)}`, value });
      else ops.push(...jsonPatch(from[key], value, `${path}/${pointer(key)}`));
    }
    return ops;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const ops: PatchOperation[] = [];
    const common = Math.min(from.length, to.length);
    for (let i = 0; i < common; i++) ops.push(...jsonPatch(from[i], to[i], `${path}/${i}`));
    for (let i = common; i < to.length; i++) ops.push({ op: 'add', path: `${path}/${i}`, value: to[i] });
    // Removed from the end, so each index is still valid when its operation is applied.
    for (let i = from.length - 1; i >= common; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    return ops;
  }
  return [{ op: 'replace', path, value: to }];
}
