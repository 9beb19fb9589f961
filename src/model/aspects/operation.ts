import type { AspectBehaviour } from './behaviour';

/** A time-series record of a change made to a dataset (insert, update, drop…), by a data process or the platform. */
export const operation: AspectBehaviour = { name: 'operation' };
