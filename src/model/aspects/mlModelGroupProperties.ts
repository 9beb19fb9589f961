import type { AspectBehaviour } from './behaviour';

export const mlModelGroupProperties: AspectBehaviour = { name: 'mlModelGroupProperties', entityProperties: { nameField: 'name' } };
