import type { AspectBehaviour } from './behaviour';

export const mlModelProperties: AspectBehaviour = { name: 'mlModelProperties', entityProperties: { nameField: 'name' } };
