import type { AspectBehaviour } from './behaviour';

/** An entity's sub types (GraphQL `subTypes`). */
export const subTypes: AspectBehaviour = { name: 'subTypes' };
