import type { AspectBehaviour } from './behaviour';

export const datasetProperties: AspectBehaviour = {
  name: 'datasetProperties',
  patch: { initial: () => ({ customProperties: {} }) },
};
