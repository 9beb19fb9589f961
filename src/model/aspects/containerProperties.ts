import type { AspectBehaviour } from './behaviour';

export const containerProperties: AspectBehaviour = { name: 'containerProperties', entityProperties: { nameField: 'name' } };
