import { HistoryTrimmedError, InvalidInputError } from '../../model/errors';

/** What a read as of a moment needs to know of one aspect's history. */
export interface KeptHistory {
  name: string;
  /** createdTime of the oldest kept version. */
  from: number;
  /** Older versions were trimmed by retention. */
  trimmed: boolean;
}

/** An as-of time from a request: epoch milliseconds, not negative. */
export function asOfTime(raw: unknown, what = 'asOfTime'): number {
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new InvalidInputError(`${what} must be epoch milliseconds (a non-negative integer), got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * Refuses a read of `urn`'s aspect as of `t` when retention trimmed the versions that were valid then: the answer would
 * be a guess. An aspect whose history is complete simply did not exist before its oldest version.
 */
export function assertKept(urn: string, aspect: KeptHistory, t: number): void {
  if (aspect.trimmed && t < aspect.from) {
    throw new HistoryTrimmedError(
      `History of aspect '${aspect.name}' of ${urn} before ${new Date(aspect.from).toISOString()} (${aspect.from}) was trimmed by retention ` +
        `(RETENTION_MAX_VERSIONS / RETENTION_MAX_AGE); it can be read as of ${aspect.from} or later, not as of ${t}`,
    );
  }
}
