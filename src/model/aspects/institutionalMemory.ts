import { institutionalMemoryEvents } from '../../services/history/change-events';
import type { AspectBehaviour } from './behaviour';

export const institutionalMemory: AspectBehaviour = {
  name: 'institutionalMemory',
  patch: { arrayKeys: { elements: ['url'] }, initial: () => ({ elements: [] }) },
  timeline: { categories: { dataset: ['DOCUMENTATION'] }, changes: (base, target, urn) => institutionalMemoryEvents(base, target, urn) },
};
