import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { RetentionStore, TrimTarget } from '../stores/graph/retention-store';
import type { RetentionLookup } from './retention-policies';

export interface ApplyRetentionRequest {
  urn?: string | null;
  aspectName?: string | null;
  /** Entities per transaction. */
  count?: number | null;
  start?: number | null;
  attemptWithVersion?: number | null;
}

export interface ApplyRetentionResult {
  entitiesHandled: number;
  aspectsApplied: number;
  versionsDeleted: number;
  timeTakenMs: number;
}

const DEFAULT_BATCH = 500;

/**
 * DataHub's applyRetention: every stored history brought within the retention policy its aspect has now, as the write
 * path would leave it at the aspect's next write. Walks the entities in urn order, a batch per transaction (each entity
 * locked while its history is trimmed), of one entity and / or one aspect name when asked.
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
    if (request.start) throw new InvalidInputError('start is not supported: applyRetention walks every entity (or the one named by urn)');
    if (request.attemptWithVersion !== undefined && request.attemptWithVersion !== null) throw new InvalidInputError('attemptWithVersion is not supported');
    const urn = request.urn ? this.registry.parseEntityUrn(request.urn, 'urn').urn.raw : null;
    const aspect = request.aspectName ?? null;
    if (aspect !== null && !this.registry.aspects.has(aspect)) throw new InvalidInputError(`Unknown aspect '${aspect}'`);
    const batch = request.count ?? DEFAULT_BATCH;
    const result = { entitiesHandled: 0, aspectsApplied: 0, versionsDeleted: 0 };
    let after = '';
    for (;;) {
      const page = await this.store.historyPage(after, batch, urn, aspect);
      if (page.length === 0) break;
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
      const deleted = await this.store.trim(targets);
      result.entitiesHandled += page.length;
      result.versionsDeleted += deleted;
      result.aspectsApplied += targets.length;
      after = page[page.length - 1].urn;
      if (urn !== null || page.length < batch) break;
    }
    return { ...result, timeTakenMs: Math.round(performance.now() - started) };
  }
}
