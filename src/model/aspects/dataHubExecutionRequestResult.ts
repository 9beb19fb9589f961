import type { AspectBehaviour } from './behaviour';

/** How an execution ended (or where it stands): status, start, duration and report. */
export const dataHubExecutionRequestResult: AspectBehaviour = { name: 'dataHubExecutionRequestResult' };
