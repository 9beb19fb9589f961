import type { Principal } from '../auth';
import { operation } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { EntityReads } from './entity-reads';
import type { IngestionService } from './ingestion';
import type { EventCriterion, TimeseriesService } from './timeseries';

export interface ReportOperationInput {
  urn: string;
  operationType: string;
  customOperationType?: string | null;
  sourceType: string;
  customProperties?: { key: string; value?: string | null }[] | null;
  partition?: string | null;
  numAffectedRows?: number | null;
  timestampMillis?: number | null;
}

export interface OperationsRange {
  startTimeMillis?: number | null;
  endTimeMillis?: number | null;
  limit?: number | null;
  /** AND of field criteria on the operation (operationType, sourceType, partition…). */
  criteria?: EventCriterion[];
}

/** The time-series field of an operation's partition (the client's filters name it `partition`). */
const PARTITION_FIELD = 'partitionSpec.partition';

/**
 * Operations on a dataset as DataHub's GraphQL reports and reads them (the client's `datahub.api.graphql.Operation`,
 * which Airflow's operation and assertion circuit breakers call): a reported operation is an `operation` time-series
 * event written through ingestion, and the newest ones in a time range are read back from the time-series index.
 */
export class DatasetOperations {
  constructor(
    private readonly registry: Registry,
    private readonly reads: EntityReads,
    private readonly ingestion: IngestionService,
    private readonly timeseries: TimeseriesService,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records an operation done now (or at `timestampMillis`) by the caller; the dataset must exist. */
  async report(input: ReportOperationInput, principal: Principal): Promise<true> {
    const { urn, entity } = this.registry.parseEntityUrn(input.urn, 'urn');
    if (!(await this.reads.exists(urn.raw))) throw new InvalidInputError(`Failed to report an operation: entity ${urn.raw} does not exist`);
    if (input.operationType === 'CUSTOM' && !input.customOperationType) throw new InvalidInputError('customOperationType is required when operationType is CUSTOM');
    const time = input.timestampMillis ?? this.now();
    const value = {
      timestampMillis: time,
      lastUpdatedTimestamp: time,
      actor: principal.actor,
      operationType: input.operationType,
      ...(input.customOperationType ? { customOperationType: input.customOperationType } : {}),
      sourceType: input.sourceType,
      ...(input.numAffectedRows !== null && input.numAffectedRows !== undefined ? { numAffectedRows: input.numAffectedRows } : {}),
      ...(input.partition ? { partitionSpec: { partition: input.partition, type: 'PARTITION' } } : {}),
      ...(input.customProperties?.length ? { customProperties: Object.fromEntries(input.customProperties.map((p) => [p.key, p.value ?? ''])) } : {}),
    };
    await this.ingestion.ingestProposal(
      { entityType: entity.name, entityUrn: urn.raw, changeType: 'UPSERT', aspectName: operation.name, aspect: { contentType: 'application/json', value: JSON.stringify(value) } },
      principal,
    );
    return true;
  }

  /** The dataset's operations in the range, newest first. */
  async recent(rawUrn: string, range: OperationsRange): Promise<Record<string, unknown>[]> {
    const { urn, entity } = this.registry.parseEntityUrn(rawUrn, 'urn');
    return this.timeseries.events({
      ...range,
      urn: urn.raw,
      entity: entity.name,
      aspect: operation.name,
      criteria: (range.criteria ?? []).map((c) => (c.field === 'partition' ? { ...c, field: PARTITION_FIELD } : c)),
    });
  }
}
