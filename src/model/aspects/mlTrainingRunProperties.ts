import type { AspectBehaviour } from './behaviour';

/** A training run's id, metrics, hyper-parameters and outputs (GraphQL `DataProcessInstance.mlTrainingRunProperties`). */
export const mlTrainingRunProperties: AspectBehaviour = { name: 'mlTrainingRunProperties' };
