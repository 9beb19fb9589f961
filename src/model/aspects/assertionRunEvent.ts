import type { AspectBehaviour } from './behaviour';

/** A time-series record of one evaluation of an assertion and its result. */
export const assertionRunEvent: AspectBehaviour = { name: 'assertionRunEvent' };
