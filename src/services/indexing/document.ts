import { valuesAt, type EntitySpec, type Registry } from '../../model/registry';
import { browseListing, normalizeBrowsePath } from '../../model/browse-paths';
import { tryParseUrn } from '../../model/urn';
import { companionFields, searchableFields } from '../../stores/search/mappings';
import { analyze, innerTokens, urnIdTokens } from '../search/text-analysis';

export type SearchDocument = Record<string, unknown>;

/**
 * What one aspect value contributes to its entity's search document: the values at each of its searchable fields (in
 * the order of `aspectSlots`), and its browse paths. Much smaller than the aspect, so the indexer can keep the latest
 * fragments of an entity and rebuild its document after a write without reading the entity back.
 */
export interface AspectFragment {
  values: unknown[][];
  paths?: string[];
  /**
   * The words its values add to the document's word fields, split once when the value is written (a document is
   * rebuilt from every aspect after each write): names (autocomplete fields), the ids inside URN values, the words
   * inside text. Absent when there are none.
   */
  words?: FragmentWords;
}

export interface FragmentWords {
  names?: string[];
  /** The names split as the name fields' analysis does (`analyze`). */
  nameParts?: string[];
  urnTokens?: string[];
  textParts?: string[];
}

/** A browse path and each of its ancestors: "/prod/hive" → "/", "/prod", "/prod/hive". */
function withAncestors(path: string): string[] {
  const segments = path.split('/').filter(Boolean);
  const out = ['/'];
  for (let i = 1; i <= segments.length; i++) out.push('/' + segments.slice(0, i).join('/'));
  return out;
}

const TEXT_TYPES = new Set(['TEXT', 'TEXT_PARTIAL', 'WORD_GRAM']);


function flatten(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap(flatten);
  if (typeof value === 'object') return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}=${String(v)}`);
  return [value];
}

type SlotField = { path: readonly string[]; enableAutocomplete?: boolean; fieldType: string; queryByDefault?: boolean };

interface Slots {
  /** Per aspect, the searchable fields it feeds, in document order: a fragment's `values` follow this order. */
  byAspect: Map<string, { path: readonly string[]; field: SlotField }[]>;
  /** Per document field, where its values come from: (aspect, index into that aspect's fragment). */
  byField: [fieldName: string, sources: { aspect: string; slot: number }[]][];
}

const slotCache = new WeakMap<EntitySpec, Slots>();

function slotsOf(registry: Registry, entity: EntitySpec): Slots {
  const cached = slotCache.get(entity);
  if (cached) return cached;
  const byAspect: Slots['byAspect'] = new Map();
  const byField: Slots['byField'] = [];
  for (const [fieldName, fields] of searchableFields(registry, entity)) {
    const sources = fields.map(({ aspect, field }) => {
      let list = byAspect.get(aspect);
      if (!list) byAspect.set(aspect, (list = []));
      list.push({ path: field.path, field });
      return { aspect, slot: list.length - 1 };
    });
    byField.push([fieldName, sources]);
  }
  const slots = { byAspect, byField };
  slotCache.set(entity, slots);
  return slots;
}

/** The fragment of one aspect value of an entity of this type. */
export function aspectFragment(registry: Registry, entity: EntitySpec, aspectName: string, value: Record<string, unknown>): AspectFragment {
  const slots = slotsOf(registry, entity).byAspect.get(aspectName) ?? [];
  const values = slots.map(({ path }) => valuesAt(value, path).flatMap(flatten));
  const fragment: AspectFragment = { values };
  const paths = registry.aspects.get(aspectName)?.behaviour?.browsePaths?.(value);
  if (paths) fragment.paths = paths;
  const words = wordsOf(slots, values);
  if (words) fragment.words = words;
  return fragment;
}

/** What a fragment's values add to the word fields (see FragmentWords), by the annotations of the fields they fill. */
function wordsOf(slots: readonly { field: SlotField }[], values: unknown[][]): FragmentWords | undefined {
  const names = new Set<string>();
  const urnTokens = new Set<string>();
  const textParts = new Set<string>();
  slots.forEach(({ field }, slot) => {
    const urnField = field.fieldType === 'URN' || field.fieldType === 'URN_PARTIAL';
    const textField = field.queryByDefault && TEXT_TYPES.has(field.fieldType);
    if (!field.enableAutocomplete && !urnField && !textField) return;
    for (const v of values[slot]) {
      if (typeof v !== 'string') continue;
      // Names, not references: a URN (a dataset key's platform) would make every dataset match "urn:li:…".
      if (field.enableAutocomplete && v !== '' && !v.startsWith('urn:')) names.add(v);
      // URN values are also searchable by their id: "hive", "pii", "jdoe".
      if (urnField && v.startsWith('urn:')) for (const token of urnIdTokens(v)) urnTokens.add(token);
      // Words inside the words the field's own analysis keeps whole: "customer_email" → customer, email.
      else if (textField) for (const token of innerTokens(v)) textParts.add(token);
    }
  });
  if (names.size + urnTokens.size + textParts.size === 0) return undefined;
  const words: FragmentWords = {};
  if (names.size > 0) {
    words.names = [...names];
    words.nameParts = [...new Set(words.names.flatMap(analyze))];
  }
  if (urnTokens.size > 0) words.urnTokens = [...urnTokens];
  if (textParts.size > 0) words.textParts = [...textParts];
  return words;
}

/**
 * The search document of an entity, built from its latest aspects by the searchable annotations of schema/.
 * Fields shared by several aspects are merged; soft deletion is the `removed` flag.
 */
export function buildDocument(registry: Registry, entity: EntitySpec, urn: string, aspects: Map<string, Record<string, unknown>>): SearchDocument {
  const fragments = new Map<string, AspectFragment>();
  for (const [name, value] of aspects) fragments.set(name, aspectFragment(registry, entity, name, value));
  return documentFromFragments(registry, entity, urn, fragments);
}

/** The search document of an entity from the fragments of its latest aspects (the same document buildDocument makes). */
export function documentFromFragments(registry: Registry, entity: EntitySpec, urn: string, fragments: ReadonlyMap<string, AspectFragment>): SearchDocument {
  const doc: SearchDocument = { urn, entityType: entity.name, removed: false };
  const names = new Set<string>();
  const urnTokens = new Set<string>(urnIdTokens(urn));
  const textParts = new Set<string>();
  const nameParts = new Set<string>();
  const counts = new Map<string, number>();
  const slots = slotsOf(registry, entity);
  // In the type's aspect order, not the map's: a document rebuilt from cached fragments equals one read from Neo4j.
  for (const aspect of slots.byAspect.keys()) {
    const f = fragments.get(aspect);
    if (!f?.words) continue;
    for (const n of f.words.names ?? []) names.add(n);
    for (const p of f.words.nameParts ?? []) nameParts.add(p);
    for (const t of f.words.urnTokens ?? []) urnTokens.add(t);
    for (const t of f.words.textParts ?? []) textParts.add(t);
  }
  for (const [fieldName, sources] of slots.byField) {
    // A Set keeps first-seen order and drops repeats as includes() did, without its quadratic cost on wide schemas;
    // made only for a field that has values (most of an entity type's fields have none).
    let values: Set<unknown> | undefined;
    for (const { aspect, slot } of sources) {
      const slotValues = fragments.get(aspect)?.values[slot];
      if (!slotValues || slotValues.length === 0) continue;
      values ??= new Set<unknown>();
      for (const v of slotValues) values.add(v);
    }
    if (!values) continue;
    counts.set(fieldName, values.size);
    if (fieldName === 'removed') doc.removed = values.has(true);
    else doc[fieldName] = values.size === 1 ? values.values().next().value : [...values];
  }
  for (const { fieldName, hasValues, numValues } of companionFields(registry, entity)) {
    const n = counts.get(fieldName) ?? 0;
    if (hasValues) doc[hasValues] = doc[hasValues] === true || n > 0;
    if (numValues) doc[numValues] = Math.max(Number(doc[numValues] ?? 0), n);
  }
  // An entity is listed in the folder each browse path names (browseListing), and counted in the group of every
  // ancestor of it.
  const parsedUrn = tryParseUrn(urn);
  const listings = [...fragments.values()]
    .flatMap((f) => f.paths ?? [])
    .filter((p): p is string => typeof p === 'string')
    .map((p) => (parsedUrn ? browseListing(parsedUrn, p) : { folder: normalizeBrowsePath(p), name: null }));
  const paths = [...new Set(listings.map((l) => l.folder))];
  doc.browsePaths = paths;
  doc.browsePathPrefixes = [...new Set(paths.flatMap(withAncestors))];
  const browseName = listings.find((l) => l.name !== null)?.name;
  if (browseName) doc.browseName = browseName;
  doc.urnTokens = [...urnTokens];
  // The names whole, their dotted/slashed segments ("orders_2024") and the finest parts ("orders", "2024", "Kafka").
  doc.nameParts = [...nameParts];
  doc.textParts = [...textParts];
  doc.autocomplete = [...names];
  doc.nameExact = [...new Set([...names].map((n) => n.toLowerCase()))];
  return doc;
}
