import { domainEvents } from '../../services/history/change-events';
import type { AspectBehaviour } from './behaviour';

/** An entity's domains (GraphQL `domain` shows the first). */
export const domains: AspectBehaviour = {
  name: 'domains',
  patch: { arrayKeys: { domains: [] }, initial: () => ({ domains: [] }) },
  timeline: {
    categories: { dataset: ['DOMAIN'], glossaryTerm: ['DOMAIN'], dataProduct: ['DOMAIN'] },
    changes: (base, target, urn) => domainEvents(base, target, urn),
  },
};
