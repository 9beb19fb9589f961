import { join } from 'node:path';
import { Registry } from '../../src/model/registry';
import { ValidationError } from '../../src/model/errors';
import { RetentionPolicies } from '../../src/services/retention-policies';
import type { CommittedWrite } from '../../src/services/write-path/plan';

const registry = Registry.load(join(__dirname, '..', '..', 'schema'));
const DEFAULTS = { versions: 20, maxAgeMs: null };
const urn = (entity: string, aspect: string) => `urn:li:dataHubRetention:(${entity},${aspect})`;
const stored = (retention: Record<string, unknown>) => JSON.stringify({ retention });
const write = (entityType: string): CommittedWrite => ({ urn: 'u', entityType, wipedAll: false, removed: [], set: [], previousRev: null, rev: 1, created: false, queued: false });

function policiesOver(rows: () => { urn: string; value: string }[]) {
  let reads = 0;
  const policies = new RetentionPolicies(
    registry,
    DEFAULTS,
    async (entityType, aspect) => {
      reads++;
      expect([entityType, aspect]).toEqual(['dataHubRetention', 'dataHubRetentionConfig']);
      await new Promise((r) => setTimeout(r, 5));
      return rows();
    },
    60_000,
  );
  return { policies, reads: () => reads };
}

describe('retention policies', () => {
  it("follows DataHub's order: (entity, aspect), (entity, *), (*, aspect), (*, *), then the service's default", async () => {
    let rows = [
      { urn: urn('dataset', 'schemaMetadata'), value: stored({ version: { maxVersions: 5 } }) },
      { urn: urn('dataset', '*'), value: stored({ version: { maxVersions: 7 }, time: { maxAgeInSeconds: 60 } }) },
      { urn: urn('*', 'ownership'), value: stored({ time: { maxAgeInSeconds: 3600 } }) },
      { urn: urn('*', '*'), value: stored({ version: { maxVersions: 9 } }) },
    ];
    const { policies } = policiesOver(() => rows);
    expect(policies.policyFor('dataset', 'schemaMetadata')).toEqual(DEFAULTS);
    await policies.reload();
    expect(policies.policyFor('dataset', 'schemaMetadata')).toEqual({ versions: 5, maxAgeMs: null });
    expect(policies.policyFor('dataset', 'ownership')).toEqual({ versions: 7, maxAgeMs: 60_000 });
    // A bound the policy leaves out does not apply: no count bound here.
    expect(policies.policyFor('chart', 'ownership')).toEqual({ versions: Number.POSITIVE_INFINITY, maxAgeMs: 3_600_000 });
    expect(policies.policyFor('chart', 'chartInfo')).toEqual({ versions: 9, maxAgeMs: null });

    // An empty policy keeps everything.
    rows = [{ urn: urn('*', '*'), value: stored({}) }];
    await policies.reload();
    expect(policies.policyFor('chart', 'chartInfo')).toEqual({ versions: Number.POSITIVE_INFINITY, maxAgeMs: null });

    rows = [];
    await policies.reload();
    expect(policies.policyFor('chart', 'chartInfo')).toEqual(DEFAULTS);
  });

  it('reads again after a committed write to a policy only, and shares reads that overlap', async () => {
    const { policies, reads } = policiesOver(() => []);
    await policies.committed([write('dataset'), write('chart')]);
    expect(reads()).toBe(0);
    await policies.committed([write('dataset'), write('dataHubRetention')]);
    expect(reads()).toBe(1);
    // One read running, three callers meanwhile: they share one more read, which starts after it.
    await Promise.all([policies.reload(), policies.reload(), policies.reload(), policies.reload()]);
    expect(reads()).toBe(3);
  });

  it('refuses bounds that are not positive, as DataHub does', () => {
    const spec = registry.aspects.get('dataHubRetentionConfig')!;
    expect(() => spec.behaviour!.validate!({ retention: { version: { maxVersions: 0 } } }, registry)).toThrow(ValidationError);
    expect(() => spec.behaviour!.validate!({ retention: { time: { maxAgeInSeconds: -1 } } }, registry)).toThrow('Invalid maxAgeInSeconds: -1');
    expect(() => spec.behaviour!.validate!({ retention: { version: { maxVersions: 1 }, time: { maxAgeInSeconds: 1 } } }, registry)).not.toThrow();
  });
});
