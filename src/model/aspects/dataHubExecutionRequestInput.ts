import type { AspectBehaviour } from './behaviour';

/** What an execution of a task (an ingestion source's run) was asked for, by whom and when. */
export const dataHubExecutionRequestInput: AspectBehaviour = { name: 'dataHubExecutionRequestInput' };
