import type { AspectBehaviour } from './behaviour';

/** Its entity's name is in the urn (mlPrimaryKeyKey): the properties have none. */
export const mlPrimaryKeyProperties: AspectBehaviour = { name: 'mlPrimaryKeyProperties', entityProperties: {} };
