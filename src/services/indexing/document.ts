import { valuesAt, type EntitySpec, type Registry } from '../../model/registry';
import { tryParseUrn } from '../../model/urn';
import { companionFields, searchableFields } from '../../stores/search/mappings';

export type SearchDocument = Record<string, unknown>;

function ancestors(path: string): string[] {
  const segments = path.split('/').filter(Boolean);
  const out = ['/'];
  for (let i = 1; i < segments.length; i++) out.push('/' + segments.slice(0, i).join('/'));
  return out;
}

function flatten(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap(flatten);
  if (typeof value === 'object') return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}=${String(v)}`);
  return [value];
}

/**
 * The search document of an entity, built from its latest aspects by the searchable annotations of schema/.
 * Fields shared by several aspects are merged; soft deletion is the `removed` flag.
 */
export function buildDocument(registry: Registry, entity: EntitySpec, urn: string, aspects: Map<string, Record<string, unknown>>): SearchDocument {
  const doc: SearchDocument = { urn, entityType: entity.name, removed: false };
  const names = new Set<string>();
  const urnTokens = new Set<string>();
  const counts = new Map<string, number>();
  for (const [fieldName, fields] of searchableFields(registry, entity)) {
    // A Set keeps first-seen order and drops repeats as includes() did, without its quadratic cost on wide schemas.
    const values = new Set<unknown>();
    for (const { aspect, field } of fields) {
      const value = aspects.get(aspect);
      if (!value) continue;
      for (const v of valuesAt(value, field.path).flatMap(flatten)) {
        values.add(v);
        // Names, not references: a URN (a dataset key's platform) would make every dataset match "urn:li:…".
        if (field.enableAutocomplete && typeof v === 'string' && v !== '' && !v.startsWith('urn:')) names.add(v);
        // URN values are also searchable by their id: "hive", "pii", "jdoe".
        if ((field.fieldType === 'URN' || field.fieldType === 'URN_PARTIAL') && typeof v === 'string' && v.startsWith('urn:')) {
          const id = tryParseUrn(v)?.parts.map((p) => (p.startsWith('urn:') ? (tryParseUrn(p)?.id ?? p) : p));
          for (const part of id ?? []) urnTokens.add(part);
        }
      }
    }
    counts.set(fieldName, values.size);
    if (values.size === 0) continue;
    if (fieldName === 'removed') doc.removed = values.has(true);
    else doc[fieldName] = values.size === 1 ? values.values().next().value : [...values];
  }
  for (const { fieldName, hasValues, numValues } of companionFields(registry, entity)) {
    const n = counts.get(fieldName) ?? 0;
    if (hasValues) doc[hasValues] = doc[hasValues] === true || n > 0;
    if (numValues) doc[numValues] = Math.max(Number(doc[numValues] ?? 0), n);
  }
  const paths = (aspects.get('browsePaths')?.paths as string[] | undefined) ?? [];
  doc.browsePaths = paths;
  doc.browsePathPrefixes = [...new Set(paths.flatMap(ancestors))];
  doc.browsePathParents = [...new Set(paths.map((p) => ancestors(p).pop()!))];
  doc.urnTokens = [...urnTokens];
  // Both the dotted/slashed segments ("orders_2024") and the finest parts ("orders", "2024").
  doc.nameParts = [...new Set([...names].flatMap((n) => [...n.split(/[./:\s]+/u), ...n.split(/[^\p{L}\p{N}]+/u)]).filter((p) => p !== ''))];
  doc.autocomplete = [...names];
  doc.nameExact = [...new Set([...names].map((n) => n.toLowerCase()))];
  return doc;
}
