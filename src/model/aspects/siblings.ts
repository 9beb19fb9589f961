import type { AspectBehaviour } from './behaviour';

/** An entity's siblings, added and removed one by one (HasSiblingsPatch). */
export const siblings: AspectBehaviour = {
  name: 'siblings',
  patch: { arrayKeys: { siblings: [] }, initial: () => ({ siblings: [], primary: false }) },
};
