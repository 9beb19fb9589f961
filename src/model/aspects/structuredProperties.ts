import { structuredPropertyEvents } from '../../services/history/change-events';
import { tryParseUrn } from '../urn';
import type { AspectBehaviour } from './behaviour';

interface Assignment {
  propertyUrn?: string;
  values?: { string?: string; double?: number }[];
}

/**
 * A property's search document field under `structuredProperties`, as DataHub names the unversioned one: its qualified
 * name (the urn's id) with dots as underscores, since a dot would nest it.
 */
export function structuredPropertyFieldKey(qualifiedName: string): string {
  return qualifiedName.replace(/\./g, '_');
}

const FIELD = 'structuredProperties';

/**
 * The indexed field a search filter or facet names for a structured property, as DataHub's clients name it:
 * `structuredProperties.<qualified name>` or `structuredProperties.<field key>`, either with `.keyword` or `.delimited`
 * after it (DataHub's StructuredPropertyUtils.fieldOrFacetToFQN). Null for any other field.
 */
export function structuredPropertyIndexField(field: string): string | null {
  if (!field.startsWith(`${FIELD}.`)) return null;
  const name = field.slice(FIELD.length + 1).replace(/\.(keyword|delimited)$/, '');
  return name === '' ? null : `${FIELD}.${structuredPropertyFieldKey(name)}`;
}

export const structuredProperties: AspectBehaviour = {
  name: 'structuredProperties',
  searchObject: {
    field: FIELD,
    entries: (value) => {
      const entries: Record<string, (string | number)[]> = {};
      for (const a of (value.properties as Assignment[] | undefined) ?? []) {
        const id = a.propertyUrn ? tryParseUrn(a.propertyUrn)?.id : undefined;
        if (!id) continue;
        const values = (a.values ?? []).map((v) => v.string ?? v.double).filter((v): v is string | number => v !== undefined);
        if (values.length > 0) entries[structuredPropertyFieldKey(id)] = values;
      }
      return entries;
    },
  },
  timeline: {
    categories: { dataset: ['STRUCTURED_PROPERTY'], glossaryTerm: ['STRUCTURED_PROPERTY'], domain: ['STRUCTURED_PROPERTY'], dataProduct: ['STRUCTURED_PROPERTY'] },
    changes: (base, target, urn) => structuredPropertyEvents(base, target, urn),
  },
};
