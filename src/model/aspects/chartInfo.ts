import { unknownStamp } from './audit-stamp';
import type { AspectBehaviour } from './behaviour';

export const chartInfo: AspectBehaviour = {
  name: 'chartInfo',
  entityProperties: { nameField: 'title' },
  patch: {
    arrayKeys: { inputEdges: ['destinationUrn'], inputs: [] },
    initial: (ns) => ({ title: '', description: '', lastModified: { created: unknownStamp(ns), lastModified: unknownStamp(ns) } }),
  },
};
