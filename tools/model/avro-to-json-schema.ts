/**
 * Converts DataHub's model, as shipped in the `acryl-datahub` package (`datahub/metadata/schemas/*.avsc`: Avro schemas
 * carrying DataHub's PDL annotations), into this service's registry format: one draft-07 JSON Schema per aspect with
 * x-aspect / x-key / x-relationship / x-searchable / x-urn annotations, plus the entity list.
 *
 * The JSON Schemas describe DataHub's JSON form of an aspect (what its REST clients send):
 * - records are closed objects (unknown fields are dropped by Ajv's removeAdditional), nested records inlined;
 * - a field is required when it is neither optional (a union with null) nor defaulted;
 * - a union other than `[null, T]` is an object with exactly one key, the member's name (`string`, `long`, or the
 *   record's fully qualified name in the `com.linkedin` namespace), as Pegasus writes unions;
 * - a record that contains itself is emitted once under `definitions` and `$ref`'d (the only place `$ref` is used);
 * - Avro's `pegasus2avro` namespace is written as DataHub's own (`com.linkedin.…`).
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

/** An Avro type as found in an .avsc file: a name (primitive or named type), a union (array) or a complex type. */
type AvroType = string | AvroType[] | AvroComplex;
interface AvroField {
  name: string;
  type: AvroType;
  doc?: string;
  default?: Json;
  [annotation: string]: unknown;
}
interface AvroComplex {
  type: string;
  name?: string;
  namespace?: string;
  fields?: AvroField[];
  symbols?: string[];
  items?: AvroType;
  values?: AvroType;
  doc?: string;
  [annotation: string]: unknown;
}

export interface AspectAnnotation {
  name: string;
  type?: string;
  keyForEntity?: string;
  entityAspects?: string[];
}

export interface ConvertedAspect {
  name: string;
  recordName: string;
  timeseries: boolean;
  keyForEntity?: string;
  entityAspects?: string[];
  schema: JsonObject;
}

const PRIMITIVES: Record<string, JsonObject> = {
  string: { type: 'string' },
  bytes: { type: 'string' },
  int: { type: 'integer' },
  long: { type: 'integer' },
  float: { type: 'number' },
  double: { type: 'number' },
  boolean: { type: 'boolean' },
  null: { type: 'null' },
};

/** DataHub's default field type of a Searchable annotation, by the annotated value's type (SearchableAnnotation.java). */
function defaultSearchFieldType(node: JsonObject): string {
  if (node.type === 'boolean') return 'BOOLEAN';
  if (node.type === 'integer' || node.type === 'number') return 'COUNT';
  if (node.type === 'object' && node.additionalProperties !== undefined) return 'KEYWORD';
  if (Array.isArray(node.enum)) return 'KEYWORD';
  return 'TEXT';
}

/** The Searchable keys this service reads (DataHub's `v3` search settings are not used). */
const SEARCHABLE_KEYS = ['fieldName', 'fieldType', 'queryByDefault', 'addToFilters', 'enableAutocomplete', 'boostScore', 'hasValuesFieldName', 'numValuesFieldName'];

const QUERY_BY_DEFAULT_TYPES = ['TEXT', 'TEXT_PARTIAL', 'WORD_GRAM', 'URN', 'URN_PARTIAL'];

/** `com.linkedin.pegasus2avro.common.Status` → `com.linkedin.common.Status`. */
export function pegasusName(avroFullName: string): string {
  return avroFullName.replace(/^com\.linkedin\.pegasus2avro\./, 'com.linkedin.');
}

function fullName(t: AvroComplex, enclosingNamespace: string): string {
  if (!t.name) return '';
  if (t.name.includes('.')) return t.name;
  const ns = t.namespace ?? enclosingNamespace;
  return ns ? `${ns}.${t.name}` : t.name;
}

function namespaceOf(name: string): string {
  return name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : '';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Which named types are reachable from themselves (need `$ref`). */
function recursiveNames(root: AvroComplex): Set<string> {
  const named = new Map<string, AvroComplex>();
  const edges = new Map<string, Set<string>>();
  const collect = (t: AvroType, ns: string, owner: string | null): void => {
    if (typeof t === 'string') {
      const ref = t.includes('.') ? t : ns ? `${ns}.${t}` : t;
      if (!(t in PRIMITIVES) && owner) edges.get(owner)!.add(named.has(ref) ? ref : t);
      return;
    }
    if (Array.isArray(t)) return t.forEach((m) => collect(m, ns, owner));
    if (t.type === 'record' || t.type === 'error' || t.type === 'enum' || t.type === 'fixed') {
      const name = fullName(t, ns);
      named.set(name, t);
      if (owner) edges.get(owner)!.add(name);
      if (!edges.has(name)) edges.set(name, new Set());
      for (const f of t.fields ?? []) collect(f.type, namespaceOf(name), name);
      return;
    }
    if (t.type === 'array') return collect(t.items!, ns, owner);
    if (t.type === 'map') return collect(t.values!, ns, owner);
    collect(t.type, ns, owner);
  };
  collect(root, '', null);
  const recursive = new Set<string>();
  for (const start of edges.keys()) {
    const seen = new Set<string>();
    const stack = [...(edges.get(start) ?? [])];
    while (stack.length) {
      const n = stack.pop()!;
      if (n === start) {
        recursive.add(start);
        break;
      }
      if (seen.has(n)) continue;
      seen.add(n);
      stack.push(...(edges.get(n) ?? []));
    }
  }
  return recursive;
}

interface Context {
  named: Map<string, { type: AvroComplex; namespace: string }>;
  recursive: Set<string>;
  definitions: Map<string, JsonObject | null>;
  /** Annotations the conversion could not place (reported by the generator). */
  skipped: string[];
  where: string;
}

function unionMemberKey(member: AvroType, ctx: Context, ns: string): string {
  if (typeof member === 'string') {
    if (member in PRIMITIVES) return member;
    return pegasusName(resolveName(member, ctx, ns));
  }
  if (Array.isArray(member)) return 'union';
  if (member.type === 'record' || member.type === 'enum' || member.type === 'fixed' || member.type === 'error') {
    return pegasusName(fullName(member, ns));
  }
  return member.type;
}

function resolveName(name: string, ctx: Context, ns: string): string {
  if (ctx.named.has(name)) return name;
  const qualified = ns ? `${ns}.${name}` : name;
  if (ctx.named.has(qualified)) return qualified;
  throw new Error(`${ctx.where}: unknown Avro type '${name}'`);
}

function register(t: AvroComplex, ctx: Context, ns: string): string {
  const name = fullName(t, ns);
  if (!ctx.named.has(name)) ctx.named.set(name, { type: t, namespace: namespaceOf(name) });
  return name;
}

/** Converts an Avro type to a JSON Schema node. */
function convertType(t: AvroType, ctx: Context, ns: string): JsonObject {
  if (typeof t === 'string') {
    if (t in PRIMITIVES) return { ...PRIMITIVES[t] };
    const name = resolveName(t, ctx, ns);
    const def = ctx.named.get(name)!;
    return convertNamed(def.type, name, ctx);
  }
  if (Array.isArray(t)) return convertUnion(t, ctx, ns);
  switch (t.type) {
    case 'record':
    case 'error':
    case 'enum':
    case 'fixed': {
      const name = register(t, ctx, ns);
      return convertNamed(t, name, ctx);
    }
    case 'array':
      return { type: 'array', items: convertType(t.items!, ctx, ns) };
    case 'map':
      return { type: 'object', additionalProperties: convertType(t.values!, ctx, ns) };
    default:
      return convertType(t.type, ctx, ns);
  }
}

function convertNamed(t: AvroComplex, name: string, ctx: Context): JsonObject {
  if (t.type === 'enum') {
    const node: JsonObject = { type: 'string', enum: [...(t.symbols ?? [])] };
    return node;
  }
  if (t.type === 'fixed') return { type: 'string' };
  if (ctx.recursive.has(name)) {
    const short = pegasusName(name).replace(/\./g, '_');
    if (!ctx.definitions.has(short)) {
      ctx.definitions.set(short, null);
      ctx.definitions.set(short, convertRecord(t, name, ctx));
    }
    return { $ref: `#/definitions/${short}` };
  }
  return convertRecord(t, name, ctx);
}

function convertUnion(members: AvroType[], ctx: Context, ns: string): JsonObject {
  const nonNull = members.filter((m) => m !== 'null');
  if (nonNull.length === 1 && members.length === 2) return convertType(nonNull[0], ctx, ns);
  // Pegasus' JSON form of a union: {"<member name>": value}.
  const properties: JsonObject = {};
  for (const m of nonNull) properties[unionMemberKey(m, ctx, ns)] = convertType(m, ctx, ns);
  return { type: 'object', properties, minProperties: 1, maxProperties: 1, additionalProperties: false };
}

function convertRecord(t: AvroComplex, name: string, ctx: Context): JsonObject {
  const ns = namespaceOf(name);
  const fields = t.fields ?? [];
  // A Pegasus "union with aliases" (DataHub's Cost): a record with a fieldDiscriminator; its JSON form is {"<alias>": value}.
  if (fields.some((f) => f.name === 'fieldDiscriminator')) {
    const properties: JsonObject = {};
    for (const f of fields) if (f.name !== 'fieldDiscriminator') properties[f.name] = convertField(f, ctx, ns);
    return { type: 'object', description: pegasusName(name), properties, minProperties: 1, maxProperties: 1, additionalProperties: false };
  }
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const f of fields) {
    properties[f.name] = convertField(f, ctx, ns);
    const optional = Array.isArray(f.type) && f.type.includes('null');
    if (!optional && !('default' in f)) required.push(f.name);
  }
  const node: JsonObject = { type: 'object', description: pegasusName(name), properties };
  if (required.length > 0) node.required = required;
  node.additionalProperties = false;
  return node;
}

/** The node reached by a path step inside a converted node: `*` = array items / map values, else a property. */
function stepInto(node: JsonObject, step: string): JsonObject | null {
  if (step === '*') {
    if (node.type === 'array' && isObject(node.items)) return node.items as JsonObject;
    if (node.type === 'object' && isObject(node.additionalProperties)) return node.additionalProperties as JsonObject;
    return null;
  }
  const props = node.properties;
  if (!isObject(props)) return null;
  if (isObject(props[step])) return props[step] as JsonObject;
  // Union members may be named by their short name in annotation paths.
  const match = Object.keys(props).find((k) => k.endsWith(`.${step}`));
  return match ? (props[match] as JsonObject) : null;
}

function relationshipOf(raw: Record<string, unknown>): JsonObject {
  const out: JsonObject = { name: String(raw.name), entityTypes: ((raw.entityTypes as string[]) ?? []).slice() };
  if (raw.isLineage === true) out.isLineage = true;
  if (raw.isUpstream === false) out.isUpstream = false;
  // The node an edge passes through (a lineage edge's query), as DataHub's aspect-rooted path: `upstreams/*/query`.
  if (typeof raw.via === 'string') out.via = raw.via;
  return out;
}

function searchableOf(raw: Record<string, unknown>, fieldName: string, node: JsonObject): JsonObject {
  const fieldType = typeof raw.fieldType === 'string' ? raw.fieldType : defaultSearchFieldType(node);
  const out: JsonObject = {
    fieldName: typeof raw.fieldName === 'string' ? raw.fieldName : fieldName,
    fieldType,
    queryByDefault: typeof raw.queryByDefault === 'boolean' ? raw.queryByDefault : QUERY_BY_DEFAULT_TYPES.includes(fieldType),
  };
  if (raw.addToFilters === true) out.addToFilters = true;
  if (raw.enableAutocomplete === true) out.enableAutocomplete = true;
  if (typeof raw.boostScore === 'number' && raw.boostScore !== 1) out.boostScore = raw.boostScore;
  if (typeof raw.hasValuesFieldName === 'string') out.hasValuesFieldName = raw.hasValuesFieldName;
  if (typeof raw.numValuesFieldName === 'string') out.numValuesFieldName = raw.numValuesFieldName;
  return out;
}

/**
 * Places an annotation of a field: `{…}` applies to the field's own node, `{"/a/*\/b": {…}}` to the node at that path
 * below it (DataHub's path form, used on arrays, maps and records). An outer annotation overrides the inner one of the
 * same kind that the record's own field carried (e.g. EditableSchemaMetadata renames TagAssociation's TaggedWith).
 */
function placeAnnotation(
  fieldNode: JsonObject,
  fieldName: string,
  kind: 'Relationship' | 'Searchable',
  raw: Record<string, unknown>,
  ctx: Context,
): void {
  const isPathForm = Object.keys(raw).length > 0 && Object.keys(raw).every((k) => k.startsWith('/'));
  const entries: [string[], Record<string, unknown>][] = isPathForm
    ? Object.entries(raw).map(([p, v]) => [p.split('/').filter(Boolean), v as Record<string, unknown>])
    : [[[], raw]];
  for (const [path, value] of entries) {
    if (!isObject(value)) continue;
    let node: JsonObject | null = fieldNode;
    for (const step of path) {
      if (!node) break;
      if (step === '$key') {
        node = null;
        break;
      }
      // A searchable map is indexed as key=value strings: the annotation stays on the map itself.
      if (kind === 'Searchable' && step === '*' && node.type === 'object' && node.additionalProperties !== undefined) break;
      // `/*` on a single value (DataProcessInstanceRelationships.parentTemplate) annotates the value itself, as DataHub
      // indexes it (its DataJobRunsResolver filters runs on parentTemplate).
      if (step === '*' && node.type !== 'array' && node.type !== 'object') continue;
      node = stepInto(node, step);
    }
    if (!node) {
      ctx.skipped.push(`${ctx.where}: ${kind} at ${fieldName}/${path.join('/')}`);
      continue;
    }
    if (kind === 'Relationship') node['x-relationship'] = relationshipOf(value);
    else if (!SEARCHABLE_KEYS.some((k) => k in value) && isObject(node['x-searchable'])) continue; // a search-v3-only override
    else {
      // An outer override refines the inner annotation: keys it does not set keep the inner values.
      const inner = isObject(node['x-searchable']) ? (node['x-searchable'] as Record<string, unknown>) : {};
      node['x-searchable'] = searchableOf({ ...inner, ...value }, fieldName, node);
    }
  }
}

function convertField(f: AvroField, ctx: Context, ns: string): JsonObject {
  const node = convertType(f.type, ctx, ns);
  if (f.doc) node.description = f.doc;
  if ('default' in f && f.default !== null && f.default !== undefined) node.default = f.default as Json;
  if (f.Deprecated !== undefined || f.deprecated === true) node.deprecated = true;
  // URN-typed fields (DataHub's Urn/UrnValidation annotations or a java Urn class).
  const javaClass = isObject(f.java) ? String(f.java.class ?? '') : '';
  const isUrn = f.Urn !== undefined || f.UrnValidation !== undefined || /\.urn\.\w*Urn$/.test(javaClass);
  if (isUrn) {
    const validation = isObject(f.UrnValidation) ? f.UrnValidation : {};
    const entityTypes = ((validation.entityTypes as string[] | undefined) ?? (f.entityTypes as string[] | undefined) ?? []).slice();
    const target = node.type === 'array' && isObject(node.items) ? (node.items as JsonObject) : node;
    if (target.type === 'string') target['x-urn'] = { entityTypes };
  }
  if (isObject(f.Relationship)) placeAnnotation(node, f.name, 'Relationship', f.Relationship, ctx);
  if (isObject(f.Searchable)) placeAnnotation(node, f.name, 'Searchable', f.Searchable, ctx);
  return node;
}

/** One aspect's .avsc → its JSON Schema and annotations, or null when the file is not an aspect. */
export function convertAspect(avsc: unknown, skipped: string[] = []): ConvertedAspect | null {
  if (!isObject(avsc) || avsc.type !== 'record' || !isObject(avsc.Aspect)) return null;
  const root = avsc as unknown as AvroComplex;
  const aspect = avsc.Aspect as unknown as AspectAnnotation;
  const name = fullName(root, '');
  const ctx: Context = { named: new Map(), recursive: recursiveNames(root), definitions: new Map(), skipped, where: aspect.name };
  register(root, ctx, '');
  const body = convertRecord(root, name, ctx);
  const timeseries = aspect.type === 'timeseries';
  const schema: JsonObject = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: aspect.name,
    title: root.name!.split('.').pop()!,
    description: (root.doc as string | undefined) ?? pegasusName(name),
    type: 'object',
    'x-aspect': { name: aspect.name, recordName: pegasusName(name), timeseries },
  };
  if (aspect.keyForEntity) {
    schema['x-key'] = { entity: aspect.keyForEntity, parts: (root.fields ?? []).map((f) => f.name) };
    // The key's own fields are URN parts; DataHub projects their relationships too (e.g. a data job IsPartOf its flow).
  }
  schema.properties = body.properties;
  // Every part of a key is in the URN, so each is present (Avro marks some optional).
  const required = aspect.keyForEntity ? (root.fields ?? []).map((f) => f.name) : body.required;
  if (required) schema.required = required;
  schema.additionalProperties = false;
  if (ctx.definitions.size > 0) schema.definitions = Object.fromEntries([...ctx.definitions].map(([k, v]) => [k, v as Json]));
  return {
    name: aspect.name,
    recordName: pegasusName(name),
    timeseries,
    keyForEntity: aspect.keyForEntity,
    entityAspects: aspect.entityAspects,
    schema,
  };
}

export interface SnapshotEntity {
  snapshot: string;
  entity: string;
  keyAspect: string;
}

/** The legacy snapshot records of MetadataChangeEvent.avsc and the entity each one carries (its Entity annotation). */
export function snapshotEntities(metadataChangeEvent: unknown): SnapshotEntity[] {
  if (!isObject(metadataChangeEvent)) return [];
  const fields = (metadataChangeEvent.fields as AvroField[] | undefined) ?? [];
  const proposed = fields.find((f) => f.name === 'proposedSnapshot');
  const members = Array.isArray(proposed?.type) ? proposed!.type : [];
  const out: SnapshotEntity[] = [];
  for (const m of members) {
    if (!isObject(m) || !isObject(m.Entity)) continue;
    const snapshotName = fullName(m as unknown as AvroComplex, namespaceOf(String(metadataChangeEvent.namespace ?? '') + '.x'));
    out.push({ snapshot: pegasusName(snapshotName), entity: String(m.Entity.name), keyAspect: String(m.Entity.keyAspect) });
  }
  return out;
}
