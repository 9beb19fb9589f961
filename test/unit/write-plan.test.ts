import { PreconditionFailedError } from '../../src/model/errors';
import type { WriteCondition } from '../../src/services/write-path/conditions';
import { applyParameters, lockRequests, planGroup, planLocked, type LockedEntity, type WriteItem } from '../../src/services/write-path/plan';

const urn = 'urn:li:tag:t';
const upsert = (value: string, edges: string[] = [], now = 1): Extract<WriteItem, { kind: 'upsert' }> => ({
  kind: 'upsert',
  urn,
  entityType: 'tag',
  name: 'tagProperties',
  actor: 'urn:li:corpuser:a',
  now,
  systemMetadata: `{"v":"${value}"}`,
  retention: 2,
  defaults: [{ name: 'tagKey', value: () => ({ value: '{"name":"t"}', hash: 'k', edges: [] }) }],
  projected: { value, hash: `h${value}`, edges: edges.map((target) => ({ type: 'OwnedBy', target, targetType: 'corpuser', isLineage: false })) },
});
const stored = (aspects: LockedEntity['aspects']): Map<string, LockedEntity> => new Map([[urn, { urn, node: 'n1', rev: 1, previousRev: 0, created: false, placeholder: false, aspects }]]);

describe('write group planning', () => {
  describe('conditional writes (CREATE, CREATE_ENTITY, If-None-Match, If-Version-Match)', () => {
    const tagProperties = { name: 'tagProperties', hash: 'hs', top: 4, history: 2, value: null, edges: [], columnEdges: [] };
    const tagKey = { name: 'tagKey', hash: 'k', top: 0, history: 0, value: null, edges: [], columnEdges: [] };
    const conditioned = (value: string, condition: Partial<WriteCondition>): Extract<WriteItem, { kind: 'upsert' }> => ({
      ...upsert(value),
      condition: { create: null, dropIfPresent: false, version: null, keyAspect: 'tagKey', ...condition },
    });
    const latest = (plan: ReturnType<typeof planGroup>['plan']) => plan.rows.filter((r) => r.name === 'tagProperties').map((r) => [r.latest?.value, r.systemMetadata]);

    it('CREATE writes an absent aspect, is refused when it is present, and dropped with If-None-Match: *', () => {
      const absent = planGroup([[conditioned('a', { create: 'aspect' })]], stored([tagKey]));
      expect(latest(absent.plan)).toEqual([['a', '{"v":"a","version":"1"}']]);
      const refused = planGroup([[conditioned('a', { create: 'aspect' })], [upsert('b')]], stored([tagKey, tagProperties]));
      expect(String(refused.failed.get(0))).toMatch(/Cannot perform CREATE since the aspect already exists/);
      expect(latest(refused.plan)).toEqual([['b', '{"v":"b","version":"6"}']]);
      const dropped = planGroup([[conditioned('a', { create: 'aspect', dropIfPresent: true })]], stored([tagKey, tagProperties]));
      expect([dropped.failed.size, dropped.outcomes, dropped.plan.rows]).toEqual([0, [[{ unchanged: true, rows: 0 }]], []]);
      // Present as an earlier request of the same group leaves it.
      const sameGroup = planGroup([[upsert('b')], [conditioned('a', { create: 'aspect', dropIfPresent: true })]], stored([tagKey]));
      expect(latest(sameGroup.plan)).toEqual([['b', '{"v":"b","version":"1"}']]);
    });

    it('CREATE_ENTITY looks for the key aspect, which it asks the lock for', () => {
      const [request] = lockRequests([[{ ...conditioned('a', { create: 'entity' }), defaults: [] }]]);
      expect(request.present).toEqual(['tagKey']);
      expect(String(planGroup([[conditioned('a', { create: 'entity' })]], stored([tagKey])).failed.get(0))).toMatch(/CREATE_ENTITY/);
      expect(planGroup([[conditioned('a', { create: 'entity', dropIfPresent: true })]], stored([tagKey])).plan.rows).toEqual([]);
      expect(latest(planGroup([[conditioned('a', { create: 'entity' })]], stored([])).plan)).toEqual([['a', '{"v":"a","version":"1"}']]);
    });

    it('If-Version-Match compares the version the aspect has ("-1": absent) and refuses the request on a mismatch', () => {
      expect(latest(planGroup([[conditioned('a', { version: '5' })]], stored([tagProperties])).plan)).toEqual([['a', '{"v":"a","version":"6"}']]);
      const stale = planGroup([[conditioned('a', { version: '4' })]], stored([tagProperties]));
      expect(stale.failed.get(0)).toBeInstanceOf(PreconditionFailedError);
      expect(String(stale.failed.get(0))).toMatch(/Expected version 4, actual version 5/);
      expect(latest(planGroup([[conditioned('a', { version: '-1' })]], stored([])).plan)).toEqual([['a', '{"v":"a","version":"1"}']]);
      expect(planGroup([[conditioned('a', { version: '1' })]], stored([])).failed.size).toBe(1);
      // A CREATE's aspect is unversioned: only -1 matches.
      expect(planGroup([[conditioned('a', { create: 'aspect', version: '-1' })]], stored([])).failed.size).toBe(0);
    });
  });

  it('locks each entity once, sorted, with every aspect it reads', () => {
    const reqs = lockRequests([[{ ...upsert('a'), urn: 'urn:li:tag:z' }], [upsert('b'), { kind: 'deleteAspect', urn, entityType: 'tag', name: 'x' }]]);
    // Defaults are only checked for (`present`: no history read), unless the group also writes them.
    expect(reqs.map((r) => [r.urn, r.create, r.names, r.present])).toEqual([
      [urn, true, ['tagProperties', 'x'], ['tagKey']],
      ['urn:li:tag:z', true, ['tagProperties'], ['tagKey']],
    ]);
    const key = { ...upsert('k'), name: 'tagKey', defaults: [] };
    const [both] = lockRequests([[upsert('a')], [key]]);
    expect([both.names, both.present]).toEqual([['tagProperties', 'tagKey'], []]);
  });

  it('counts history only for aspects whose versions the group writes, not for a reprojection alone', () => {
    const reproject: WriteItem = { kind: 'reproject', urn, entityType: 'tag', name: 'tagProperties', expectedHash: 'h', projected: { edges: [] } };
    const alone = lockRequests([[reproject], [{ ...reproject, name: 'ownership' }]]);
    expect(alone.map((r) => [r.names, r.history, r.create])).toEqual([[['tagProperties', 'ownership'], [], false]]);
    // Beside a write of the same aspect (another request in the same group), its versions are counted.
    const [beside] = lockRequests([[reproject], [upsert('a')], [{ kind: 'deleteAspect', urn, entityType: 'tag', name: 'x' }]]);
    expect([beside.names, beside.history]).toEqual([['tagProperties', 'x'], ['tagProperties', 'x']]);
  });

  it('sends a new edge as its source node and target position only (the urns it was sorted by stay behind)', () => {
    const locked = stored([{ name: 'tagKey', hash: 'k', top: 0, history: 0, value: null, edges: [], columnEdges: [] }]);
    const { plan } = planLocked([[upsert('a', ['u2', 'u1'])]])(locked);
    expect(plan.createEdges).toEqual([
      { node: 'n1', aspect: 'tagProperties', type: 'OwnedBy', t: 0, isLineage: false },
      { node: 'n1', aspect: 'tagProperties', type: 'OwnedBy', t: 1, isLineage: false },
    ]);
    expect(plan.targets).toEqual([{ urn: 'u1', type: 'corpuser' }, { urn: 'u2', type: 'corpuser' }]);
    const columns = applyParameters({ ...planGroup([], locked).plan, createColumnEdges: [{ owner: urn, aspect: 'a', source: 'f1', target: 'f2', s: 0, t: 1 }] });
    expect(columns.createColumnEdges).toEqual([{ owner: urn, aspect: 'a', s: 0, t: 1 }]);
  });

  it('orders new edges by target, then source urn, and column edges by target, then source field (one lock order)', () => {
    const entity = (u: string, node: string): [string, LockedEntity] => [u, { urn: u, node, rev: 1, previousRev: 0, created: false, placeholder: false, aspects: [] }];
    const locked = new Map([entity('urn:li:tag:b', 'nb'), entity('urn:li:tag:a', 'na'), entity('urn:li:tag:c', 'nc')]);
    const columns = (u: string, pairs: [string, string][]) => pairs.map(([source, target]) => ({ source: `${u}.${source}`, target }));
    const write = (u: string, targets: string[], columnEdges: { source: string; target: string }[] = []): WriteItem => ({
      ...upsert(u),
      urn: u,
      projected: { value: u, hash: `h${u}`, edges: targets.map((target) => ({ type: 'OwnedBy', target, targetType: 'corpuser', isLineage: false })), columnEdges },
    });
    const { plan } = planGroup(
      [[write('urn:li:tag:c', ['u2', 'u1'], columns('c', [['f', 'x2'], ['f', 'x1']]))], [write('urn:li:tag:a', ['u2'], columns('a', [['f', 'x2']]))], [write('urn:li:tag:b', ['u1', 'u3'])]],
      locked,
    );
    expect(plan.createEdges.map((e) => `${e.target}<-${e.urn}`)).toEqual(['u1<-urn:li:tag:b', 'u1<-urn:li:tag:c', 'u2<-urn:li:tag:a', 'u2<-urn:li:tag:c', 'u3<-urn:li:tag:b']);
    expect(plan.createColumnEdges.map((e) => `${e.target}<-${e.source}`)).toEqual(['x1<-c.f', 'x2<-a.f', 'x2<-c.f']);
    expect(plan.createEdges.every((e) => plan.targets[e.t].urn === e.target)).toBe(true);
  });

  it("gives apply's entity stage a row only for an entity it has something to do to", () => {
    const other = 'urn:li:tag:u';
    const tagProperties = { name: 'tagProperties', hash: 'ha', top: 0, history: 0, value: null, edges: [], columnEdges: [] };
    const reproject = (target: string): WriteItem => ({ kind: 'reproject', urn: target, entityType: 'tag', name: 'tagProperties', expectedHash: 'ha', projected: { edges: [{ type: 'OwnedBy', target: 'u1', targetType: 'corpuser', isLineage: false }] } });
    const two = new Map([...stored([tagProperties]), [other, { ...stored([tagProperties]).get(urn)!, urn: other, node: 'n2' }]]);
    const rows = (plan: { entities: { urn: string; changed: boolean; wiped: boolean; removed: boolean | null }[] }) => plan.entities.map(({ urn, changed, wiped, removed }) => ({ urn, changed, wiped, removed }));
    // Reprojections rewrite edges and change nothing of their entities: their edges go, no entity row.
    const reprojected = planGroup([[reproject(urn), reproject(other)]], two).plan;
    expect(reprojected.createEdges.length).toBe(2);
    expect(rows(reprojected)).toEqual([]);
    // Beside a change, only the changed entity has a row.
    expect(rows(planGroup([[reproject(urn), { ...upsert('b'), urn: other }]], two).plan)).toEqual([{ urn: other, changed: true, wiped: false, removed: null }]);
    // The same value again (a re-run): no row either.
    expect(rows(planGroup([[{ ...upsert('a'), projected: { value: 'a', hash: 'ha', edges: [] } }]], stored([tagProperties])).plan)).toEqual([]);
    // A placeholder flag left on an entity that has aspects is cleared.
    const flagged = new Map([...two, [other, { ...two.get(other)!, placeholder: true }]]);
    expect(planGroup([[reproject(urn), reproject(other)]], flagged).plan.entities.map((e) => [e.urn, e.hasAspects])).toEqual([[other, true]]);
    // A created entity keeps its row.
    expect(rows(planGroup([[upsert('b')]], new Map([[urn, { ...stored([]).get(urn)!, created: true }]])).plan)).toEqual([{ urn, changed: true, wiped: true, removed: null }]);
  });

  it("gives each of apply's aspect and entity stages only the rows it has work for", () => {
    const locked = stored([{ name: 'tagProperties', hash: 'hs', top: 4, history: 2, value: null, edges: [], columnEdges: [] }]);
    // One aspect with history to write and trim; the entity's key aspect created beside it.
    const params = applyParameters(planGroup([[upsert('a')], [upsert('b')]], locked).plan);
    const names = (stage: string) => (params[stage] as { name: string }[]).map((r) => r.name);
    expect(names('copies')).toEqual(['tagProperties']);
    expect(names('histories')).toEqual(['tagProperties']);
    expect(names('cuts')).toEqual(['tagProperties']);
    expect(names('updateLatest')).toEqual(['tagProperties']);
    expect(names('createLatest')).toEqual(['tagKey']);
    expect([params.drops, params.horizons]).toEqual([[], []]);
    expect(params.outbox).toEqual([{ urn, node: 'n1', markers: [] }]);
    expect([params.unplaceholders, params.softDeletes, params.orphans]).toEqual([[], [], []]);
    // A first write of a new aspect: only its latest value is created; no history stage gets a row.
    const first = applyParameters(planGroup([[upsert('a')]], stored([{ name: 'tagKey', hash: 'k', top: 0, history: 0, value: null, edges: [], columnEdges: [] }])).plan);
    expect(['drops', 'copies', 'histories', 'cuts', 'horizons', 'updateLatest'].map((stage) => first[stage].length)).toEqual([0, 0, 0, 0, 0, 0]);
    expect((first.createLatest as { name: string; urn: string }[]).map((r) => [r.urn, r.name])).toEqual([[urn, 'tagProperties']]);
    // A placeholder that gets aspects is cleared; one that stays without them is not.
    const placeholder = new Map([[urn, { ...stored([]).get(urn)!, placeholder: true }]]);
    expect(applyParameters(planGroup([[upsert('a')]], placeholder).plan).unplaceholders).toEqual([{ node: 'n1' }]);
  });

  it('gives each of several writes to one aspect its own version, keeps retention and diffs edges once', () => {
    const locked = stored([
      { name: 'tagProperties', hash: 'hs', top: 4, history: 2, value: null, edges: ['OwnedBy|u1', 'OwnedBy|u2'], columnEdges: [] },
      { name: 'tagKey', hash: 'k', top: 0, history: 0, value: null, edges: [], columnEdges: [] },
    ]);
    const { plan, outcomes } = planGroup([[upsert('a', ['u1'])], [upsert('b', ['u1', 'u3'])], [upsert('b', ['u1', 'u3'])], [upsert('c', ['u3'])]], locked);
    expect(outcomes.map((o) => o![0].unchanged)).toEqual([false, false, true, false]);
    const row = plan.rows.find((r) => r.name === 'tagProperties')!;
    // stored latest -> 5, a -> 6, b -> 7; latest c; retention 2 keeps 6 and 7.
    expect(row.copy).toBeNull();
    expect(row.history.map((h) => [h.version, h.value])).toEqual([[6, 'a'], [7, 'b']]);
    // Each value is stored with its version (DataHub's systemMetadata.version): a history version's number.
    expect(row.history[1].systemMetadata).toBe('{"v":"b","version":"7"}');
    expect(row.cut).toBe(5);
    expect(row.latest?.value).toBe('c');
    expect(plan.removeEdges.map((e) => e.target).sort()).toEqual(['u1', 'u2']);
    expect(plan.createEdges.map((e) => [e.node, e.target, e.t])).toEqual([['n1', 'u3', 0]]);
    expect(plan.targets).toEqual([{ urn: 'u3', type: 'corpuser' }]);
    expect(plan.rows.every((r) => r.node === 'n1')).toBe(true);
    expect(plan.rows.some((r) => r.name === 'tagKey')).toBe(false);
  });

  it('leaves out a unit whose patch throws, and only that unit', () => {
    const bad: WriteItem = { ...upsert('x'), projected: undefined, patch: () => { throw new Error('no'); } };
    const { outcomes, failed, plan } = planGroup([[upsert('a')], [bad], [upsert('b')]], stored([]));
    expect(failed.get(1)).toBeInstanceOf(Error);
    expect(outcomes[1]).toBeNull();
    expect(plan.rows.find((r) => r.name === 'tagProperties')!.latest?.value).toBe('b');
  });

  it("reports each changed entity's new latest values and deleted aspects, for the indexer", () => {
    const withParsed = (value: string) => ({ ...upsert(value), projected: { ...upsert(value).projected!, parsed: { v: value } } });
    const other = 'urn:li:tag:o';
    const locked = new Map([
      ...stored([
        { name: 'tagProperties', hash: 'ha', top: 0, history: 0, value: null, edges: [], columnEdges: [] },
        { name: 'tagKey', hash: 'k', top: 0, history: 0, value: null, edges: [], columnEdges: [] },
        { name: 'ownership', hash: 'ho', top: 0, history: 0, value: null, edges: [], columnEdges: [] },
      ]),
      [other, { urn: other, node: 'n2', rev: 1, previousRev: 0, created: false, placeholder: false, aspects: [{ name: 'tagProperties', hash: 'ha', top: 0, history: 0, value: null, edges: [], columnEdges: [] }] }],
    ]);
    const { writes } = planGroup(
      [
        [{ kind: 'deleteAspect', urn, entityType: 'tag', name: 'tagProperties' }, { kind: 'deleteAspect', urn, entityType: 'tag', name: 'ownership' }],
        [withParsed('b')],
        // Same value as stored: nothing changes for this entity.
        [{ ...withParsed('a'), urn: other }],
      ],
      locked,
    );
    expect(writes).toEqual([{ urn, entityType: 'tag', wipedAll: false, removed: ['ownership'], set: [['tagProperties', { v: 'b' }]] }]);
  });
});

describe('the soft-delete flag in a write plan', () => {
  const status = (removed: boolean): Extract<WriteItem, { kind: 'upsert' }> => ({
    ...upsert(''),
    name: 'status',
    defaults: [],
    projected: { value: JSON.stringify({ removed }), hash: `s${removed}`, parsed: { removed }, edges: [] },
  });
  const flag = (units: WriteItem[][], aspects: LockedEntity['aspects'] = []) => planGroup(units, stored(aspects)).plan.entities[0]?.removed ?? null;
  const storedStatus = { name: 'status', hash: 'strue', top: 1, history: 1, value: null, edges: [], columnEdges: [] };
  const survivor = (removed: boolean) => ({ version: 1, projected: { value: JSON.stringify({ removed }), hash: `s${removed}`, edges: [] }, createdTime: 0, createdActor: 'urn:li:corpuser:a', systemMetadata: '{}' });

  it('follows the status the group leaves: written, deleted, reverted; untouched when the group does not change it', () => {
    expect(flag([[status(true)]])).toBe(true);
    expect(flag([[status(true)], [status(false)]])).toBe(false);
    expect(flag([[upsert('a')]])).toBeNull();
    expect(flag([[{ kind: 'deleteAspect', urn, entityType: 'tag', name: 'status' }]], [storedStatus])).toBe(false);
    expect(flag([[{ kind: 'deleteEntity', urn, entityType: 'tag' }]], [storedStatus])).toBe(false);
    expect(flag([[{ kind: 'revert', urn, entityType: 'tag', name: 'status', expectedHash: 'strue', survivor: survivor(false), drop: [1] }]], [storedStatus])).toBe(false);
    expect(flag([[{ kind: 'revert', urn, entityType: 'tag', name: 'status', expectedHash: 'strue', survivor: null, drop: [] }]], [storedStatus])).toBe(false);
    // The same value again only moves its system metadata: the flag stays as it is.
    expect(flag([[status(true)]], [storedStatus])).toBeNull();
  });
});

describe('column-level lineage in a write plan', () => {
  const field = (dataset: string, name: string) => `urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,${dataset},PROD),${name})`;
  const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,down,PROD)';
  const lineage = (value: string, pairs: [string, string][]): Extract<WriteItem, { kind: 'upsert' }> => ({
    kind: 'upsert',
    urn,
    entityType: 'dataset',
    name: 'upstreamLineage',
    actor: 'urn:li:corpuser:a',
    now: 1,
    systemMetadata: '{}',
    retention: 5,
    defaults: [],
    projected: { value, hash: value, edges: [], columnEdges: pairs.map(([source, target]) => ({ source, target })) },
  });

  it('asks the lock for the owned column edges of lineage aspects only', () => {
    const [req] = lockRequests([[lineage('a', []), { ...lineage('b', []), name: 'datasetProperties' }]]);
    expect(req.columns).toEqual(['upstreamLineage']);
  });

  it('creates new column edges with placeholders for both fields and removes the ones no longer declared', () => {
    const kept = `${field('down', 'a')}|${field('up', 'a')}`;
    const dropped = `${field('down', 'b')}|${field('up', 'b')}`;
    const locked = new Map([[urn, { urn, node: 'n1', rev: 1, previousRev: 0, created: false, placeholder: false, aspects: [{ name: 'upstreamLineage', hash: 'old', top: 0, history: 0, value: null, edges: [], columnEdges: [kept, dropped] }] }]]);
    const { plan } = planGroup([[lineage('new', [[field('down', 'a'), field('up', 'a')], [field('down', 'c'), field('up', 'c')]])]], locked);
    expect(plan.removeColumnEdges).toEqual([{ owner: urn, aspect: 'upstreamLineage', source: field('down', 'b'), target: field('up', 'b') }]);
    // s and t: the positions of source and target in `targets`, where apply finds their nodes.
    expect(plan.createColumnEdges).toEqual([{ owner: urn, aspect: 'upstreamLineage', source: field('down', 'c'), target: field('up', 'c'), s: 0, t: 1 }]);
    expect(plan.targets).toEqual([
      { urn: field('down', 'c'), type: 'schemaField' },
      { urn: field('up', 'c'), type: 'schemaField' },
    ]);
  });

  it('leaves column edges alone when the value is unchanged', () => {
    const edge = `${field('down', 'a')}|${field('up', 'a')}`;
    const locked = new Map([[urn, { urn, node: 'n1', rev: 1, previousRev: 0, created: false, placeholder: false, aspects: [{ name: 'upstreamLineage', hash: 'same', top: 0, history: 0, value: null, edges: [], columnEdges: [edge] }] }]]);
    const { plan } = planGroup([[lineage('same', [[field('down', 'a'), field('up', 'a')]])]], locked);
    expect(plan.removeColumnEdges).toEqual([]);
    expect(plan.createColumnEdges).toEqual([]);
  });
});
