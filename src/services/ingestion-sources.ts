import { randomUUID } from 'node:crypto';
import { CronExpressionParser } from 'cron-parser';
import { requireScope, type Principal } from '../auth';
import { dataHubExecutionRequestInput, dataHubExecutionRequestResult, dataHubIngestionSourceInfo } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { EntityReads } from './entity-reads';
import type { IngestionService } from './ingestion';
import type { AcrossEntitiesSearch } from './search/across-entities';
import { parseFilter, type Filter } from './search/query-builder';

const SOURCE_ENTITY_TYPE = 'dataHubIngestionSource';
const EXECUTION_ENTITY_TYPE = 'dataHubExecutionRequest';
/** Search fields of an execution request (DataHub's names): its ingestion source, and when it was asked for. */
const EXECUTION_SOURCE_FIELD = 'ingestionSource';
const EXECUTION_REQUESTED_FIELD = 'requestTimeMs';
/** DataHub's executor when none is named. */
const DEFAULT_EXECUTOR_ID = 'default';

export interface IngestionSourceInput {
  name: string;
  type: string;
  schedule?: { interval: string; timezone: string } | null;
  config: { recipe: string; version?: string | null; executorId?: string | null; debugMode?: boolean | null; extraArgs?: { key: string; value?: string | null }[] | null };
}

export interface IngestionSourceView {
  urn: string;
  info: Record<string, unknown>;
}

export interface ExecutionRequestView {
  urn: string;
  input: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
}

/**
 * Ingestion sources as DataHub's GraphQL keeps them (`datahub ingest deploy`, `datahub ingest list-source-runs`, the
 * UI's sources page): a `dataHubIngestionSource` entity holding the recipe, its schedule and executor, and the
 * execution requests that name it. This service runs no executor: a deployed source is stored, listed and deleted here,
 * and its executions are whatever an executor (DataHub's actions framework) records.
 */
export class IngestionSources {
  constructor(
    private readonly registry: Registry,
    private readonly search: AcrossEntitiesSearch,
    private readonly reads: EntityReads,
    private readonly ingestion: IngestionService,
  ) {}

  /** Creates or replaces a source (a new urn when none is given) and returns its urn. */
  async upsert(rawUrn: string | null, input: IngestionSourceInput, principal: Principal): Promise<string> {
    requireScope(principal, 'admin');
    const urn = this.sourceUrn(rawUrn ?? `urn:${this.registry.urnNamespace}:${SOURCE_ENTITY_TYPE}:${randomUUID()}`, 'urn');
    const info = sourceInfo(input);
    await this.ingestion.transformAspects([{ urn, aspectName: dataHubIngestionSourceInfo.name, transform: () => info }], principal);
    return urn;
  }

  /** Deletes a source (its executions stay, as in DataHub) and returns its urn. */
  async delete(rawUrn: string, principal: Principal): Promise<string> {
    requireScope(principal, 'admin');
    const urn = this.sourceUrn(rawUrn, 'urn');
    await this.ingestion.delete({ urn });
    return urn;
  }

  async get(rawUrn: string, principal: Principal): Promise<IngestionSourceView | null> {
    requireScope(principal, 'admin');
    const urn = this.sourceUrn(rawUrn, 'urn');
    const info = (await this.reads.aspectsOfMany([urn], [dataHubIngestionSourceInfo.name])).get(urn)?.get(dataHubIngestionSourceInfo.name);
    return info ? { urn, info } : null;
  }

  /** A page of sources matching a query and filters, in the search's order. */
  async list(request: { start: number; count: number; query: string; filter: Filter }, principal: Principal) {
    requireScope(principal, 'admin');
    const { total, urns } = await this.search.urnPage({ type: SOURCE_ENTITY_TYPE, input: request.query, filter: request.filter, start: request.start, count: request.count });
    const infos = await this.reads.aspectsOfMany(urns, [dataHubIngestionSourceInfo.name]);
    const sources = urns.flatMap((urn) => {
      const info = infos.get(urn)?.get(dataHubIngestionSourceInfo.name);
      return info ? [{ urn, info }] : [];
    });
    return { start: request.start, count: sources.length, total, sources };
  }

  /** A source's execution requests, newest first by when they were asked for. */
  async executions(sourceUrn: string, start: number, count: number) {
    const { total, urns } = await this.search.urnPage({
      type: EXECUTION_ENTITY_TYPE,
      filter: parseFilter({ or: [{ and: [{ field: EXECUTION_SOURCE_FIELD, values: [sourceUrn], condition: 'EQUAL' }] }] }),
      sort: [{ field: EXECUTION_REQUESTED_FIELD, order: 'DESCENDING' }],
      start,
      count,
    });
    const aspects = await this.reads.aspectsOfMany(urns, [dataHubExecutionRequestInput.name, dataHubExecutionRequestResult.name]);
    const executionRequests: ExecutionRequestView[] = urns.map((urn) => ({
      urn,
      input: aspects.get(urn)?.get(dataHubExecutionRequestInput.name) ?? null,
      result: aspects.get(urn)?.get(dataHubExecutionRequestResult.name) ?? null,
    }));
    return { start, count: executionRequests.length, total, executionRequests };
  }

  private sourceUrn(raw: string, field: string): string {
    const { urn, entity } = this.registry.parseEntityUrn(raw, field);
    if (entity.name !== SOURCE_ENTITY_TYPE) throw new InvalidInputError(`${field} must be a ${SOURCE_ENTITY_TYPE} urn; got '${urn.raw}'`);
    return urn.raw;
  }
}

/** The stored info of a source input, refused when its recipe, schedule or time zone is not valid. */
export function sourceInfo(input: IngestionSourceInput): Record<string, unknown> {
  if (input.name.trim() === '') throw new InvalidInputError('name must not be empty');
  if (input.type.trim() === '') throw new InvalidInputError('type must not be empty');
  try {
    JSON.parse(input.config.recipe);
  } catch {
    throw new InvalidInputError('config.recipe must be a JSON document');
  }
  if (input.schedule) validateSchedule(input.schedule);
  const extraArgs = input.config.extraArgs ?? [];
  return {
    name: input.name,
    type: input.type,
    ...(input.schedule ? { schedule: { interval: input.schedule.interval, timezone: input.schedule.timezone } } : {}),
    config: {
      recipe: input.config.recipe,
      executorId: input.config.executorId ?? DEFAULT_EXECUTOR_ID,
      ...(input.config.version ? { version: input.config.version } : {}),
      ...(typeof input.config.debugMode === 'boolean' ? { debugMode: input.config.debugMode } : {}),
      ...(extraArgs.length > 0 ? { extraArgs: Object.fromEntries(extraArgs.map((a) => [a.key, a.value ?? ''])) } : {}),
    },
  };
}

/** A UNIX cron schedule (five fields, as DataHub's scheduler takes) in an IANA time zone. */
function validateSchedule(schedule: { interval: string; timezone: string }): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: schedule.timezone });
  } catch {
    throw new InvalidInputError(`schedule.timezone '${schedule.timezone}' is not a time zone`);
  }
  const fields = schedule.interval.trim().split(/\s+/);
  try {
    if (fields.length !== 5) throw new Error(`5 fields expected, got ${fields.length}`);
    CronExpressionParser.parse(schedule.interval, { tz: schedule.timezone });
  } catch (err) {
    throw new InvalidInputError(`schedule.interval '${schedule.interval}' is not a cron schedule: ${(err as Error).message}`);
  }
}
