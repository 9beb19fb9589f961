import type { AspectBehaviour } from './behaviour';

/** Written by the deprecation service (GraphQL updateDeprecation / batchUpdateDeprecation). */
export const deprecation: AspectBehaviour = { name: 'deprecation' };
