import type { AspectBehaviour } from './behaviour';

/** A user's groups (an IsMemberOf… edge to each). */
export const nativeGroupMembership: AspectBehaviour = { name: 'nativeGroupMembership' };
