import { applicationEvents } from '../../services/history/change-events';
import type { AspectBehaviour } from './behaviour';

export const applications: AspectBehaviour = {
  name: 'applications',
  timeline: {
    categories: { dataset: ['APPLICATION'], glossaryTerm: ['APPLICATION'], dataProduct: ['APPLICATION'] },
    changes: (base, target, urn) => applicationEvents(base, target, urn),
  },
};
