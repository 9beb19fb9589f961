import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth';
import { assertionInfo, assertionRunEvent, dataPlatformInstance, status } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import { makeUrn, platformUrn } from '../model/urn';
import type { EntityReads } from './entity-reads';
import type { IngestionService } from './ingestion';
import type { RetrievalService } from './retrieval';
import type { EventCriterion, TimeseriesService } from './timeseries';

const ASSERTION_ENTITY_TYPE = 'assertion';
const SCHEMA_FIELD_ENTITY_TYPE = 'schemaField';
/** The relationship from an assertion to what it asserts on (dataset, dataset fields, data job). */
const ASSERTS = 'Asserts';
/** The time-series field of a run event's status (the GraphQL `status` argument filters on it). */
export const RUN_EVENT_STATUS_FIELD = 'status';

type Value = Record<string, unknown>;

export interface CustomAssertionInput {
  entityUrn: string;
  type: string;
  description: string;
  platform: { urn?: string | null; name?: string | null };
  fieldPath?: string | null;
  fieldPaths?: string[] | null;
  externalUrl?: string | null;
  logic?: string | null;
  scope?: string | null;
  aggregation?: string | null;
  operator?: string | null;
  parameters?: Value | null;
  nativeType?: string | null;
  nativeParameters?: { key: string; value?: string | null }[] | null;
}

export interface AssertionResultInput {
  timestampMillis?: number | null;
  type: string;
  properties?: { key: string; value?: string | null }[] | null;
  externalUrl?: string | null;
  error?: { type: string; message: string } | null;
  severity?: string | null;
}

export interface RunEventsRequest {
  status?: string | null;
  startTimeMillis?: number | null;
  endTimeMillis?: number | null;
  limit?: number | null;
  criteria?: EventCriterion[];
}

const entries = (list: { key: string; value?: string | null }[] | null | undefined) =>
  list && list.length > 0 ? Object.fromEntries(list.map((e) => [e.key, e.value ?? ''])) : undefined;

/**
 * Assertions as DataHub's GraphQL keeps them: custom assertions written by the client (`upsert_custom_assertion`), the
 * results it reports (`report_assertion_result`, a COMPLETE `assertionRunEvent`), an entity's assertions (the
 * incoming `Asserts` relationships) and an assertion's run events with their counts (the assertion circuit breaker).
 */
export class Assertions {
  constructor(
    private readonly registry: Registry,
    private readonly reads: EntityReads,
    private readonly retrieval: RetrievalService,
    private readonly ingestion: IngestionService,
    private readonly timeseries: TimeseriesService,
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates (a new urn when none is given) or replaces a custom assertion on an existing entity; returns its urn. */
  async upsertCustom(rawUrn: string | null, input: CustomAssertionInput, principal: Principal): Promise<string> {
    const ns = this.registry.urnNamespace;
    const urn = this.assertionUrn(rawUrn ?? makeUrn(ns, ASSERTION_ENTITY_TYPE, [randomUUID()]), 'urn');
    const entity = this.registry.parseEntityUrn(input.entityUrn, 'input.entityUrn').urn.raw;
    if (!(await this.reads.exists(entity))) throw new InvalidInputError(`Failed to upsert Custom Assertion: entity ${entity} does not exist`);
    const platform = input.platform.urn ? this.registry.parseEntityUrn(input.platform.urn, 'input.platform.urn').urn.raw : input.platform.name ? platformUrn(ns, input.platform.name) : null;
    if (!platform) throw new InvalidInputError('Failed to upsert Custom Assertion. Platform Name or Platform Urn must be specified.');
    const field = (path: string) => makeUrn(ns, SCHEMA_FIELD_ENTITY_TYPE, [entity, path]);
    const custom: Value = {
      type: input.type,
      entity,
      ...(input.fieldPath ? { field: field(input.fieldPath) } : {}),
      ...(input.fieldPaths?.length ? { fields: input.fieldPaths.map(field) } : {}),
      ...(input.scope ? { scope: input.scope } : {}),
      ...(input.aggregation ? { aggregation: input.aggregation } : {}),
      ...(input.operator ? { operator: input.operator } : {}),
      ...(input.parameters ? { parameters: input.parameters } : {}),
      ...(input.nativeType ? { nativeType: input.nativeType } : {}),
      ...(entries(input.nativeParameters) ? { nativeParameters: entries(input.nativeParameters) } : {}),
      ...(input.logic ? { logic: input.logic } : {}),
    };
    const info: Value = {
      type: 'CUSTOM',
      description: input.description,
      ...(input.externalUrl ? { externalUrl: input.externalUrl } : {}),
      source: { type: 'EXTERNAL' },
      customAssertion: custom,
      customProperties: {},
    };
    await this.ingestion.transformAspects(
      [
        { urn, aspectName: assertionInfo.name, transform: () => info },
        { urn, aspectName: dataPlatformInstance.name, transform: () => ({ platform }) },
      ],
      principal,
    );
    return urn;
  }

  /** Records a result of the assertion (a COMPLETE run event, now or at timestampMillis); it must assert on an entity. */
  async reportResult(rawUrn: string, input: AssertionResultInput, principal: Principal): Promise<true> {
    const urn = this.assertionUrn(rawUrn, 'urn');
    const assertee = await this.asserteeOf(urn);
    if (!assertee) throw new InvalidInputError(`Failed to report Assertion Run Event. Assertion with urn ${urn} does not exist or is not associated with any entity.`);
    const time = input.timestampMillis ?? this.now();
    const result: Value = {
      type: input.type,
      ...(input.externalUrl ? { externalUrl: input.externalUrl } : {}),
      ...(input.severity ? { severity: input.severity } : {}),
      ...(input.type === 'ERROR' && input.error ? { error: { type: input.error.type, properties: { message: input.error.message } } } : {}),
      ...(entries(input.properties) ? { nativeResults: entries(input.properties) } : {}),
    };
    const event = { timestampMillis: time, runId: String(time), assertionUrn: urn, asserteeUrn: assertee, status: 'COMPLETE', result };
    await this.ingestion.ingestProposal(
      { entityType: ASSERTION_ENTITY_TYPE, entityUrn: urn, changeType: 'UPSERT', aspectName: assertionRunEvent.name, aspect: { contentType: 'application/json', value: JSON.stringify(event) } },
      principal,
    );
    return true;
  }

  /** The assertions on an entity (incoming Asserts), soft-deleted ones left out unless asked for. */
  async ofEntity(rawUrn: string, start: number, count: number, includeSoftDeleted: boolean): Promise<{ start: number; count: number; total: number; urns: string[] }> {
    const page = await this.retrieval.relationships(rawUrn, 'INCOMING', [ASSERTS], start, count);
    const assertionUrns = [...new Set(page.entities)];
    const aspects = await this.reads.aspectsOfMany(assertionUrns, [assertionInfo.name, status.name]);
    const urns = assertionUrns.filter((u) => aspects.get(u)?.has(assertionInfo.name) && (includeSoftDeleted || aspects.get(u)?.get(status.name)?.removed !== true));
    return { start, count: urns.length, total: page.total, urns };
  }

  /** An assertion's run events, newest first, with how many completed as successes, failures and errors. */
  async runEvents(assertionUrn: string, request: RunEventsRequest) {
    const events = await this.timeseries.events({
      ...request,
      urn: assertionUrn,
      entity: ASSERTION_ENTITY_TYPE,
      aspect: assertionRunEvent.name,
      criteria: [...(request.status ? [{ field: RUN_EVENT_STATUS_FIELD, values: [request.status] }] : []), ...(request.criteria ?? [])],
    });
    const completed = (type: string) => events.filter((e) => e.status === 'COMPLETE' && (e.result as Value | undefined)?.type === type).length;
    return { total: events.length, succeeded: completed('SUCCESS'), failed: completed('FAILURE'), errored: completed('ERROR'), events };
  }

  /**
   * What an assertion asserts on: the entity its info names (entityUrn, or its type's own entity field), else the first
   * entity of its outgoing Asserts relationships that is not a schema field; null when it has no info or none.
   */
  private async asserteeOf(urn: string): Promise<string | null> {
    const info = (await this.reads.aspectsOfMany([urn], [assertionInfo.name])).get(urn)?.get(assertionInfo.name);
    if (!info) return null;
    const named = [info.entityUrn, (info.customAssertion as Value | undefined)?.entity, (info.datasetAssertion as Value | undefined)?.dataset].find((u) => typeof u === 'string');
    if (typeof named === 'string') return named;
    const page = await this.retrieval.relationships(urn, 'OUTGOING', [ASSERTS], 0, 100);
    return page.entities.find((u) => !u.startsWith(`urn:${this.registry.urnNamespace}:${SCHEMA_FIELD_ENTITY_TYPE}:`)) ?? null;
  }

  private assertionUrn(raw: string, field: string): string {
    const { urn, entity } = this.registry.parseEntityUrn(raw, field);
    if (entity.name !== ASSERTION_ENTITY_TYPE) throw new InvalidInputError(`${field} must be an assertion urn; got '${urn.raw}'`);
    return urn.raw;
  }
}
