import type { AspectBehaviour } from './behaviour';

/** Its entity's name is in the urn (mlFeatureTableKey): the properties have none. */
export const mlFeatureTableProperties: AspectBehaviour = { name: 'mlFeatureTableProperties', entityProperties: {} };
