import type { AspectBehaviour } from './behaviour';

export const dataJobInfo: AspectBehaviour = { name: 'dataJobInfo', entityProperties: { nameField: 'name' } };
