import type { AspectBehaviour } from './behaviour';

/** A structured property's definition: entity types and platforms patched one by one (StructuredPropertyPatchBuilder). */
export const propertyDefinition: AspectBehaviour = {
  name: 'propertyDefinition',
  patch: {
    arrayKeys: { entityTypes: [], allowedPlatforms: [] },
    initial: (ns) => ({ qualifiedName: '', valueType: `urn:${ns}:dataType:datahub.string`, entityTypes: [] }),
  },
};
