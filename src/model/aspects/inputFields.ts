import type { AspectBehaviour } from './behaviour';

/** The columns a chart or dashboard is built from (GraphQL `inputFields`). */
export const inputFields: AspectBehaviour = { name: 'inputFields' };
