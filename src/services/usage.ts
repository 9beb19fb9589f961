import { datasetUsageStatistics } from '../model/aspects';
import type { Principal } from '../auth';
import { InvalidInputError, ValidationError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { IngestionService } from './ingestion';
import type { TimeseriesService } from './timeseries';

/**
 * DataHub's legacy usage endpoint (`/usageStats`). As in DataHub, a bucket (UsageAggregation) is stored as the
 * `datasetUsageStatistics` time-series aspect of its dataset, so what it holds is read back through
 * getTimeseriesAspectValues like any usage written as an aspect, and the queries read both alike.
 */

export const WINDOW_DURATIONS = ['YEAR', 'MONTH', 'WEEK', 'DAY', 'HOUR'] as const;
export type WindowDuration = (typeof WINDOW_DURATIONS)[number];
export const USAGE_TIME_RANGES = ['HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'HALF_YEAR', 'YEAR', 'ALL'] as const;
export type UsageTimeRange = (typeof USAGE_TIME_RANGES)[number];

export interface UsageAggregation {
  bucket: number;
  duration: WindowDuration;
  resource: string;
  metrics: {
    uniqueUserCount?: number;
    users?: { user?: string; count: number; userEmail?: string }[];
    totalSqlQueries?: number;
    topSqlQueries?: string[];
    fields?: { fieldName: string; count: number }[];
  };
}

interface BucketMetrics {
  uniqueUserCount?: number;
  totalSqlQueries?: number;
  topSqlQueries?: string[];
}

export interface UsageQueryResult {
  buckets: { bucket: number; duration: WindowDuration; resource: string; metrics: BucketMetrics }[];
  aggregations: {
    uniqueUserCount: number;
    totalSqlQueries?: number;
    users: { user: string; count: number; userEmail?: string }[];
    fields: { fieldName: string; count: number }[];
  };
}

interface UsageRow {
  timestampMillis: number;
  uniqueUserCount?: number;
  totalSqlQueries?: number;
  topSqlQueries?: string[];
  userCounts?: { user: string; count: number; userEmail?: string }[];
  fieldCounts?: { fieldPath: string; count: number }[];
}

const ASPECT = datasetUsageStatistics.name;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Most usage rows one query aggregates (the newest first); more is refused rather than answered from part of them. */
const MAX_ROWS = 100_000;

/** Start of a trailing range, as DataHub computes it: one extra unit back, so the first bucket is whole. */
function rangeStart(range: UsageTimeRange, now: number): number {
  const days: Record<Exclude<UsageTimeRange, 'HOUR' | 'ALL'>, number> = { DAY: 2, WEEK: 8, MONTH: 31, QUARTER: 92, HALF_YEAR: 183, YEAR: 366 };
  if (range === 'ALL') return 0;
  if (range === 'HOUR') return now - (2 * HOUR_MS + 1);
  return now - (days[range] * DAY_MS + 1);
}

/** Start of the calendar bucket (UTC) holding `time`; weeks start on Monday, as the engines' calendar intervals do. */
export function bucketStart(time: number, duration: WindowDuration): number {
  const d = new Date(time);
  switch (duration) {
    case 'HOUR':
      return Math.floor(time / HOUR_MS) * HOUR_MS;
    case 'DAY':
      return Math.floor(time / DAY_MS) * DAY_MS;
    case 'WEEK': {
      const day = Math.floor(time / DAY_MS) * DAY_MS;
      return day - ((d.getUTCDay() + 6) % 7) * DAY_MS;
    }
    case 'MONTH':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'YEAR':
      return Date.UTC(d.getUTCFullYear(), 0, 1);
  }
}

const byCountThenName = <T extends { count: number }>(name: (t: T) => string) => (a: T, b: T) =>
  b.count - a.count || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);

export class UsageService {
  constructor(
    private readonly registry: Registry,
    private readonly ingestion: IngestionService,
    private readonly timeseries: TimeseriesService,
    private readonly now: () => number = Date.now,
  ) {}

  /** Stores each bucket as a datasetUsageStatistics value of its dataset; the request is validated whole first. */
  async batchIngest(buckets: UsageAggregation[], principal: Principal): Promise<void> {
    const proposals = buckets.map((b, i) => {
      const where = `buckets[${i}]`;
      const { urn, entityType } = this.usageUrn(b.resource, `${where}.resource`);
      const users = b.metrics.users?.map((u, j) => {
        if (u.user === undefined) {
          throw new ValidationError(`${where}.metrics.users[${j}] has no user urn: datasetUsageStatistics counts users by urn (userEmail alone is not resolved)`, [
            { path: `/buckets/${i}/metrics/users/${j}/user`, message: 'is required' },
          ]);
        }
        return { user: u.user, count: u.count, ...(u.userEmail !== undefined ? { userEmail: u.userEmail } : {}) };
      });
      const m = b.metrics;
      const value = {
        timestampMillis: b.bucket,
        eventGranularity: { unit: b.duration, multiple: 1 },
        ...(m.uniqueUserCount !== undefined ? { uniqueUserCount: m.uniqueUserCount } : {}),
        ...(m.totalSqlQueries !== undefined ? { totalSqlQueries: m.totalSqlQueries } : {}),
        ...(m.topSqlQueries !== undefined ? { topSqlQueries: m.topSqlQueries } : {}),
        ...(users !== undefined ? { userCounts: users } : {}),
        ...(m.fields !== undefined ? { fieldCounts: m.fields.map((f) => ({ fieldPath: f.fieldName, count: f.count })) } : {}),
      };
      return { entityType, entityUrn: urn, changeType: 'UPSERT', aspectName: ASPECT, aspect: { value: JSON.stringify(value), contentType: 'application/json' } };
    });
    if (proposals.length === 0) return;
    try {
      await this.ingestion.ingestProposalBatch(proposals, principal);
    } catch (err) {
      // Proposal i is bucket i.
      if (err instanceof InvalidInputError || err instanceof ValidationError) err.message = err.message.replace(/^proposals\[/, 'buckets[');
      throw err;
    }
  }

  /** Usage of the trailing range `range` (up to now), bucketed by `duration`. */
  async queryRange(resource: string, duration: WindowDuration, range: UsageTimeRange): Promise<UsageQueryResult> {
    const now = this.now();
    return this.query(resource, duration, rangeStart(range, now), now);
  }

  /**
   * Usage between two times (inclusive, either open), bucketed by `duration` as DataHub does: per calendar bucket the
   * latest value of uniqueUserCount, totalSqlQueries and topSqlQueries; over the whole range the users' and fields'
   * counts summed (most used first), and totalSqlQueries summed over the buckets.
   */
  async query(resource: string, duration: WindowDuration, startTime: number | undefined, endTime: number | undefined): Promise<UsageQueryResult> {
    const { urn, entityType } = this.usageUrn(resource, 'resource');
    const answer = await this.timeseries.values({ urn, entity: entityType, aspect: ASPECT, startTimeMillis: startTime, endTimeMillis: endTime, limit: MAX_ROWS + 1 });
    if (answer.values.length > MAX_ROWS) {
      throw new InvalidInputError(`More than ${MAX_ROWS} usage rows of ${urn} in the range; ask for a shorter one`);
    }
    // Newest first: the first row seen in a bucket is its latest.
    const rows = answer.values.map((v) => JSON.parse(v.aspect.value) as UsageRow);
    const latest = new Map<number, UsageRow>();
    const users = new Map<string, { user: string; count: number; userEmail?: string }>();
    const fields = new Map<string, { fieldName: string; count: number }>();
    for (const row of rows) {
      const key = bucketStart(row.timestampMillis, duration);
      if (!latest.has(key)) latest.set(key, row);
      for (const u of row.userCounts ?? []) {
        const entry = users.get(u.user) ?? { user: u.user, count: 0 };
        entry.count += u.count;
        if (entry.userEmail === undefined && u.userEmail !== undefined) entry.userEmail = u.userEmail;
        users.set(u.user, entry);
      }
      for (const f of row.fieldCounts ?? []) {
        const entry = fields.get(f.fieldPath) ?? { fieldName: f.fieldPath, count: 0 };
        entry.count += f.count;
        fields.set(f.fieldPath, entry);
      }
    }
    const buckets = [...latest.entries()]
      .sort(([a], [b]) => a - b)
      .map(([bucket, row]) => ({
        bucket,
        duration,
        resource: urn,
        metrics: {
          ...(row.uniqueUserCount !== undefined ? { uniqueUserCount: row.uniqueUserCount } : {}),
          ...(row.totalSqlQueries !== undefined ? { totalSqlQueries: row.totalSqlQueries } : {}),
          ...(row.topSqlQueries !== undefined ? { topSqlQueries: row.topSqlQueries } : {}),
        },
      }));
    const withQueries = buckets.filter((b) => b.metrics.totalSqlQueries !== undefined);
    const userList = [...users.values()].sort(byCountThenName((u) => u.user));
    return {
      buckets,
      aggregations: {
        uniqueUserCount: userList.length,
        ...(withQueries.length > 0 ? { totalSqlQueries: withQueries.reduce((sum, b) => sum + b.metrics.totalSqlQueries!, 0) } : {}),
        users: userList,
        fields: [...fields.values()].sort(byCountThenName((f) => f.fieldName)),
      },
    };
  }

  /** Usage lives in datasetUsageStatistics, which (in DataHub's model) only datasets carry. */
  private usageUrn(raw: string, what: string): { urn: string; entityType: string } {
    const { urn, entity } = this.registry.parseEntityUrn(raw, what);
    if (!entity.aspects.has(ASPECT)) {
      throw new InvalidInputError(`Invalid ${what} '${urn.raw}': usage is kept as ${ASPECT}, which ${entity.name} entities do not have`);
    }
    return { urn: urn.raw, entityType: entity.name };
  }
}
