import { propertyDefinition, structuredProperties } from '../model/aspects';
import { ValidationError } from '../model/errors';
import type { WriteItem } from './write-path/plan';

type Json = Record<string, unknown>;
type Value = { string?: unknown; double?: unknown };

/** The latest propertyDefinition of each structured property urn asked for (absent: none stored). */
export type PropertyDefinitions = (urns: string[]) => Promise<Map<string, Json>>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** The aspect the checks read. */
export const DEFINITION_ASPECT = propertyDefinition.name;

function shown(value: Value): string {
  return value.double !== undefined ? `{double=${String(value.double)}}` : `{string=${String(value.string)}}`;
}

/**
 * Problems with an entity's structured property values against their definitions, as DataHub's
 * StructuredPropertiesValidator finds them: the property is defined, applies to the entity's type, the values are of
 * its value type (a `number` a double; `string`, `rich_text`, `urn` and `date` (yyyy-MM-dd) a string), a SINGLE
 * property has one value, and each value is one of the allowed values when the definition lists them.
 */
export function structuredPropertyProblems(entityType: string, value: Json, definitions: ReadonlyMap<string, Json>, namespace: string): string[] {
  const problems: string[] = [];
  for (const assignment of (value.properties as { propertyUrn: string; values?: Value[] }[] | undefined) ?? []) {
    const urn = assignment.propertyUrn;
    const definition = definitions.get(urn);
    if (!definition) {
      problems.push(`Structured property ${urn} does not exist`);
      continue;
    }
    const entityTypes = (definition.entityTypes as string[] | undefined) ?? [];
    const typeUrn = `urn:${namespace}:entityType:datahub.${entityType}`;
    if (entityTypes.length > 0 && !entityTypes.includes(typeUrn)) problems.push(`Structured property ${urn} is not defined for entity type ${entityType} (its entityTypes: ${entityTypes.join(', ')})`);
    const values = assignment.values ?? [];
    if (definition.cardinality !== 'MULTIPLE' && values.length > 1) problems.push(`Structured property ${urn} has cardinality SINGLE: ${values.length} values given`);
    const valueType = String(definition.valueType ?? '').split('.').pop();
    for (const v of values) {
      if (valueType === 'number' ? typeof v.double !== 'number' : typeof v.string !== 'string') problems.push(`Structured property ${urn}: value ${shown(v)} is not of type ${valueType}`);
      else if (valueType === 'date' && !DATE.test(v.string as string)) problems.push(`Structured property ${urn}: value ${shown(v)} is not a date (yyyy-MM-dd)`);
    }
    const allowed = ((definition.allowedValues as { value: Value }[] | undefined) ?? []).map((a) => a.value);
    if (allowed.length > 0) {
      for (const v of values) {
        if (!allowed.some((a) => a.string === v.string && a.double === v.double)) problems.push(`Structured property ${urn}: value: ${shown(v)} should be one of [${allowed.map(shown).join(', ')}]`);
      }
    }
  }
  return problems;
}

/**
 * Checks the structuredProperties values a request writes against their properties' definitions, read before the
 * write: a bad value refuses the whole request (422) and nothing is written. Values computed by a patch inside the
 * transaction are not checked.
 */
export class StructuredPropertyChecks {
  constructor(
    private readonly definitions: PropertyDefinitions,
    private readonly namespace: string,
  ) {}

  async check(items: WriteItem[]): Promise<void> {
    const written = items.flatMap((i) => (i.kind === 'upsert' && i.name === structuredProperties.name && i.projected?.parsed ? [{ entityType: i.entityType, value: i.projected.parsed }] : []));
    if (written.length === 0) return;
    const urns = [...new Set(written.flatMap(({ value }) => ((value.properties as { propertyUrn: string }[] | undefined) ?? []).map((p) => p.propertyUrn)))];
    const definitions = urns.length > 0 ? await this.definitions(urns) : new Map<string, Json>();
    // A definition written in the same request counts as it will be stored (a batch may define and use a property).
    for (const i of items) {
      const written = i.kind === 'upsert' && i.name === DEFINITION_ASPECT ? (i.projected?.parsed ?? i.proposed) : undefined;
      if (written) definitions.set(i.urn, written);
    }
    const problems = written.flatMap(({ entityType, value }) => structuredPropertyProblems(entityType, value, definitions, this.namespace));
    if (problems.length > 0) throw new ValidationError(problems.join('; '), problems.map((message) => ({ path: '/properties', message })));
  }
}
