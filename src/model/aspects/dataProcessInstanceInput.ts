import type { AspectBehaviour } from './behaviour';

/** A run's inputs, patched as DataHub's DataProcessInstanceInputTemplate keys them: urns by themselves, edges by destination. */
export const dataProcessInstanceInput: AspectBehaviour = {
  name: 'dataProcessInstanceInput',
  patch: {
    arrayKeys: { inputs: [], inputEdges: ['destinationUrn'] },
    initial: () => ({ inputs: [], inputEdges: [] }),
  },
};
