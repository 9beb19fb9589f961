import { deprecationEvents } from '../../services/history/change-events';
import type { AspectBehaviour } from './behaviour';

/** Written by the deprecation service (GraphQL updateDeprecation / batchUpdateDeprecation). */
export const deprecation: AspectBehaviour = {
  name: 'deprecation',
  timeline: { categories: { dataset: ['DEPRECATION'], glossaryTerm: ['DEPRECATION'] }, changes: (base, target, urn) => deprecationEvents(base, target, urn) },
};
