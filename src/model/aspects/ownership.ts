import { unknownStamp } from './audit-stamp';
import type { AspectBehaviour } from './behaviour';

export const ownership: AspectBehaviour = {
  name: 'ownership',
  patch: { arrayKeys: { owners: ['owner', 'type'] }, initial: (ns) => ({ owners: [], lastModified: unknownStamp(ns) }) },
};
