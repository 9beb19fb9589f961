import type { AspectBehaviour } from './behaviour';

export const dataFlowInfo: AspectBehaviour = {
  name: 'dataFlowInfo',
  entityProperties: { nameField: 'name' },
  patch: { arrayKeys: {} },
};
