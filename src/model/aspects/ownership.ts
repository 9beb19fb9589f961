import { ownershipEvents } from '../../services/history/change-events';
import { unknownStamp } from './audit-stamp';
import type { AspectBehaviour } from './behaviour';

export const ownership: AspectBehaviour = {
  name: 'ownership',
  patch: { arrayKeys: { owners: ['owner', 'type'] }, initial: (ns) => ({ owners: [], lastModified: unknownStamp(ns) }) },
  timeline: {
    categories: { dataset: ['OWNERSHIP'], glossaryTerm: ['OWNERSHIP'], domain: ['OWNERSHIP'], dataProduct: ['OWNERSHIP'] },
    changes: (base, target, urn) => ownershipEvents(base, target, urn),
  },
};
