import { unknownStamp } from './audit-stamp';
import type { AspectBehaviour } from './behaviour';

export const glossaryTerms: AspectBehaviour = {
  name: 'glossaryTerms',
  patch: { arrayKeys: { terms: ['urn'] }, initial: (ns) => ({ terms: [], auditStamp: unknownStamp(ns) }) },
};
