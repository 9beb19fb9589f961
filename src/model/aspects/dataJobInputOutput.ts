import type { AspectBehaviour } from './behaviour';
import { jobColumnEdges } from './fine-grained-lineage';

export const dataJobInputOutput: AspectBehaviour = {
  name: 'dataJobInputOutput',
  patch: {
    arrayKeys: {
      inputDatasetEdges: ['destinationUrn'],
      outputDatasetEdges: ['destinationUrn'],
      inputDatajobEdges: ['destinationUrn'],
      inputDatasets: [],
      outputDatasets: [],
      inputDatajobs: [],
      inputDatasetFields: [],
      outputDatasetFields: [],
    },
    initial: () => ({ inputDatasets: [], outputDatasets: [] }),
    fineGrainedLineages: true,
  },
  columnEdges: jobColumnEdges,
};
