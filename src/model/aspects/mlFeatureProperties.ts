import type { AspectBehaviour } from './behaviour';

/** Its entity's name is in the urn (mlFeatureKey): the properties have none. */
export const mlFeatureProperties: AspectBehaviour = { name: 'mlFeatureProperties', entityProperties: {} };
