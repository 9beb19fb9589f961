import type { AspectBehaviour } from './behaviour';

export const domainProperties: AspectBehaviour = { name: 'domainProperties', entityProperties: { nameField: 'name' } };
