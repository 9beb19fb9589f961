import type { AspectBehaviour } from './behaviour';

/** Time-series usage events, aggregated by the usage service (usageStats queries). */
export const datasetUsageStatistics: AspectBehaviour = { name: 'datasetUsageStatistics' };
