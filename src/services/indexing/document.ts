import { valuesAt, type EntitySpec, type Registry } from '../../model/registry';
import { browseListing, normalizeBrowsePath } from '../../model/browse-paths';
import { tryParseUrn } from '../../model/urn';
import { defaultPlatform } from '../../model/default-platform';
import { dataPlatformInstance } from '../../model/aspects';
import { companionFields, searchableFields } from '../../stores/search/mappings';
import { analyze, innerTokens, urnIdTokens } from '../search/text-analysis';

export type SearchDocument = Record<string, unknown>;

/**
 * What one aspect value contributes to its entity's search document: the values at each of its searchable fields (in
 * the order of `aspectSlots`), and its browse paths. Much smaller than the aspect, so the indexer can keep the latest
 * fragments of an entity and rebuild its document after a write without reading the entity back.
 */
export interface AspectFragment {
  /** Per slot, its values, each once, in the order first seen. */
  values: unknown[][];
  paths?: string[];
  /** The keys and values it gives its aspect's search object field (AspectBehaviour.searchObject), when any. */
  object?: Record<string, (string | number)[]>;
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

interface Slots {
  /** Per aspect, the searchable fields it feeds, in document order: a fragment's `values` follow this order. */
  byAspect: Map<string, { path: readonly string[] }[]>;
  /** Per document field, where its values come from: (aspect, index into that aspect's fragment). */
  byField: [fieldName: string, sources: { aspect: string; slot: number; field: { enableAutocomplete?: boolean; fieldType: string; queryByDefault?: boolean } }[]][];
}

const slotCache = new WeakMap<EntitySpec, Slots>();

function slotsOf(registry: Registry, entity: EntitySpec): Slots {
  const cached = slotCache.get(entity);
  if (cached) return cached;
  const byAspect = new Map<string, { path: readonly string[] }[]>();
  const byField: Slots['byField'] = [];
  for (const [fieldName, fields] of searchableFields(registry, entity)) {
    const sources = fields.map(({ aspect, field }) => {
      let list = byAspect.get(aspect);
      if (!list) byAspect.set(aspect, (list = []));
      list.push({ path: field.path });
      return { aspect, slot: list.length - 1, field };
    });
    byField.push([fieldName, sources]);
  }
  const slots = { byAspect, byField };
  slotCache.set(entity, slots);
  return slots;
}

/** The fragment of one aspect value of an entity of this type. */
export function aspectFragment(registry: Registry, entity: EntitySpec, aspectName: string, value: Record<string, unknown>): AspectFragment {
  const values = (slotsOf(registry, entity).byAspect.get(aspectName) ?? []).map(({ path }) => {
    const found = valuesAt(value, path).flatMap(flatten);
    return found.length > 1 ? [...new Set(found)] : found;
  });
  const fragment: AspectFragment = { values };
  const behaviour = registry.aspects.get(aspectName)?.behaviour;
  const paths = behaviour?.browsePaths?.(value);
  if (paths) fragment.paths = paths;
  const object = behaviour?.searchObject?.entries(value);
  if (object && Object.keys(object).length > 0) fragment.object = object;
  return fragment;
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
  const counts = new Map<string, number>();
  for (const [fieldName, sources] of slotsOf(registry, entity).byField) {
    // Most fields have values from one slot at most, and a slot's values are each once already (aspectFragment): they
    // are used as they are. A Set (first-seen order, no repeats) is made only when a second slot has values too.
    let first: unknown[] | undefined;
    let merged: Set<unknown> | undefined;
    for (const { aspect, slot, field } of sources) {
      const slotValues = fragments.get(aspect)?.values[slot];
      if (!slotValues || slotValues.length === 0) continue;
      if (!first) first = slotValues;
      else {
        merged ??= new Set(first);
        for (const v of slotValues) merged.add(v);
      }
      const urnField = field.fieldType === 'URN' || field.fieldType === 'URN_PARTIAL';
      const textField = field.queryByDefault && TEXT_TYPES.has(field.fieldType);
      if (!field.enableAutocomplete && !urnField && !textField) continue;
      for (const v of slotValues) {
        if (typeof v !== 'string') continue;
        // Names, not references: a URN (a dataset key's platform) would make every dataset match "urn:li:…".
        if (field.enableAutocomplete && v !== '' && !v.startsWith('urn:')) names.add(v);
        // URN values are also searchable by their id: "hive", "pii", "jdoe".
        if (urnField && v.startsWith('urn:')) {
          for (const token of urnIdTokens(v)) urnTokens.add(token);
        } else if (textField) {
          // Words inside the words the field's own analysis keeps whole: "customer_email" → customer, email.
          for (const token of innerTokens(v)) textParts.add(token);
        }
      }
    }
    const values = merged ? [...merged] : first;
    if (!values) continue;
    counts.set(fieldName, values.length);
    if (fieldName === 'removed') doc.removed = values.includes(true);
    else doc[fieldName] = values.length === 1 ? values[0] : values;
  }
  const parsedUrn = tryParseUrn(urn);
  // As DataHub's default dataPlatformInstance gives it, for types that have the aspect but no stored value of it.
  if (doc.platform === undefined && parsedUrn && entity.aspects.has(dataPlatformInstance.name)) {
    const platform = defaultPlatform(parsedUrn);
    if (platform) {
      doc.platform = platform;
      counts.set('platform', 1);
      for (const token of urnIdTokens(platform)) urnTokens.add(token);
    }
  }
  for (const { fieldName, hasValues, numValues } of companionFields(registry, entity)) {
    const n = counts.get(fieldName) ?? 0;
    if (hasValues) doc[hasValues] = doc[hasValues] === true || n > 0;
    if (numValues) doc[numValues] = Math.max(Number(doc[numValues] ?? 0), n);
  }
  for (const [aspect, { object }] of fragments) {
    const field = object && registry.aspects.get(aspect)?.behaviour?.searchObject?.field;
    if (field) doc[field] = { ...(doc[field] as object | undefined), ...object };
  }
  // An entity is listed in the folder each browse path names (browseListing), and counted in the group of every
  // ancestor of it.
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
  doc.nameParts = [...new Set([...names].flatMap(analyze))];
  doc.textParts = [...textParts];
  doc.autocomplete = [...names];
  doc.nameExact = [...new Set([...names].map((n) => n.toLowerCase()))];
  return doc;
}
