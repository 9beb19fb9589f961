import type { AspectBehaviour } from './behaviour';

/** What an assertion checks (its type, the entity it asserts on, its logic) and where it comes from. */
export const assertionInfo: AspectBehaviour = { name: 'assertionInfo' };
