import { KnownStates } from '../../src/services/write-path/known-states';
import { lockRequests, planLocked, type LockedEntity, type WriteItem } from '../../src/services/write-path/plan';

const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';
const upsert = (name: string, value: string, owners: string[] = [], retention = 20): Extract<WriteItem, { kind: 'upsert' }> => ({
  kind: 'upsert',
  urn,
  entityType: 'dataset',
  name,
  actor: 'urn:li:corpuser:a',
  now: 1_000,
  systemMetadata: '{}',
  retention,
  defaults: [{ name: 'datasetKey', value: () => ({ value: '{"name":"db.t"}', hash: 'k', edges: [] }) }],
  projected: { value, hash: `h:${value}`, edges: owners.map((o) => ({ type: 'OwnedBy', target: `urn:li:corpuser:${o}`, targetType: 'corpuser', isLineage: false })) },
});
const created = (rev = 7): Map<string, LockedEntity> => new Map([[urn, { urn, node: 'n1', rev, previousRev: null, created: true, placeholder: false, aspects: [] }]]);

/** Commits `units` planned from `locked` into `known`, as the write path does after a commit. */
function commit(known: KnownStates, units: WriteItem[][], locked: Map<string, LockedEntity>): void {
  const requests = known.wholeReads(lockRequests(units), units);
  known.committed(requests, locked, planLocked(units)(locked).result.states);
}

describe('known entity states', () => {
  it('reads an upsert-only entity it does not know whole, and no other', () => {
    const known = new KnownStates(1 << 20);
    const units = [[upsert('ownership', 'a')]];
    const [whole] = known.wholeReads(lockRequests(units), units);
    expect(whole).toMatchObject({ all: true, names: ['ownership'] });
    expect(whole.columns).toContain('upstreamLineage');
    const deletes: WriteItem[][] = [[upsert('ownership', 'a'), { kind: 'deleteAspect', urn, entityType: 'dataset', name: 'status' }]];
    expect(known.wholeReads(lockRequests(deletes), deletes)[0].all).toBe(false);
    expect(new KnownStates(0).wholeReads(lockRequests(units), units)[0].all).toBe(false);
  });

  it('plans the next write of an entity it created as the lock would have read it', () => {
    const known = new KnownStates(1 << 20);
    commit(known, [[upsert('ownership', 'a', ['x', 'y'])]], created(7));
    const next = [[upsert('ownership', 'b', ['y'])]];
    const fromKnown = known.planFor(lockRequests(next), next, 1_000)!;
    expect(fromKnown.known).toEqual([{ urn, node: 'n1', rev: 7, next: 1_000_000 }]);
    const entity = fromKnown.locked.get(urn)!;
    expect(entity).toMatchObject({ previousRev: 7, rev: 1_000_000, created: false, placeholder: false });
    expect(entity.aspects.map((a) => [a.name, a.hash, a.top, a.history, a.edges])).toEqual([
      ['ownership', 'h:a', 0, 0, ['OwnedBy|urn:li:corpuser:x', 'OwnedBy|urn:li:corpuser:y']],
      ['datasetKey', 'k', 0, 0, []],
    ]);
    // Planned from it: the old value becomes history version 1, one edge goes.
    const { plan } = planLocked(next)(fromKnown.locked);
    expect(plan.copies).toEqual([{ urn, node: 'n1', name: 'ownership', copy: 1, copySystemMetadata: null }]);
    expect(plan.removeEdges).toEqual([{ urn, node: 'n1', aspect: 'ownership', type: 'OwnedBy', target: 'urn:li:corpuser:x' }]);
    expect(plan.createEdges).toEqual([]);
    commit(known, next, fromKnown.locked);
    const third = known.planFor(lockRequests(next), next, 1_000)!.locked.get(urn)!;
    expect(third.previousRev).toBe(1_000_000);
    expect(third.aspects.find((a) => a.name === 'ownership')).toMatchObject({ hash: 'h:b', top: 1, history: 1, edges: ['OwnedBy|urn:li:corpuser:y'] });
  });

  it('counts history after a retention cut', () => {
    const known = new KnownStates(1 << 20);
    commit(known, [[upsert('ownership', 'v0', [], 2)]], created());
    for (let v = 1; v <= 4; v++) {
      const units = [[upsert('ownership', `v${v}`, [], 2)]];
      commit(known, units, known.planFor(lockRequests(units), units, 1_000)!.locked);
    }
    const units = [[upsert('ownership', 'v5', [], 2)]];
    // Versions 1..4 were written, retention 2 keeps 3 and 4.
    expect(known.planFor(lockRequests(units), units, 1_000)!.locked.get(urn)!.aspects[0]).toMatchObject({ hash: 'h:v4', top: 4, history: 2 });
  });

  it('does not plan patches, deletes or entities it does not know; forgets what a delete or a stale rev leaves', () => {
    const known = new KnownStates(1 << 20);
    const units = [[upsert('ownership', 'a')]];
    expect(known.planFor(lockRequests(units), units, 1_000)).toBeNull();
    commit(known, units, created());
    const patch = [[{ ...upsert('ownership', 'b'), patch: () => ({}) }]];
    expect(known.planFor(lockRequests(patch), patch, 1_000)).toBeNull();
    const deletes: WriteItem[][] = [[{ kind: 'deleteAspect', urn, entityType: 'dataset', name: 'ownership' }]];
    expect(known.planFor(lockRequests(deletes), deletes, 1_000)).toBeNull();
    // The delete, locked (not read whole): what it leaves is not kept.
    const locked = new Map([[urn, { urn, node: 'n1', rev: 9, previousRev: 7, created: false, placeholder: false, aspects: [] }]]);
    commit(known, deletes, locked);
    expect(known.planFor(lockRequests(units), units, 1_000)).toBeNull();
    // A partial read of an entity whose rev moved on elsewhere is not kept either.
    commit(known, units, created(11));
    commit(known, units, new Map([[urn, { ...locked.get(urn)!, rev: 20, previousRev: 15 }]]));
    expect(known.size).toBe(0);
  });

  it('keeps at most its size, forgetting the least recently written', () => {
    // Two tags' packed states (~63 bytes each with their urns), not three.
    const known = new KnownStates(140);
    const write = (n: number) => {
      const item = { ...upsert('ownership', 'a'), urn: `urn:li:tag:t${n}`, entityType: 'tag', defaults: [] };
      commit(known, [[item]], new Map([[item.urn, { urn: item.urn, node: `n${n}`, rev: 1, previousRev: null, created: true, placeholder: false, aspects: [] }]]));
      return [[item]];
    };
    const first = write(1);
    write(2);
    write(3);
    expect(known.size).toBe(2);
    expect(known.planFor(lockRequests(first), first, 1_000)).toBeNull();
  });
});
