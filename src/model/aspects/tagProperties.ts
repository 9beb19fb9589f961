import type { AspectBehaviour } from './behaviour';

export const tagProperties: AspectBehaviour = { name: 'tagProperties', entityProperties: { nameField: 'name' } };
