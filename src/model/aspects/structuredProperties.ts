import { structuredPropertyEvents } from '../../services/history/change-events';
import type { AspectBehaviour } from './behaviour';

export const structuredProperties: AspectBehaviour = {
  name: 'structuredProperties',
  timeline: {
    categories: { dataset: ['STRUCTURED_PROPERTY'], glossaryTerm: ['STRUCTURED_PROPERTY'], domain: ['STRUCTURED_PROPERTY'], dataProduct: ['STRUCTURED_PROPERTY'] },
    changes: (base, target, urn) => structuredPropertyEvents(base, target, urn),
  },
};
