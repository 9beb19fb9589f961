import type { Logger } from 'pino';
import { InvalidInputError } from '../model/errors';
import type { SearchEngine } from '../stores/search/engine';
import type { RestoreRequest, RestoreService } from './restore';
import type { TimeseriesService, TruncateRequest } from './timeseries';

export interface TaskReference {
  task?: string;
  nodeId?: string;
  taskId?: number;
}

const HOW = `send either task ("<node_id>:<task_number>") or both nodeId and taskId`;

/**
 * `task`, or `nodeId` + `taskId`, as the engine's `<node_id>:<task_number>`. Node ids are URL-safe base64, so anything
 * else is refused here (the engine client would fail to even encode some of it).
 */
export function parseTaskReference(body: TaskReference): string {
  const hasTask = body.task !== undefined && body.task !== '';
  const hasNode = body.nodeId !== undefined && body.nodeId !== '';
  const hasId = body.taskId !== undefined;
  if (hasTask && (hasNode || hasId)) throw new InvalidInputError(`Invalid task reference: ${HOW}, not both`);
  if (hasTask) {
    if (!/^[\w-]+:\d+$/.test(body.task!)) throw new InvalidInputError(`Invalid task '${body.task}': ${HOW}`);
    return body.task!;
  }
  if (!hasNode && !hasId) throw new InvalidInputError(`Missing task reference: ${HOW}`);
  if (!hasNode || !hasId) throw new InvalidInputError(`nodeId and taskId go together: ${HOW}`);
  if (!/^[\w-]+$/.test(body.nodeId!) || !Number.isInteger(body.taskId) || body.taskId! < 0) {
    throw new InvalidInputError(`Invalid nodeId '${body.nodeId}' or taskId '${body.taskId}': ${HOW}`);
  }
  return `${body.nodeId}:${body.taskId}`;
}

/** The administrative operations on the search store. Answers are JSON strings, as the interface has them. */
export class OperationsService {
  constructor(
    private readonly engine: SearchEngine,
    private readonly timeseries: TimeseriesService,
    private readonly restorer: RestoreService,
    private readonly logger: Logger,
  ) {}

  async taskStatus(reference: TaskReference): Promise<string> {
    const id = parseTaskReference(reference);
    const task = await this.engine.getTask(id);
    if (!task) return JSON.stringify({ error: `Could not get task status for ${id}` });
    if (task.completed) {
      // A completed truncation copy is finished here, so a caller that saw `completed` reads the truncated rows.
      await this.timeseries.finishTruncations().catch((err) => this.logger.warn({ err: (err as Error).message }, 'could not finish time-series truncations'));
    }
    return JSON.stringify({ completed: task.completed, taskId: `${task.node}:${task.id}`, runTimeNanos: task.runningTimeNanos, status: task.status });
  }

  truncateTimeseriesAspect(request: TruncateRequest): Promise<string> {
    return this.timeseries.truncate(request);
  }

  async indexSizes(): Promise<string> {
    return JSON.stringify({ indexSizes: await this.timeseries.indexSizes() });
  }

  async restoreIndices(request: RestoreRequest): Promise<string> {
    return JSON.stringify(await this.restorer.restore(request));
  }
}
