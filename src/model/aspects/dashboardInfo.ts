import { unknownStamp } from './audit-stamp';
import type { AspectBehaviour } from './behaviour';

export const dashboardInfo: AspectBehaviour = {
  name: 'dashboardInfo',
  entityProperties: { nameField: 'title' },
  patch: {
    arrayKeys: { datasetEdges: ['destinationUrn'], chartEdges: ['destinationUrn'], dashboards: ['destinationUrn'], charts: [], datasets: [] },
    initial: (ns) => ({ title: '', description: '', lastModified: { created: unknownStamp(ns), lastModified: unknownStamp(ns) } }),
  },
};
