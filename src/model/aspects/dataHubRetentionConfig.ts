import { ValidationError } from '../errors';
import type { AspectBehaviour } from './behaviour';

/**
 * How much history one aspect keeps: at most `versions` history versions (Infinity: no count bound), and none that
 * stopped being current more than `maxAgeMs` ago (null: no age bound). The latest value is always kept.
 */
export interface RetentionPolicy {
  versions: number;
  maxAgeMs: number | null;
}

interface RetentionValue {
  retention?: { version?: { maxVersions?: number }; time?: { maxAgeInSeconds?: number } };
}

/**
 * The policy a stored dataHubRetentionConfig sets, as DataHub applies it: a bound it leaves out does not apply (a
 * policy with only `time` keeps any number of versions; an empty one keeps everything).
 */
export function retentionPolicyOf(value: Record<string, unknown>): RetentionPolicy {
  const { retention } = value as RetentionValue;
  const maxVersions = retention?.version?.maxVersions;
  const maxAgeInSeconds = retention?.time?.maxAgeInSeconds;
  return {
    versions: typeof maxVersions === 'number' ? maxVersions : Number.POSITIVE_INFINITY,
    maxAgeMs: typeof maxAgeInSeconds === 'number' ? maxAgeInSeconds * 1000 : null,
  };
}

/**
 * The retention policy of the aspects its entity's key names (`urn:li:dataHubRetention:(dataset,schemaMetadata)`,
 * `*` for any): src/services/retention-policies.ts applies it to every later write of them.
 */
export const dataHubRetentionConfig: AspectBehaviour = {
  name: 'dataHubRetentionConfig',
  /** As DataHub's RetentionService refuses them: a bound must be positive. */
  validate(value) {
    const { retention } = value as RetentionValue;
    const maxVersions = retention?.version?.maxVersions;
    const maxAgeInSeconds = retention?.time?.maxAgeInSeconds;
    if (typeof maxVersions === 'number' && maxVersions <= 0) {
      throw new ValidationError(`Invalid maxVersions: ${maxVersions}`, [{ path: '/retention/version/maxVersions', message: 'must be positive' }]);
    }
    if (typeof maxAgeInSeconds === 'number' && maxAgeInSeconds <= 0) {
      throw new ValidationError(`Invalid maxAgeInSeconds: ${maxAgeInSeconds}`, [{ path: '/retention/time/maxAgeInSeconds', message: 'must be positive' }]);
    }
  },
};
