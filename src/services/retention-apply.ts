import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { RetentionStore, TrimTarget } from '../stores/graph/retention-store';
import type { RetentionLookup } from './retention-policies';

export interface ApplyRetentionRequest {
  urn?: string | null;
  aspectName?: string | null;
  /** The first entity of the batch, in urn order. */
  start?: number | null;
  /** Entities in the batch. */
  count?: number | null;
  attemptWithVersion?: number | null;
}

export interface ApplyRetentionResult {
  entitiesHandled: number;
  aspectsApplied: number;
  versionsDeleted: number;
  /** Where the next batch starts; null after the last one. */
  nextStart: number | null;
  timeTakenMs: number;
}

const DEFAULT_BATCH = 500;

/**
 * DataHub's applyRetention: stored history brought within the retention policy its aspect has now, as the write path
 * would leave it at the aspect's next write. One batch of entities per call, in urn order, in one transaction (each
 * entity locked while its history is trimmed), as DataHub's applyRetention takes `start` and `count`: a caller walks
 * the catalog batch by batch (`nextStart`), and no call runs long.
 */
export class RetentionApplication {
  constructor(
    private readonly registry: Registry,
    private readonly policies: RetentionLookup,
    private readonly store: RetentionStore,
    private readonly now: () => number = Date.now,
  ) {}

  async apply(request: ApplyRetentionRequest): Promise<ApplyRetentionResult> {
    const started = performance.now();
    if (request.attemptWithVersion !== undefined && request.attemptWithVersion !== null) throw new InvalidInputError('attemptWithVersion is not supported');
    const urn = request.urn ? this.registry.parseEntityUrn(request.urn, 'urn').urn.raw : null;
    const aspect = request.aspectName ?? null;
    if (aspect !== null && !this.registry.aspects.has(aspect)) throw new InvalidInputError(`Unknown aspect '${aspect}'`);
    const start = request.start ?? 0;
    const count = request.count ?? DEFAULT_BATCH;
    const page = await this.store.historyPage(start, count, urn, aspect);
    const now = this.now();
    const targets: TrimTarget[] = [];
    for (const entity of page) {
      for (const { name, history } of entity.aspects) {
        const policy = this.policies.policyFor(entity.entityType, name);
        const keep = Number.isFinite(policy.versions) ? policy.versions : null;
        const horizon = policy.maxAgeMs === null ? null : now - policy.maxAgeMs;
        if ((keep === null || history <= keep) && horizon === null) continue;
        targets.push({ urn: entity.urn, name, keep, horizon });
      }
    }
    const versionsDeleted = await this.store.trim(targets);
    return {
      entitiesHandled: page.length,
      aspectsApplied: targets.length,
      versionsDeleted,
      nextStart: urn === null && page.length === count ? start + count : null,
      timeTakenMs: Math.round(performance.now() - started),
    };
  }
}
