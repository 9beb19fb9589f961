import type { AspectBehaviour } from './behaviour';

export const dataFlowInfo: AspectBehaviour = {
  name: 'dataFlowInfo',
  patch: { arrayKeys: {} },
};
