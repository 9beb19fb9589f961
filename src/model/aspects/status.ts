import type { AspectBehaviour } from './behaviour';

/** Soft deletion: an entity whose status says `removed: true` is hidden from reads that do not ask for it. */
export const status: AspectBehaviour = { name: 'status' };
