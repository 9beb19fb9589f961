import { SharedRevocationChecks } from '../../src/auth/shared-revocation-checks';

/** A revocation list whose lookups the test finishes one by one; each sees the revocations made before it began. */
function controlledLookups() {
  const revoked = new Set<string>();
  const lookups: { jtis: string[]; finish(): void; fail(err: Error): void }[] = [];
  const checks = new SharedRevocationChecks(
    (jtis) =>
      new Promise((resolve, reject) => {
        const seen = new Set(jtis.filter((j) => revoked.has(j)));
        lookups.push({ jtis, finish: () => resolve(seen), fail: reject });
      }),
  );
  return { revoked, lookups, checks };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('revocation checks shared by concurrent requests', () => {
  test('checks asked while a lookup runs share the next one, which begins when it ends', async () => {
    const { lookups, checks } = controlledLookups();
    const first = checks.isRevoked('a');
    await settle();
    const waiting = [checks.isRevoked('a'), checks.isRevoked('b'), checks.isRevoked('a')];
    await settle();
    expect(lookups.map((l) => l.jtis)).toEqual([['a']]);
    lookups[0].finish();
    expect(await first).toBe(false);
    await settle();
    expect(lookups.map((l) => l.jtis)).toEqual([['a'], ['a', 'b']]);
    lookups[1].finish();
    expect(await Promise.all(waiting)).toEqual([false, false, false]);
  });

  test('a check asked after a revocation is never answered by a lookup that began before it', async () => {
    const { revoked, lookups, checks } = controlledLookups();
    const before = checks.isRevoked('a');
    await settle();
    // Revoked while the first lookup runs; the request after it must be refused.
    revoked.add('a');
    const after = checks.isRevoked('a');
    lookups[0].finish();
    expect(await before).toBe(false);
    await settle();
    lookups[1].finish();
    expect(await after).toBe(true);
  });

  test('a failed lookup fails the checks it answers, and the next lookup still runs', async () => {
    const { lookups, checks } = controlledLookups();
    const first = checks.isRevoked('a');
    await settle();
    const second = checks.isRevoked('b');
    lookups[0].fail(new Error('Neo4j is down'));
    await expect(first).rejects.toThrow('Neo4j is down');
    await settle();
    lookups[1].finish();
    expect(await second).toBe(false);
    // Idle again: a new check starts a lookup at once.
    const third = checks.isRevoked('c');
    await settle();
    expect(lookups).toHaveLength(3);
    lookups[2].finish();
    expect(await third).toBe(false);
  });
});
