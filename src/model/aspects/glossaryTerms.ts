import { termEvents } from '../../services/history/change-events';
import { unknownStamp } from './audit-stamp';
import type { AspectBehaviour } from './behaviour';

export const glossaryTerms: AspectBehaviour = {
  name: 'glossaryTerms',
  patch: { arrayKeys: { terms: ['urn'] }, initial: (ns) => ({ terms: [], auditStamp: unknownStamp(ns) }) },
  timeline: { categories: { dataset: ['GLOSSARY_TERM'], dataProduct: ['GLOSSARY_TERM'] }, changes: (base, target, urn) => termEvents(base, target, urn) },
};
