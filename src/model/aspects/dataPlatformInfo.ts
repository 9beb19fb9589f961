import type { AspectBehaviour } from './behaviour';

export const dataPlatformInfo: AspectBehaviour = { name: 'dataPlatformInfo', entityProperties: { nameField: 'name' } };
