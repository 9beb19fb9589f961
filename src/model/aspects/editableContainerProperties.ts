import type { AspectBehaviour } from './behaviour';

/** A container's description as edited in DataHub (the ingested one stays in containerProperties). */
export const editableContainerProperties: AspectBehaviour = { name: 'editableContainerProperties' };
