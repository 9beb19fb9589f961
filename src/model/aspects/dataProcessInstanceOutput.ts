import type { AspectBehaviour } from './behaviour';

/** A run's outputs, patched as DataHub's DataProcessInstanceOutputTemplate keys them: urns by themselves, edges by destination. */
export const dataProcessInstanceOutput: AspectBehaviour = {
  name: 'dataProcessInstanceOutput',
  patch: {
    arrayKeys: { outputs: [], outputEdges: ['destinationUrn'] },
    initial: () => ({ outputs: [], outputEdges: [] }),
  },
};
