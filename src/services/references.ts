import type { Principal } from '../auth';
import { DomainError, InvalidInputError, ValidationError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { Reference, ReferenceStore } from '../stores/graph/reference-store';
import type { IngestionService } from './ingestion';
import { isRemovable, removeReferences } from './reference-removal';

/** DataHub's DeleteReferencesResponse lists a sample of the references, not all of them. */
const SAMPLE_SIZE = 10;
/** Referencing aspects rewritten at once (each its own write unit; the group writer batches them into transactions). */
const CONCURRENCY = 16;

export interface UnremovableReference extends Reference {
  reason: string;
}

export interface DeleteReferencesResult {
  /** References found (before any was removed). */
  total: number;
  /** Up to ten of them, each `{relationship, entity, aspect}` (keys in this order: the CLI prints their values as columns). */
  relatedAspects: Reference[];
  /** References that stay (dry run: that would stay), and why. */
  unremovable: UnremovableReference[];
  /** References removed; only when not a dry run. */
  removed?: number;
}

function groupKey(r: Reference): string {
  return `${r.entity}\u0000${r.aspect}`;
}

/**
 * deleteReferences: every reference to an entity from other entities' aspects, found through the incoming edges in
 * Neo4j, listed (dry run) or removed. Removal rewrites each referencing aspect without the urn, atomically per aspect
 * (IngestionService.patchAspect: computed on the locked latest value, validated and versioned like any write). The
 * referenced entity itself is not touched.
 */
export class ReferencesService {
  constructor(
    private readonly registry: Registry,
    private readonly store: ReferenceStore,
    private readonly ingestion: IngestionService,
  ) {}

  async deleteReferences(rawUrn: unknown, dryRun: boolean, principal: Principal): Promise<DeleteReferencesResult> {
    const { urn } = this.registry.parseEntityUrn(rawUrn);
    const references = await this.store.incoming(urn.raw);
    const result: DeleteReferencesResult = {
      total: references.length,
      relatedAspects: references.slice(0, SAMPLE_SIZE).map((r) => ({ relationship: r.relationship, entity: r.entity, aspect: r.aspect })),
      unremovable: [],
    };
    const groups = new Map<string, Reference[]>();
    for (const r of references) {
      const problem = this.staticProblem(r);
      if (problem) result.unremovable.push({ ...r, reason: problem });
      else groups.set(groupKey(r), [...(groups.get(groupKey(r)) ?? []), r]);
    }
    if (dryRun) return result;

    const failures: unknown[] = [];
    const queue = [...groups.values()];
    const worker = async () => {
      for (let group = queue.shift(); group; group = queue.shift()) {
        try {
          result.unremovable.push(...(await this.removeFrom(group, urn.raw, principal)));
        } catch (err) {
          // Bad input of one aspect (it no longer validates) is reported; an outage or overload fails the request.
          if (err instanceof ValidationError || err instanceof InvalidInputError) result.unremovable.push(...group.map((r) => ({ ...r, reason: err.message })));
          else failures.push(err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
    if (failures.length > 0) throw failures.find((f) => f instanceof DomainError) ?? failures[0];
    result.removed = result.total - result.unremovable.length;
    return result;
  }

  /** Why a reference cannot be removed whatever the aspect holds (null when it can). */
  private staticProblem(r: Reference): string | null {
    const entityType = r.entity.split(':')[2];
    const entity = this.registry.entities.get(entityType);
    const aspect = this.registry.aspects.get(r.aspect);
    if (!entity || !aspect || !entity.aspects.has(aspect.name)) return `'${r.aspect}' is not an aspect of entity type '${entityType}'`;
    if (aspect.name === entity.keyAspect) return `the reference is part of the key of ${r.entity}; delete that entity instead`;
    const fields = aspect.relationships.filter((f) => f.name === r.relationship);
    if (fields.length > 0 && !fields.some((f) => isRemovable(aspect, f))) {
      return `${aspect.name}.${fields[0].path.join('.')} is a required field: the aspect would be invalid without it; replace or delete the aspect instead`;
    }
    return null;
  }

  /** Rewrites one referencing aspect without the urn; answers the references that had to stay. */
  private async removeFrom(group: Reference[], urn: string, principal: Principal): Promise<UnremovableReference[]> {
    const { entity, aspect: aspectName } = group[0];
    const aspect = this.registry.aspects.get(aspectName)!;
    let blocked = new Set<string>();
    await this.ingestion.patchAspect(entity, aspectName, (current) => {
      // Runs inside the write's transaction, possibly more than once: it keeps no state but the last outcome.
      blocked = new Set();
      if (!current) return null;
      const outcome = removeReferences(aspect, current, urn);
      blocked = outcome.blocked;
      return outcome.removed.size > 0 ? outcome.value : null;
    }, principal);
    return group
      .filter((r) => blocked.has(r.relationship))
      .map((r) => ({ ...r, reason: `a required field of ${aspectName} holds it: the aspect would be invalid without it` }));
  }
}
