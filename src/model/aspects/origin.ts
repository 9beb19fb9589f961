import type { AspectBehaviour } from './behaviour';

/** Where an entity comes from: NATIVE (made in DataHub) or EXTERNAL (ingested). */
export const origin: AspectBehaviour = { name: 'origin' };
