import { ValidationError } from '../errors';
import type { AspectBehaviour } from './behaviour';

type Json = Record<string, unknown>;

const allowedKey = (a: unknown) => JSON.stringify((a as { value?: unknown }).value ?? null);

/**
 * What a new definition of a structured property may not change of the stored one, as DataHub's
 * PropertyDefinitionValidator refuses it: values already assigned would no longer fit it.
 */
function checkEvolution(proposed: Json, previous: Json | null): Json {
  if (!previous) return proposed;
  const refuse = (message: string, path: string) => {
    throw new ValidationError(`Invalid propertyDefinition change: ${message}`, [{ path, message }]);
  };
  if (proposed.qualifiedName !== previous.qualifiedName) refuse(`the qualified name cannot change (${String(previous.qualifiedName)})`, '/qualifiedName');
  if (proposed.valueType !== previous.valueType) refuse(`the value type cannot change (${String(previous.valueType)})`, '/valueType');
  if (previous.cardinality === 'MULTIPLE' && proposed.cardinality !== 'MULTIPLE') refuse('the cardinality cannot change from MULTIPLE to SINGLE', '/cardinality');
  const before = (previous.allowedValues as unknown[] | undefined) ?? [];
  const after = new Set(((proposed.allowedValues as unknown[] | undefined) ?? []).map(allowedKey));
  // No list allows any value: a list where there was none, or one without a value allowed before, restricts them.
  if (after.size > 0 && (before.length === 0 || before.some((a) => !after.has(allowedKey(a))))) refuse('values allowed before cannot be disallowed', '/allowedValues');
  return proposed;
}

/** A structured property's definition: entity types and platforms patched one by one (StructuredPropertyPatchBuilder). */
export const propertyDefinition: AspectBehaviour = {
  name: 'propertyDefinition',
  patch: {
    arrayKeys: { entityTypes: [], allowedPlatforms: [] },
    initial: (ns) => ({ qualifiedName: '', valueType: `urn:${ns}:dataType:datahub.string`, entityTypes: [] }),
  },
  mutate: checkEvolution,
};
