import { catalogOf, parseTestDefinition, TestDefinitionError, type DefinitionCatalog } from '../../services/metadata-tests/definition';
import { ValidationError } from '../errors';
import type { Registry } from '../registry';
import type { AspectBehaviour } from './behaviour';

const catalogs = new WeakMap<Registry, DefinitionCatalog>();

/** The definition is checked against the registry's entity types and their versioned aspects. */
function catalogFor(registry: Registry): DefinitionCatalog {
  let catalog = catalogs.get(registry);
  if (!catalog) {
    catalog = catalogOf(registry.entities.values(), (aspect) => registry.aspects.get(aspect)?.timeseries ?? false);
    catalogs.set(registry, catalog);
  }
  return catalog;
}

export const testInfo: AspectBehaviour = {
  name: 'testInfo',
  /** A definition that does not parse is a 422 naming the problem. */
  validate(value, registry) {
    const json = (value.definition as { json?: unknown } | undefined)?.json;
    try {
      parseTestDefinition(json, catalogFor(registry));
    } catch (err) {
      if (err instanceof TestDefinitionError) {
        throw new ValidationError(`Invalid testInfo: /definition/json ${err.message}`, [{ path: '/definition/json', message: err.message }]);
      }
      throw err;
    }
  },
};
