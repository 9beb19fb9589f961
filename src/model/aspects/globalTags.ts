import { tagEvents } from '../../services/history/change-events';
import type { AspectBehaviour } from './behaviour';

export const globalTags: AspectBehaviour = {
  name: 'globalTags',
  patch: { arrayKeys: { tags: ['tag'] }, initial: () => ({ tags: [] }) },
  timeline: { categories: { dataset: ['TAG'], dataProduct: ['TAG'] }, changes: (base, target, urn) => tagEvents(base, target, urn) },
};
