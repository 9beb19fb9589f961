import type { AspectBehaviour } from './behaviour';

/** A run's name and `created` (when it started in the source system): a job's runs are listed newest first by it. */
export const dataProcessInstanceProperties: AspectBehaviour = { name: 'dataProcessInstanceProperties', entityProperties: { nameField: 'name' } };
