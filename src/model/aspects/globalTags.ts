import type { AspectBehaviour } from './behaviour';

export const globalTags: AspectBehaviour = {
  name: 'globalTags',
  patch: { arrayKeys: { tags: ['tag'] }, initial: () => ({ tags: [] }) },
};
