import { makeUrn, parseUrn, tryParseUrn } from '../../model/urn';

/**
 * Semantic change events between two values of an aspect, by the rules of DataHub's timeline change-event generators
 * (metadata-io .../timeline/eventgenerator): what counts as an addition, removal or modification, its semantic-version
 * weight (a removed or retyped schema field is MAJOR, an added one MINOR, a changed field description PATCH, …), its
 * modifier, parameters and description text. `base` null = the aspect did not exist before.
 */

export type ChangeCategory =
  | 'DOCUMENTATION'
  | 'GLOSSARY_TERM'
  | 'OWNERSHIP'
  | 'TECHNICAL_SCHEMA'
  | 'TAG'
  | 'DOMAIN'
  | 'DEPRECATION'
  | 'STRUCTURED_PROPERTY'
  | 'APPLICATION'
  | 'LINEAGE';

export type ChangeOperation = 'ADD' | 'REMOVE' | 'MODIFY';
export type SemVerChange = 'NONE' | 'PATCH' | 'MINOR' | 'MAJOR' | 'EXCEPTIONAL';

export const SEMVER_ORDER: SemVerChange[] = ['NONE', 'PATCH', 'MINOR', 'MAJOR', 'EXCEPTIONAL'];

export interface ChangeEvent {
  entityUrn: string;
  category: ChangeCategory;
  operation: ChangeOperation;
  modifier?: string;
  parameters?: Record<string, unknown>;
  semVerChange: SemVerChange;
  description?: string;
}

type Json = Record<string, unknown>;
export type Generator = (base: Json | null, target: Json, entityUrn: string, category: ChangeCategory) => ChangeEvent[];

export function highest(events: { semVerChange: SemVerChange }[]): SemVerChange {
  let top = 0;
  for (const e of events) top = Math.max(top, SEMVER_ORDER.indexOf(e.semVerChange));
  return SEMVER_ORDER[top];
}

/** Urn.getId(): the part after `urn:li:<type>:`. */
function idOf(urn: string): string {
  return tryParseUrn(urn)?.id ?? urn;
}

/** Java's String.compareTo (UTF-16 code units), which is also JavaScript's `<` on strings. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const list = (v: unknown): Json[] => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as Json[]) : []);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * Sorted merge of two lists by key: REMOVE for keys only in base, ADD for keys only in target, `same` for pairs
 * (DataHub's generators walk both sorted lists this way, so events come out in key order).
 */
function merge<T>(base: T[], target: T[], key: (t: T) => string, on: { removed(b: T): void; added(t: T): void; same?(b: T, t: T): void }) {
  const b = [...base].sort((x, y) => compare(key(x), key(y)));
  const t = [...target].sort((x, y) => compare(key(x), key(y)));
  let i = 0;
  let j = 0;
  while (i < b.length && j < t.length) {
    const c = compare(key(b[i]), key(t[j]));
    if (c === 0) {
      on.same?.(b[i], t[j]);
      i++;
      j++;
    } else if (c < 0) on.removed(b[i++]);
    else on.added(t[j++]);
  }
  while (i < b.length) on.removed(b[i++]);
  while (j < t.length) on.added(t[j++]);
}

/** A MetadataAttribution's sourceDetail as a JSON string, "{}" without one. */
function sourceDetails(association: Json): string {
  const attribution = association.attribution as Json | undefined;
  return attribution ? JSON.stringify(attribution.sourceDetail ?? {}) : '{}';
}

// ---- tags and glossary terms (entity level; schema fields reuse them) ----

export function tagEvents(base: Json | null, target: Json | null, entityUrn: string): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  const event = (a: Json, operation: ChangeOperation): ChangeEvent => {
    const tag = String(a.tag);
    return {
      entityUrn,
      category: 'TAG',
      operation,
      modifier: tag,
      parameters: { tagUrn: tag, context: str(a.context) ?? '{}', sourceDetails: sourceDetails(a) },
      semVerChange: 'MINOR',
      description: operation === 'ADD' ? `Tag '${idOf(tag)}' added to entity '${entityUrn}'.` : `Tag '${idOf(tag)}' removed from entity '${entityUrn}'.`,
    };
  };
  merge(list(base?.tags), list(target?.tags), (a) => String(a.tag), { removed: (b) => events.push(event(b, 'REMOVE')), added: (t) => events.push(event(t, 'ADD')) });
  return events;
}

export function termEvents(base: Json | null, target: Json | null, entityUrn: string): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  const event = (a: Json, operation: ChangeOperation): ChangeEvent => {
    const term = String(a.urn);
    return {
      entityUrn,
      category: 'GLOSSARY_TERM',
      operation,
      modifier: term,
      parameters: { termUrn: term, context: str(a.context) ?? '{}' },
      semVerChange: 'MINOR',
      description: operation === 'ADD' ? `Term '${idOf(term)}' added to entity '${entityUrn}'.` : `Term '${idOf(term)}' removed from entity '${entityUrn}'.`,
    };
  };
  merge(list(base?.terms), list(target?.terms), (a) => String(a.urn), { removed: (b) => events.push(event(b, 'REMOVE')), added: (t) => events.push(event(t, 'ADD')) });
  return events;
}

/** Entity tag/term events rebound to a schema field (DataHub's SchemaFieldTag/GlossaryTermChangeEvent). */
function onField(events: ChangeEvent[], fieldPath: string, parentUrn: string): ChangeEvent[] {
  return events.map((e) => {
    const p = e.parameters ?? {};
    const key = e.category === 'TAG' ? 'tagUrn' : 'termUrn';
    return { ...e, parameters: { fieldPath, parentUrn, [key]: p[key], context: p.context } };
  });
}

// ---- ownership ----

export function ownershipEvents(base: Json | null, target: Json, entityUrn: string): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  const params = (o: Json) => ({ ownerUrn: String(o.owner), ownerType: String(o.type), ...(typeof o.typeUrn === 'string' ? { ownerTypeUrn: o.typeUrn } : {}) });
  merge(list(base?.owners), list(target.owners), (o) => String(o.owner), {
    removed: (o) =>
      events.push({
        entityUrn,
        category: 'OWNERSHIP',
        operation: 'REMOVE',
        modifier: String(o.owner),
        parameters: params(o),
        semVerChange: 'MINOR',
        description: `'${idOf(String(o.owner))}' removed as a \`${String(o.type)}\` of '${entityUrn}'.`,
      }),
    added: (o) =>
      events.push({
        entityUrn,
        category: 'OWNERSHIP',
        operation: 'ADD',
        modifier: String(o.owner),
        parameters: params(o),
        semVerChange: 'MINOR',
        description: `'${idOf(String(o.owner))}' added as a \`${String(o.type)}\` of '${entityUrn}'.`,
      }),
    same: (b, t) => {
      if (String(b.type) === String(t.type)) return;
      events.push({
        entityUrn,
        category: 'OWNERSHIP',
        operation: 'MODIFY',
        modifier: String(t.type),
        parameters: params(t),
        semVerChange: 'PATCH',
        description: `'${idOf(String(b.owner))}''s ownership type changed from '${String(b.type)}' to '${String(t.type)}' for '${entityUrn}'.`,
      });
    },
  });
  return events;
}

// ---- documentation: institutional memory, dataset descriptions ----

export function institutionalMemoryEvents(base: Json | null, target: Json, entityUrn: string): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  const event = (e: Json, operation: 'ADD' | 'REMOVE'): ChangeEvent => ({
    entityUrn,
    category: 'DOCUMENTATION',
    operation,
    modifier: String(e.url),
    semVerChange: 'MINOR',
    description: `Institutional Memory '${String(e.url)}' with documentation of '${entityUrn}' has been ${operation === 'ADD' ? 'added' : 'removed'}: '${String(e.description)}'`,
  });
  merge(list(base?.elements), list(target.elements), (e) => String(e.url), {
    removed: (e) => events.push(event(e, 'REMOVE')),
    added: (e) => events.push(event(e, 'ADD')),
    same: (b, t) => {
      if (String(b.description) === String(t.description)) return;
      events.push({
        entityUrn,
        category: 'DOCUMENTATION',
        operation: 'MODIFY',
        modifier: String(b.url),
        semVerChange: 'PATCH',
        description: `Documentation of Institutional Memory '${String(b.url)}' of  '${entityUrn}' has been changed from '${String(b.description)}' to '${String(t.description)}'.`,
      });
    },
  });
  return events;
}

/** datasetProperties and editableDatasetProperties: the description (every change MINOR, as DataHub weighs it). */
export function descriptionEvents(base: Json | null, target: Json, entityUrn: string): ChangeEvent[] {
  const before = str(base?.description);
  const after = str(target.description);
  const event = (operation: ChangeOperation, description: string, value: string): ChangeEvent => ({
    entityUrn,
    category: 'DOCUMENTATION',
    operation,
    parameters: { description: value },
    semVerChange: 'MINOR',
    description,
  });
  if (before === null && after !== null) return [event('ADD', `Documentation for '${entityUrn}' has been added: '${after}'.`, after)];
  if (before !== null && after === null) return [event('REMOVE', `Documentation for '${entityUrn}' has been removed: '${before}'.`, before)];
  if (before !== null && after !== null && before !== after) return [event('MODIFY', `Documentation of '${entityUrn}' has been changed from '${before}' to '${after}'.`, after)];
  return [];
}

// ---- schema fields ----

const FIELD_PATH_V2 = '[version=2.0]';

/** DataHub's v2 → v1 field path: the type and version annotations dropped. */
export function downgradeFieldPath(path: string): string {
  if (!path.startsWith(FIELD_PATH_V2)) return path;
  return path
    .slice(FIELD_PATH_V2.length)
    .split('.')
    .filter((c) => c !== '' && !(c.startsWith('[') && c.endsWith(']')))
    .join('.');
}

/**
 * urn:<ns>:schemaField:(<dataset>,<fieldPath>), in the dataset urn's namespace (the configured one: the timeline parsed
 * it), with the path's parentheses and commas encoded as DataHub does.
 */
export function schemaFieldUrn(datasetUrn: string, fieldPath: string): string {
  return makeUrn(parseUrn(datasetUrn).namespace, 'schemaField', [datasetUrn, fieldPath.replace(/\(/g, '%28').replace(/\)/g, '%29').replace(/,/g, '%2C')]);
}

interface Field {
  fieldPath: string;
  nativeDataType: string;
  nullable: boolean;
  description: string | null;
  globalTags: Json | null;
  glossaryTerms: Json | null;
  raw: Json;
}

/** A field's canonical form, for DataHub's value equality of fields (computed when a rename is looked for). */
const canonicalForms = new WeakMap<Field, string>();
function canonicalOf(f: Field): string {
  let c = canonicalForms.get(f);
  if (c === undefined) canonicalForms.set(f, (c = canonical(f.raw)));
  return c;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as Json)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Json)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Fields sorted by path, once per parsed value (the generator runs once per category on the same versions). */
const parsedFields = new WeakMap<Json, Field[]>();
function fieldsOf(schema: Json | null): Field[] {
  if (!schema) return [];
  let fields = parsedFields.get(schema);
  if (!fields) parsedFields.set(schema, (fields = readFields(schema)));
  return fields;
}

function readFields(schema: Json): Field[] {
  return list(schema.fields)
    .map((f) => ({
      fieldPath: String(f.fieldPath),
      nativeDataType: String(f.nativeDataType ?? ''),
      nullable: f.nullable === true,
      description: str(f.description),
      globalTags: (f.globalTags as Json | undefined) ?? null,
      glossaryTerms: (f.glossaryTerms as Json | undefined) ?? null,
      raw: f,
    }))
    .sort((a, b) => compare(a.fieldPath, b.fieldPath));
}

const BACKWARDS_INCOMPATIBLE = 'A backwards incompatible change due to';
const COMPATIBLE = 'A forwards & backwards compatible change due to ';

function fieldChange(datasetUrn: string, field: Field, operation: ChangeOperation, semVerChange: SemVerChange, description: string, modificationCategory: string): ChangeEvent {
  const fieldUrn = schemaFieldUrn(datasetUrn, field.fieldPath);
  return {
    entityUrn: datasetUrn,
    category: 'TECHNICAL_SCHEMA',
    operation,
    modifier: fieldUrn,
    parameters: { fieldPath: field.fieldPath, fieldUrn, nullable: field.nullable, modificationCategory },
    semVerChange,
    description,
  };
}

/** Description, tag and term changes of one field (base or target may be absent). */
function fieldPropertyEvents(base: Field | null, target: Field | null, datasetUrn: string, category: ChangeCategory): ChangeEvent[] {
  const field = (target ?? base)!;
  const fieldUrn = schemaFieldUrn(datasetUrn, field.fieldPath);
  const events: ChangeEvent[] = [];
  if (category === 'DOCUMENTATION') {
    const before = base?.description ?? null;
    const after = target?.description ?? null;
    const doc = (operation: ChangeOperation, semVerChange: SemVerChange, description: string, parameters: Json): ChangeEvent => ({
      entityUrn: fieldUrn,
      category: 'DOCUMENTATION',
      operation,
      parameters: { ...parameters, fieldPath: field.fieldPath, parentUrn: datasetUrn },
      semVerChange,
      description,
    });
    if (before === null && after !== null) events.push(doc('ADD', 'MINOR', `The description '${after}' for the field '${target!.fieldPath}' has been added.`, { description: after }));
    else if (before !== null && after === null) events.push(doc('REMOVE', 'MINOR', `The description '${before}' for the field '${base!.fieldPath}' has been removed.`, { description: before }));
    else if (before !== null && before !== after) {
      events.push(doc('MODIFY', 'PATCH', `The description for the field '${base!.fieldPath}' has been changed from '${before}' to '${after}'.`, { description: after, previousDescription: before }));
    }
  }
  if (category === 'TAG') events.push(...onField(tagEvents(base?.globalTags ?? null, target?.globalTags ?? null, fieldUrn), field.fieldPath, datasetUrn));
  if (category === 'GLOSSARY_TERM') events.push(...onField(termEvents(base?.glossaryTerms ?? null, target?.glossaryTerms ?? null, fieldUrn), field.fieldPath, datasetUrn));
  return events;
}

/** Fields on both sides whose path moved (v2 paths embed the type) but denote the same column: one group per column. */
interface MovedGroup {
  base: Field[];
  target: Field[];
  hasStable: boolean;
}

function movedGroups(base: Field[], target: Field[]): Map<Field, MovedGroup> {
  const basePaths = new Set(base.map((f) => f.fieldPath));
  const targetPaths = new Set(target.map((f) => f.fieldPath));
  const group = (fields: Field[], other: Set<string>) => {
    const out = new Map<string, Field[]>();
    for (const f of fields) {
      if (other.has(f.fieldPath)) continue;
      const logical = downgradeFieldPath(f.fieldPath);
      out.set(logical, [...(out.get(logical) ?? []), f]);
    }
    return out;
  };
  const baseByLogical = group(base, targetPaths);
  const targetByLogical = group(target, basePaths);
  const stable = new Set(base.filter((f) => targetPaths.has(f.fieldPath)).map((f) => downgradeFieldPath(f.fieldPath)));
  // The least qualified path denotes the column itself; the path breaks ties.
  const columnFirst = (a: Field, b: Field) => a.fieldPath.split('.').length - b.fieldPath.split('.').length || compare(a.fieldPath, b.fieldPath);
  const out = new Map<Field, MovedGroup>();
  for (const [logical, bs] of baseByLogical) {
    const ts = targetByLogical.get(logical);
    if (!ts) continue;
    const g = { base: [...bs].sort(columnFirst), target: [...ts].sort(columnFirst), hasStable: stable.has(logical) };
    for (const f of [...bs, ...ts]) out.set(f, g);
  }
  return out;
}

const nativeTypes = (fields: Field[]) => [...new Set(fields.map((f) => f.nativeDataType))].sort(compare).join(', ');

function typeChange(datasetUrn: string, base: Field, target: Field, baseType: string, targetType: string): ChangeEvent {
  return fieldChange(
    datasetUrn,
    base,
    'MODIFY',
    'MAJOR',
    `${BACKWARDS_INCOMPATIBLE} native datatype of the field '${downgradeFieldPath(target.fieldPath)}' changed from '${baseType}' to '${targetType}'.`,
    'TYPE_CHANGE',
  );
}

function isRenamed(a: Field, b: Field): boolean {
  if (a.nativeDataType !== b.nativeDataType || a.description !== b.description) return false;
  const i = a.fieldPath.lastIndexOf('.');
  const j = b.fieldPath.lastIndexOf('.');
  if (i > 0 && j > 0) return a.fieldPath.slice(0, i) === b.fieldPath.slice(0, j);
  return i < 0 && j < 0;
}

export function schemaEvents(base: Json | null, target: Json, datasetUrn: string, category: ChangeCategory): ChangeEvent[] {
  const baseFields = fieldsOf(base);
  const targetFields = fieldsOf(target);
  const events: ChangeEvent[] = [];
  const technical = category === 'TECHNICAL_SCHEMA';
  const moved = movedGroups(baseFields, targetFields);
  const processed = new Set<Field>();
  const renamed = new Set<Field>();

  const removal = (f: Field) => {
    if (technical) events.push(fieldChange(datasetUrn, f, 'REMOVE', 'MAJOR', `${BACKWARDS_INCOMPATIBLE} removal of field: '${downgradeFieldPath(f.fieldPath)}'.`, 'OTHER'));
    events.push(...fieldPropertyEvents(f, null, datasetUrn, category));
  };
  const addition = (f: Field) => {
    if (technical) events.push(fieldChange(datasetUrn, f, 'ADD', 'MINOR', `${COMPATIBLE}the newly added field '${downgradeFieldPath(f.fieldPath)}'.`, 'OTHER'));
    events.push(...fieldPropertyEvents(null, f, datasetUrn, category));
  };
  const rename = (from: Field, to: Field) => {
    if (technical) {
      events.push(fieldChange(datasetUrn, from, 'MODIFY', 'MINOR', `${COMPATIBLE}renaming of the field '${downgradeFieldPath(from.fieldPath)} to ${downgradeFieldPath(to.fieldPath)}'.`, 'RENAME'));
    }
    events.push(...fieldPropertyEvents(from, to, datasetUrn, category));
  };
  const processMoved = (g: MovedGroup) => {
    const [b, t] = [g.base[0], g.target[0]];
    if (technical && nativeTypes(g.base) !== nativeTypes(g.target)) events.push(typeChange(datasetUrn, b, t, nativeTypes(g.base), nativeTypes(g.target)));
    if (!g.hasStable) events.push(...fieldPropertyEvents(b, t, datasetUrn, category));
    for (const f of [...g.base, ...g.target]) processed.add(f);
  };
  /** A field on the other side that looks like `field` renamed (same type, parent and description). */
  const findRenamed = (field: Field, sameSide: Field[], otherSide: Field[]) => {
    const candidates = otherSide.filter((f) => isRenamed(field, f) && !renamed.has(f) && !moved.has(f));
    if (candidates.length === 0) return null;
    const sameSideForms = new Set(sameSide.map(canonicalOf));
    return candidates.find((f) => !sameSideForms.has(canonicalOf(f))) ?? null;
  };

  let i = 0;
  let j = 0;
  while (i < baseFields.length && j < targetFields.length) {
    const b = baseFields[i];
    const t = targetFields[j];
    const c = compare(b.fieldPath, t.fieldPath);
    if (renamed.has(b) || processed.has(b)) i++;
    else if (renamed.has(t) || processed.has(t)) j++;
    else if (c === 0) {
      if (b.nativeDataType !== t.nativeDataType && technical) events.push(typeChange(datasetUrn, b, t, b.nativeDataType, t.nativeDataType));
      events.push(...fieldPropertyEvents(b, t, datasetUrn, category));
      i++;
      j++;
    } else if (c < 0) {
      const g = moved.get(b);
      if (g) {
        processMoved(g);
        i++;
        continue;
      }
      const to = findRenamed(b, baseFields.slice(i), targetFields.slice(j));
      if (to) {
        rename(b, to);
        renamed.add(to);
      } else removal(b);
      i++;
    } else {
      const g = moved.get(t);
      if (g) {
        processMoved(g);
        j++;
        continue;
      }
      const from = findRenamed(t, targetFields.slice(j), baseFields.slice(i));
      if (from) {
        rename(from, t);
        renamed.add(from);
      } else addition(t);
      j++;
    }
  }
  for (; i < baseFields.length; i++) if (!renamed.has(baseFields[i]) && !processed.has(baseFields[i])) removal(baseFields[i]);
  for (; j < targetFields.length; j++) if (!renamed.has(targetFields[j]) && !processed.has(targetFields[j])) addition(targetFields[j]);

  if (technical) {
    const keys = (s: Json | null) => new Set((Array.isArray(s?.primaryKeys) ? (s!.primaryKeys as unknown[]) : []).map(String));
    const before = keys(base);
    const after = keys(target);
    const pk = (key: string, what: string): ChangeEvent => {
      const fieldUrn = schemaFieldUrn(datasetUrn, key);
      return {
        entityUrn: datasetUrn,
        category: 'TECHNICAL_SCHEMA',
        operation: 'MODIFY',
        modifier: fieldUrn,
        parameters: { fieldPath: key, fieldUrn, nullable: false, modificationCategory: 'OTHER' },
        semVerChange: 'MAJOR',
        description: `${BACKWARDS_INCOMPATIBLE} ${what} of the primary key field '${key}'`,
      };
    };
    for (const k of [...before].filter((k) => !after.has(k)).sort(compare)) events.push(pk(k, 'removal'));
    for (const k of [...after].filter((k) => !before.has(k)).sort(compare)) events.push(pk(k, 'addition'));
  }
  return events.filter((e) => e.category === category);
}

/** editableSchemaMetadata: per field path, its documentation, tags and terms. */
export function editableSchemaEvents(base: Json | null, target: Json, datasetUrn: string, category: ChangeCategory): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  const pair = (b: Json | null, t: Json | null) => {
    const fieldPath = String((t ?? b)!.fieldPath);
    const fieldUrn = schemaFieldUrn(datasetUrn, fieldPath);
    if (category === 'DOCUMENTATION') {
      const before = str(b?.description);
      const after = str(t?.description);
      const doc = (operation: ChangeOperation, semVerChange: SemVerChange, description: string): ChangeEvent => ({ entityUrn: fieldUrn, category: 'DOCUMENTATION', operation, modifier: fieldPath, semVerChange, description });
      if (before === null && after !== null) events.push(doc('ADD', 'MINOR', `Documentation for the field '${fieldPath}' of '${fieldUrn}' has been added: '${after}'`));
      else if (before !== null && after === null) events.push(doc('REMOVE', 'MINOR', `Documentation for the field '${fieldPath}' of '${fieldUrn}' has been removed: '${before}'`));
      else if (before !== null && after !== null && before !== after) {
        events.push(doc('MODIFY', 'PATCH', `Documentation for the field '${fieldPath}' of '${fieldUrn}' has been updated from '${before}' to '${after}'.`));
      }
    }
    if (category === 'TAG') events.push(...onField(tagEvents((b?.globalTags as Json) ?? null, (t?.globalTags as Json) ?? null, fieldUrn), fieldPath, fieldUrn));
    if (category === 'GLOSSARY_TERM') events.push(...onField(termEvents((b?.glossaryTerms as Json) ?? null, (t?.glossaryTerms as Json) ?? null, fieldUrn), fieldPath, fieldUrn));
  };
  merge(list(base?.editableSchemaFieldInfo), list(target.editableSchemaFieldInfo), (f) => String(f.fieldPath), {
    removed: (b) => pair(b, null),
    added: (t) => pair(null, t),
    same: (b, t) => pair(b, t),
  });
  return events;
}

// ---- domain, deprecation, lineage ----

export function domainEvents(base: Json | null, target: Json, entityUrn: string): ChangeEvent[] {
  const first = (v: Json | null) => (Array.isArray(v?.domains) && (v!.domains as unknown[]).length > 0 ? String((v!.domains as unknown[])[0]) : null);
  const before = first(base);
  const after = first(target);
  const event = (operation: 'ADD' | 'REMOVE', domain: string): ChangeEvent => ({
    entityUrn,
    category: 'DOMAIN',
    operation,
    modifier: domain,
    parameters: { domainUrn: domain },
    semVerChange: 'MINOR',
    description: operation === 'ADD' ? `Domain '${idOf(domain)}' added to entity '${entityUrn}'.` : `Domain '${idOf(domain)}' removed from entity '${entityUrn}'.`,
  });
  if (before === after) return [];
  return [...(before ? [event('REMOVE', before)] : []), ...(after ? [event('ADD', after)] : [])];
}

export function deprecationEvents(base: Json | null, target: Json, entityUrn: string): ChangeEvent[] {
  const was = base?.deprecated === true;
  const is = target.deprecated === true;
  if (was === is) return [];
  return [
    {
      entityUrn,
      category: 'DEPRECATION',
      operation: 'MODIFY',
      parameters: { status: is ? 'DEPRECATED' : 'ACTIVE' },
      semVerChange: 'MINOR',
      description: is ? `Entity '${entityUrn}' has been deprecated.` : `Entity '${entityUrn}' is no longer deprecated.`,
    },
  ];
}

/** Structured property assignments added, removed or given other values (MINOR; DataHub's texts and parameters). */
export function structuredPropertyEvents(base: Json | null, target: Json, entityUrn: string): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  // Jackson writes a double 1 as 1.0.
  const values = (a: Json) => `[${list(a.values).map((v) => (typeof v.double === 'number' ? (Number.isInteger(v.double) ? `${v.double}.0` : String(v.double)) : 'string' in v ? JSON.stringify(v.string) : 'null')).join(',')}]`;
  const event = (a: Json, operation: ChangeOperation, withParameters = true): ChangeEvent => {
    const property = String(a.propertyUrn);
    return {
      entityUrn,
      category: 'STRUCTURED_PROPERTY',
      operation,
      modifier: property,
      ...(withParameters ? { parameters: { propertyUrn: property, propertyValues: values(a) } } : {}),
      semVerChange: 'MINOR',
      description: operation === 'REMOVE' ? `Structured property '${idOf(property)}' removed from entity '${entityUrn}'.` : `Structured property '${idOf(property)}' added to entity '${entityUrn}'.`,
    };
  };
  const b = [...list(base?.properties)].sort((x, y) => compare(String(x.propertyUrn), String(y.propertyUrn)));
  const t = [...list(target.properties)].sort((x, y) => compare(String(x.propertyUrn), String(y.propertyUrn)));
  let i = 0;
  let j = 0;
  while (i < b.length && j < t.length) {
    const c = compare(String(b[i].propertyUrn), String(t[j].propertyUrn));
    if (c === 0) {
      if (canonical(b[i].values ?? []) !== canonical(t[j].values ?? [])) events.push(event(t[j], 'MODIFY'));
      i++;
      j++;
    } else if (c < 0) events.push(event(b[i++], 'REMOVE', false)); // DataHub leaves these without parameters
    else events.push(event(t[j++], 'ADD'));
  }
  while (i < b.length) events.push(event(b[i++], 'REMOVE'));
  while (j < t.length) events.push(event(t[j++], 'ADD'));
  return events;
}

/** Applications the entity belongs to, added or removed (MINOR). */
export function applicationEvents(base: Json | null, target: Json, entityUrn: string): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  const urns = (v: Json | null) => (Array.isArray(v?.applications) ? (v!.applications as unknown[]).map(String) : []);
  const event = (application: string, operation: 'ADD' | 'REMOVE'): ChangeEvent => ({
    entityUrn,
    category: 'APPLICATION',
    operation,
    modifier: application,
    semVerChange: 'MINOR',
    description: operation === 'ADD' ? `Application '${idOf(application)}' added to entity '${entityUrn}'.` : `Application '${idOf(application)}' removed from entity '${entityUrn}'.`,
  });
  merge(urns(base), urns(target), (u) => u, { removed: (u) => events.push(event(u, 'REMOVE')), added: (u) => events.push(event(u, 'ADD')) });
  return events;
}

/** Extension (DataHub's timeline has no lineage category): upstream datasets added or removed, or their type changed. */
export function upstreamEvents(base: Json | null, target: Json, entityUrn: string): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  const event = (u: Json, operation: ChangeOperation, semVerChange: SemVerChange, description: string): ChangeEvent => ({
    entityUrn,
    category: 'LINEAGE',
    operation,
    modifier: String(u.dataset),
    parameters: { upstreamUrn: String(u.dataset), type: String(u.type ?? '') },
    semVerChange,
    description,
  });
  merge(list(base?.upstreams), list(target.upstreams), (u) => String(u.dataset), {
    removed: (u) => events.push(event(u, 'REMOVE', 'MINOR', `Upstream '${String(u.dataset)}' removed from entity '${entityUrn}'.`)),
    added: (u) => events.push(event(u, 'ADD', 'MINOR', `Upstream '${String(u.dataset)}' added to entity '${entityUrn}'.`)),
    same: (b, t) => {
      if (String(b.type ?? '') !== String(t.type ?? '')) {
        events.push(event(t, 'MODIFY', 'PATCH', `Lineage type of upstream '${String(t.dataset)}' of entity '${entityUrn}' changed from '${String(b.type)}' to '${String(t.type)}'.`));
      }
    },
  });
  return events;
}
