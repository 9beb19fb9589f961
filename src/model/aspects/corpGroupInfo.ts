import type { AspectBehaviour } from './behaviour';

export const corpGroupInfo: AspectBehaviour = { name: 'corpGroupInfo', entityProperties: { nameField: 'displayName' } };
