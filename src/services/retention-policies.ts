import type { Logger } from 'pino';
import { dataHubRetentionConfig, retentionPolicyOf, type RetentionPolicy } from '../model/aspects/dataHubRetentionConfig';
import type { Registry } from '../model/registry';
import type { CommittedWrite } from './write-path/plan';

export type { RetentionPolicy } from '../model/aspects/dataHubRetentionConfig';

/** The history policy of each (entity type, aspect): what a write of it keeps (./write-path/prepare.ts). */
export interface RetentionLookup {
  policyFor(entityType: string, aspectName: string): RetentionPolicy;
}

/** One policy for every aspect (RETENTION_MAX_VERSIONS / RETENTION_MAX_AGE alone). */
export const fixedRetention = (policy: RetentionPolicy): RetentionLookup => ({ policyFor: () => policy });

/** Where the stored policies come from: every dataHubRetention entity's latest dataHubRetentionConfig (ListingStore). */
export type StoredPolicies = (entityType: string, aspectName: string) => Promise<{ urn: string; value: string }[]>;

const ANY = '*';

/**
 * DataHub's retention policies, kept in memory for the write path: the `dataHubRetentionConfig` aspects of
 * `urn:li:dataHubRetention:(<entity>,<aspect>)` entities, `*` (or empty) standing for any. A write of an aspect follows
 * the first policy stored for (entity, aspect), (entity, *), (*, aspect), (*, *), in that order, as DataHub's
 * RetentionService looks them up; without one, the service's own default (RETENTION_MAX_VERSIONS, RETENTION_MAX_AGE).
 *
 * The policies are read at start and again after every committed write to one, before that write is answered (so the
 * next write through this process follows it); writes through other processes reach this one within `refreshMs`.
 */
export class RetentionPolicies implements RetentionLookup {
  private byKey = new Map<string, RetentionPolicy>();
  private readonly entityType: string;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly registry: Registry,
    private readonly defaults: RetentionPolicy,
    private readonly stored: StoredPolicies,
    private readonly refreshMs: number,
    private readonly logger?: Logger,
  ) {
    const entity = [...registry.entities.values()].find((e) => e.aspects.has(dataHubRetentionConfig.name) && e.keyAspect !== dataHubRetentionConfig.name);
    if (!entity) throw new Error(`no entity type carries ${dataHubRetentionConfig.name}`);
    this.entityType = entity.name;
  }

  policyFor(entityType: string, aspectName: string): RetentionPolicy {
    const byKey = this.byKey;
    if (byKey.size === 0) return this.defaults;
    return byKey.get(`${entityType},${aspectName}`) ?? byKey.get(`${entityType},${ANY}`) ?? byKey.get(`${ANY},${aspectName}`) ?? byKey.get(`${ANY},${ANY}`) ?? this.defaults;
  }

  /** Reads the stored policies, then keeps them current. */
  async start(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => this.reload().catch((err) => this.logger?.warn({ err: (err as Error).message }, 'could not read the retention policies; the previous ones stay in force')), this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The publish stage: a committed write to a policy is in force before the write is answered. */
  async committed(writes: readonly CommittedWrite[]): Promise<void> {
    if (!writes.some((w) => w.entityType === this.entityType)) return;
    try {
      await this.reload();
    } catch (err) {
      this.logger?.warn({ err: (err as Error).message }, 'could not read the retention policies after a write to one; it takes effect at the next refresh');
    }
  }

  /** One read at a time; callers arriving during one share the next, begun once it ends (it may have begun before their write). */
  reload(): Promise<void> {
    if (!this.running) {
      this.running = this.read().finally(() => (this.running = null));
      return this.running;
    }
    this.queued ??= this.running.catch(() => undefined).then(() => {
      this.queued = null;
      return this.reload();
    });
    return this.queued;
  }

  private async read(): Promise<void> {
    const rows = await this.stored(this.entityType, dataHubRetentionConfig.name);
    const byKey = new Map<string, RetentionPolicy>();
    for (const { urn, value } of rows) {
      const key = this.keyOf(urn);
      if (!key) continue;
      try {
        byKey.set(key, retentionPolicyOf(JSON.parse(value) as Record<string, unknown>));
      } catch {
        this.logger?.warn({ urn }, 'a stored retention policy is not valid JSON; it is ignored');
      }
    }
    this.byKey = byKey;
  }

  /** `urn:li:dataHubRetention:(dataset,*)` → `dataset,*`; an empty part stands for any, as in DataHub's key. */
  private keyOf(urn: string): string | null {
    try {
      const { urn: parsed, entity } = this.registry.parseEntityUrn(urn, 'urn');
      const { entityName, aspectName } = this.registry.keyAspectFor(parsed, entity).value as { entityName?: string; aspectName?: string };
      return `${entityName || ANY},${aspectName || ANY}`;
    } catch {
      return null;
    }
  }
}
