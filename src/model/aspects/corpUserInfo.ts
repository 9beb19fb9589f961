import type { AspectBehaviour } from './behaviour';

export const corpUserInfo: AspectBehaviour = { name: 'corpUserInfo', entityProperties: { nameField: 'displayName' } };
