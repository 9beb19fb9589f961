import type { PatchTemplate } from '../../model/aspects';
import { InvalidInputError } from '../../model/errors';

/**
 * DataHub's PATCH semantics as a pure function: (current aspect | null, patch) → new aspect.
 *
 * DataHub turns keyed arrays into nested maps (one level per key field), applies RFC 6902 add/remove/replace on that
 * form, then turns the maps back into arrays. A path such as `/owners/<owner>/<type>` therefore addresses one array
 * element by its key, and a shorter path (`/owners/<owner>`) removes every element under that key prefix.
 */

export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

type Json = Record<string, unknown>;

const FINE_GRAINED = 'fineGrainedLineages';
const NONE = 'NONE';

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Parses the proposal's aspect value: a bare list of operations or DataHub's `{arrayPrimaryKeys, patch}`. */
export function parsePatch(raw: unknown): { operations: PatchOperation[]; arrayPrimaryKeys: Record<string, string[]> } {
  const body = isObject(raw) ? raw : { patch: raw };
  const ops = body.patch;
  if (!Array.isArray(ops)) throw new InvalidInputError('A PATCH aspect value must be a JSON-patch list of operations or {"patch": [...]}');
  const arrayPrimaryKeys: Record<string, string[]> = {};
  if (body.arrayPrimaryKeys !== undefined) {
    if (!isObject(body.arrayPrimaryKeys)) throw new InvalidInputError('arrayPrimaryKeys must be an object of field lists');
    for (const [field, keys] of Object.entries(body.arrayPrimaryKeys)) {
      if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) throw new InvalidInputError(`arrayPrimaryKeys.${field} must be a list of field names`);
      arrayPrimaryKeys[field] = keys as string[];
    }
  }
  const operations = ops.map((op, i) => {
    if (!isObject(op) || typeof op.path !== 'string' || !['add', 'remove', 'replace'].includes(op.op as string)) {
      throw new InvalidInputError(`patch[${i}] must be {op: add|remove|replace, path, value}`);
    }
    if (!op.path.startsWith('/')) throw new InvalidInputError(`patch[${i}].path must start with '/'`);
    if (op.op !== 'remove' && !('value' in op)) throw new InvalidInputError(`patch[${i}] (${String(op.op)}) needs a value`);
    return { op: op.op as PatchOperation['op'], path: op.path, value: op.value };
  });
  return { operations, arrayPrimaryKeys };
}

/** RFC 6901: `~1` is `/`, `~0` is `~`. */
function segments(path: string): string[] {
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `attribution␟source` names the nested field attribution.source. */
function keyValue(element: unknown, key: string): string {
  let v: unknown = element;
  for (const part of key.split('\u241f')) v = isObject(v) ? v[part] : undefined;
  return v === undefined || v === null ? '' : String(v);
}

function arrayToMap(items: unknown[], keys: string[]): Json {
  const root: Json = {};
  for (const item of items) {
    const path = keys.length === 0 ? [String(item)] : keys.map((k) => keyValue(item, k));
    let node = root;
    for (const part of path.slice(0, -1)) node = (node[part] = isObject(node[part]) ? node[part] : {}) as Json;
    node[path[path.length - 1]] = item;
  }
  return root;
}

/**
 * A keyed array's map form back to an array, level by level (`keys`, outermost first). An element created through a
 * deeper path (`/editableSchemaFieldInfo/<fieldPath>/globalTags/...`) lacks its key field: the map key is put back, as
 * DataHub does, where `reinject` (the template's own keys; a plain field, not `a␟b`) allows.
 */
function mapToArray(map: unknown, keys: string[], reinject: boolean): unknown[] {
  if (!isObject(map)) return [];
  const [key, ...rest] = keys;
  const restore = (element: unknown, value: string) => {
    if (reinject && key !== undefined && !key.includes('\u241f') && value !== '' && isObject(element) && element[key] === undefined) element[key] = value;
  };
  return Object.entries(map).flatMap(([value, inner]) => {
    const elements = rest.length > 0 ? mapToArray(inner, rest, reinject) : [inner];
    for (const element of elements) restore(element, value);
    return elements;
  });
}

/** fineGrainedLineages as DataHub's UpstreamLineageTemplate keys them: transformOperation/downstream/query/upstream → {confidenceScore}. */
function fineGrainedToMap(items: unknown[]): Json {
  const root: Json = {};
  for (const item of items) {
    if (!isObject(item)) continue;
    const op = typeof item.transformOperation === 'string' ? item.transformOperation : NONE;
    const query = typeof item.query === 'string' ? item.query : NONE;
    const downstreams = Array.isArray(item.downstreams) && item.downstreams.length > 0 ? item.downstreams : [NONE];
    const upstreams = Array.isArray(item.upstreams) ? item.upstreams : [];
    for (const d of downstreams) {
      const byQuery = (((root[op] ??= {}) as Json)[String(d)] ??= {}) as Json;
      const byUpstream = (byQuery[query] ??= {}) as Json;
      for (const u of upstreams) byUpstream[String(u)] = { confidenceScore: typeof item.confidenceScore === 'number' ? item.confidenceScore : 1 };
      if (upstreams.length === 0) byUpstream[NONE] = { confidenceScore: typeof item.confidenceScore === 'number' ? item.confidenceScore : 1 };
    }
  }
  return root;
}

function fineGrainedToArray(map: unknown, namespace: string): Json[] {
  const out: Json[] = [];
  if (!isObject(map)) return out;
  for (const [op, byDownstream] of Object.entries(map)) {
    if (!isObject(byDownstream)) continue;
    for (const [downstream, byQuery] of Object.entries(byDownstream)) {
      if (!isObject(byQuery)) continue;
      for (const [query, byUpstream] of Object.entries(byQuery)) {
        if (!isObject(byUpstream)) continue;
        const upstreams = Object.keys(byUpstream).filter((u) => u !== NONE);
        if (upstreams.length === 0 && !(NONE in byUpstream)) continue;
        const scores = Object.values(byUpstream).map((v) => (isObject(v) && typeof v.confidenceScore === 'number' ? v.confidenceScore : isFinite(Number(v)) ? Number(v) : 1));
        const entry: Json = {
          upstreamType: upstreams.every((u) => u.startsWith(`urn:${namespace}:dataset:`)) && upstreams.length > 0 ? 'DATASET' : 'FIELD_SET',
          upstreams,
          downstreamType: 'FIELD',
          downstreams: downstream === NONE ? [] : [downstream],
          confidenceScore: scores.length > 0 ? Math.max(...scores) : 1,
        };
        if (op !== NONE) entry.transformOperation = op;
        if (query !== NONE) entry.query = query;
        out.push(entry);
      }
    }
  }
  return out;
}

function applyOne(doc: Json, op: PatchOperation, where: string): void {
  const parts = segments(op.path);
  let node: unknown = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    if (Array.isArray(node)) {
      const index = Number(parts[i]);
      if (!Number.isInteger(index) || index < 0 || index >= node.length) throw new InvalidInputError(`${where}: bad array index '${parts[i]}' in '${op.path}'`);
      node = node[index];
      continue;
    }
    if (!isObject(node)) throw new InvalidInputError(`${where}: path '${op.path}' does not lead to an object`);
    if (!isObject(node[parts[i]]) && !Array.isArray(node[parts[i]])) {
      // remove of something absent is a no-op, as in DataHub; add creates the intermediate maps.
      if (op.op === 'remove') return;
      node[parts[i]] = {};
    }
    node = node[parts[i]];
  }
  const last = parts[parts.length - 1];
  if (Array.isArray(node)) {
    // A plain (unkeyed) array: RFC 6902 index or '-'.
    const index = last === '-' ? node.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > node.length) throw new InvalidInputError(`${where}: bad array index '${last}' in '${op.path}'`);
    if (op.op === 'remove') node.splice(index, 1);
    else if (op.op === 'replace') node[index] = op.value;
    else node.splice(index, 0, op.value);
    return;
  }
  if (!isObject(node)) throw new InvalidInputError(`${where}: path '${op.path}' does not lead to an object`);
  if (op.op === 'remove') delete node[last];
  else node[last] = structuredClone(op.value);
}

/**
 * The keyed arrays of `doc` named in `arrays` in their map form, and what they hold: those in `only` (the fields a patch
 * touches, present or not), or when `only` is null (inside a field) those present.
 */
function toMaps(doc: Json, template: PatchTemplate, arrays: Record<string, string[]>, only: Set<string> | null): Map<string, string[]> {
  const converted = new Map<string, string[]>();
  for (const [field, keys] of Object.entries(arrays)) {
    if (only ? !only.has(field) : doc[field] === undefined) continue;
    const inner = template.inner?.[field];
    const items = Array.isArray(doc[field]) ? (doc[field] as unknown[]) : [];
    if (inner) for (const item of items) if (isObject(item)) toMaps(item, inner, inner.arrayKeys ?? {}, null);
    doc[field] = arrayToMap(items, keys);
    converted.set(field, keys);
  }
  for (const [field, inner] of Object.entries(template.inner ?? {})) {
    if (field in arrays || (only && !only.has(field)) || !isObject(doc[field])) continue;
    toMaps(doc[field] as Json, inner, inner.arrayKeys ?? {}, null);
  }
  return converted;
}

/**
 * The arrays `toMaps` converted back, with what they hold; an array a patch replaced whole stays as sent. `own`: the
 * template's keys, whose fields are restored on elements created through deeper paths (not a client's own keys).
 */
function fromMaps(doc: Json, template: PatchTemplate, converted: Map<string, string[]>, own: (field: string) => boolean, namespace: string): void {
  for (const [field, keys] of converted) {
    // A keyed array the patch removed whole is left empty, as DataHub's ArrayMergingTemplate leaves it.
    if (doc[field] === undefined) {
      doc[field] = [];
      continue;
    }
    const list = Array.isArray(doc[field]) ? (doc[field] as unknown[]) : mapToArray(doc[field], keys, own(field));
    const inner = template.inner?.[field];
    if (inner) for (const element of list) if (isObject(element)) completeInner(element, inner, namespace);
    doc[field] = list;
  }
  for (const [field, inner] of Object.entries(template.inner ?? {})) {
    if (converted.has(field) || !isObject(doc[field])) continue;
    completeInner(doc[field] as Json, inner, namespace);
  }
}

function completeInner(value: Json, template: PatchTemplate, namespace: string): void {
  const arrays = template.arrayKeys ?? {};
  fromMaps(value, template, new Map(Object.entries(arrays).filter(([field]) => value[field] !== undefined)), () => true, namespace);
  template.complete?.(value, namespace);
}

/**
 * Applies a parsed patch to the current value of an aspect (null = absent) and returns the new value; the aspect's
 * patch template (its behaviour's) keys its arrays, and `namespace` is the service's urn namespace.
 */
export function applyPatch(template: PatchTemplate | undefined, current: Json | null, patch: ReturnType<typeof parsePatch>, namespace: string): Json {
  const own = template ?? {};
  const doc: Json = structuredClone(current ?? own.initial?.(namespace) ?? {});
  const keyed: Record<string, string[]> = { ...(own.arrayKeys ?? {}), ...patch.arrayPrimaryKeys };
  const touched = new Set(patch.operations.map((o) => segments(o.path)[0]));
  const asMaps = toMaps(doc, own, keyed, touched);
  const fineGrained = Boolean(own.fineGrainedLineages) && touched.has(FINE_GRAINED);
  if (fineGrained) doc[FINE_GRAINED] = fineGrainedToMap(Array.isArray(doc[FINE_GRAINED]) ? (doc[FINE_GRAINED] as unknown[]) : []);
  patch.operations.forEach((op, i) => {
    const parts = segments(op.path);
    // An add/replace of a whole keyed array (or of the whole field) arrives in array form.
    if (parts.length === 1 && op.op !== 'remove' && Array.isArray(op.value)) {
      if (asMaps.has(parts[0])) {
        const inner = own.inner?.[parts[0]];
        const items = structuredClone(op.value);
        if (inner) for (const item of items) if (isObject(item)) toMaps(item, inner, inner.arrayKeys ?? {}, null);
        doc[parts[0]] = arrayToMap(items, keyed[parts[0]]);
      } else if (fineGrained && parts[0] === FINE_GRAINED) doc[FINE_GRAINED] = fineGrainedToMap(op.value);
      else doc[parts[0]] = structuredClone(op.value);
      return;
    }
    applyOne(doc, op, `patch[${i}]`);
  });
  fromMaps(doc, own, asMaps, (field) => !(field in patch.arrayPrimaryKeys), namespace);
  if (fineGrained && doc[FINE_GRAINED] !== undefined) {
    const list = fineGrainedToArray(doc[FINE_GRAINED], namespace);
    if (list.length > 0) doc[FINE_GRAINED] = list;
    else delete doc[FINE_GRAINED];
  }
  return doc;
}
