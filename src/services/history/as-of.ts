import { HistoryTrimmedError } from '../../model/errors';

/** What a read as of a moment needs to know of one aspect's history. */
export interface KeptHistory {
  name: string;
  /** createdTime of the oldest kept version. */
  from: number;
  /** Older versions were trimmed by retention. */
  trimmed: boolean;
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
