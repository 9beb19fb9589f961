import { deleteEntities, enc, startTestService, uniqueId, type TestService } from '../support/service';
import { proposal } from '../support/samples';

/** Every malformed request gets the documented status and JSON error, and changes nothing that is stored. */
describe('bad input', () => {
  let svc: TestService;
  const id = uniqueId();
  const tag = `urn:li:tag:bad_${id}`;
  const dataset = `urn:li:dataset:(urn:li:dataPlatform:hive,bad_${id},PROD)`;
  let before: string;

  async function snapshot(): Promise<string> {
    const res = await svc.graph.driver.executeQuery(
      `MATCH (a:Aspect) WHERE a.urn IN $urns RETURN a.urn AS urn, a.name AS name, a.version AS v, a.hash AS h ORDER BY urn, name, v`,
      { urns: [tag, dataset] },
      { database: 'neo4j' },
    );
    const edges = await svc.graph.driver.executeQuery(
      `MATCH (e:Entity)-[r]->(t:Entity) WHERE e.urn IN $urns RETURN e.urn AS s, type(r) AS t, t.urn AS o ORDER BY s, t, o`,
      { urns: [tag, dataset] },
      { database: 'neo4j' },
    );
    return JSON.stringify([res.records.map((r) => r.toObject()), edges.records.map((r) => r.toObject())]);
  }

  beforeAll(async () => {
    svc = await startTestService();
    await svc.call('POST', '/aspects?action=ingestProposal', proposal(tag, 'tagProperties', { name: 'bad', description: 'kept' }));
    await svc.call('POST', '/aspects?action=ingestProposal', proposal(dataset, 'ownership', { owners: [{ owner: 'urn:li:corpuser:keep', type: 'DATAOWNER' }] }));
    before = await snapshot();
  });
  afterAll(async () => {
    await deleteEntities(svc.call, [tag, dataset]);
    await svc.close();
  });

  const ingest = (p: unknown) => ['POST', '/aspects?action=ingestProposal', p] as const;
  const withProposal = (patch: Record<string, unknown>) => ({ proposal: { ...proposal(tag, 'tagProperties', { name: 'x' }).proposal, ...patch } });
  const snap = (value: unknown) => ['POST', '/entities?action=ingest', { entity: { value } }] as const;

  const cases: [string, readonly [string, string, unknown?], number][] = [
    ['malformed JSON', ['POST', '/aspects?action=ingestProposal', '{"proposal":'], 400],
    ['JSON array body', ['POST', '/aspects?action=ingestProposal', '[1,2]'], 400],
    ['missing proposal', ingest({}), 400],
    ['proposal is a string', ingest({ proposal: 'x' }), 400],
    ['missing entityUrn', ingest(withProposal({ entityUrn: undefined })), 400],
    ['entityUrn not a urn', ingest(withProposal({ entityUrn: 'tag:x' })), 400],
    ['entityUrn with unbalanced parentheses', ingest(withProposal({ entityUrn: 'urn:li:dataset:(a,b', entityType: 'dataset' })), 400],
    ['unknown entity type in urn', ingest(withProposal({ entityUrn: 'urn:li:spaceship:x', entityType: 'spaceship' })), 400],
    ['wrong namespace', ingest(withProposal({ entityUrn: 'urn:xx:tag:x' })), 400],
    ['dataset urn with two parts', ingest(withProposal({ entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,x)', entityType: 'dataset', aspectName: 'status' })), 400],
    ['dataset urn with bad origin', ingest(withProposal({ entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,x,MARS)', entityType: 'dataset', aspectName: 'status' })), 400],
    ['dataset urn whose platform is not a urn', ingest(withProposal({ entityUrn: 'urn:li:dataset:(hive,x,PROD)', entityType: 'dataset', aspectName: 'status' })), 400],
    ['entityType disagrees with urn', ingest(withProposal({ entityType: 'dataset' })), 422],
    ['unknown changeType', ingest(withProposal({ changeType: 'PATCHY' })), 400],
    ['missing aspectName', ingest(withProposal({ aspectName: undefined })), 400],
    ['unknown aspect', ingest(withProposal({ aspectName: 'warpDrive' })), 422],
    ['aspect of another entity type', ingest(withProposal({ aspectName: 'schemaMetadata' })), 422],
    ['aspect missing', ingest(withProposal({ aspect: undefined })), 400],
    ['aspect.value not a string', ingest(withProposal({ aspect: { value: { name: 'x' }, contentType: 'application/json' } })), 400],
    ['aspect.value not JSON', ingest(withProposal({ aspect: { value: '{name:', contentType: 'application/json' } })), 400],
    ['unsupported contentType', ingest(withProposal({ aspect: { value: '{}', contentType: 'text/xml' } })), 400],
    ['aspect value is an array', ingest(withProposal({ aspect: { value: '[]', contentType: 'application/json' } })), 422],
    ['wrong type of a known field', ingest(withProposal({ aspect: { value: '{"name": 5}', contentType: 'application/json' } })), 422],
    ['missing required field', ingest(withProposal({ aspect: { value: '{"description": "no name"}', contentType: 'application/json' } })), 422],
    ['status.removed not boolean', ingest(withProposal({ aspectName: 'status', aspect: { value: '{"removed":"yes"}', contentType: 'application/json' } })), 422],
    ['owner not a urn', ingest(proposal(dataset, 'ownership', { owners: [{ owner: 'jdoe', type: 'DATAOWNER' }] })), 422],
    ['owner of a wrong entity type', ingest(proposal(dataset, 'ownership', { owners: [{ owner: 'urn:li:tag:x', type: 'DATAOWNER' }] })), 422],
    ['unknown ownership type', ingest(proposal(dataset, 'ownership', { owners: [{ owner: 'urn:li:corpuser:x', type: 'OVERLORD' }] })), 422],
    ['key aspect not matching urn', ingest(withProposal({ aspectName: 'tagKey', aspect: { value: '{"name":"other"}', contentType: 'application/json' } })), 422],
    ['systemMetadata not JSON', ingest(withProposal({ systemMetadata: '{oops' })), 400],
    ['unknown action', ['POST', '/aspects?action=teleport', {}], 400],
    ['missing action', ['POST', '/aspects', {}], 400],
    ['batch with proposals not a list', ['POST', '/aspects?action=ingestProposalBatch', { proposals: 'x' }], 400],
    ['batch with one invalid proposal', ['POST', '/aspects?action=ingestProposalBatch', { proposals: [withProposal({}).proposal, withProposal({ entityUrn: 'nope' }).proposal] }], 400],
    ['snapshot: missing entity', snap(undefined), 400],
    ['snapshot: two snapshots', snap({ 'com.linkedin.metadata.snapshot.TagSnapshot': {}, 'com.linkedin.metadata.snapshot.ChartSnapshot': {} }), 400],
    ['snapshot: unknown snapshot type', snap({ 'com.linkedin.metadata.snapshot.ShipSnapshot': { urn: tag, aspects: [] } }), 400],
    ['snapshot: urn of another type', snap({ TagSnapshot: { urn: dataset, aspects: [] } }), 422],
    ['snapshot: aspects not a list', snap({ TagSnapshot: { urn: tag, aspects: {} } }), 400],
    ['snapshot: aspect member with two keys', snap({ TagSnapshot: { urn: tag, aspects: [{ a: {}, b: {} }] } }), 400],
    ['snapshot: unknown aspect record', snap({ TagSnapshot: { urn: tag, aspects: [{ 'com.linkedin.common.Nope': {} }] } }), 422],
    ['snapshot: aspect invalid', snap({ TagSnapshot: { urn: tag, aspects: [{ TagProperties: { name: ['x'] } }] } }), 422],
    ['snapshot: one invalid aspect rejects all', snap({ TagSnapshot: { urn: tag, aspects: [{ TagProperties: { name: 'changed' } }, { Status: { removed: 1 } }] } }), 422],
    ['delete: bad urn', ['POST', '/entities?action=delete', { urn: 'nope' }], 400],
    ['delete: urn not a string', ['POST', '/entities?action=delete', { urn: 5 }], 400],
    ['DELETE of a time-series aspect', ingest(proposal(dataset, 'datasetProfile', null, 'DELETE')), 400],
    ['entitiesV2: bad urn', ['GET', `/entitiesV2/${enc('urn:li:dataset:(x')}`], 400],
    ['entitiesV2: unknown aspect', ['GET', `/entitiesV2/${enc(tag)}?aspects=List(nope)`], 422],
    ['entities: bad urn', ['GET', `/entities/${enc('nope')}`], 400],
    ['aspects: missing aspect parameter', ['GET', `/aspects/${enc(tag)}?version=0`], 400],
    ['aspects: version not an integer', ['GET', `/aspects/${enc(tag)}?aspect=tagProperties&version=abc`], 400],
    ['aspects: version fraction', ['GET', `/aspects/${enc(tag)}?aspect=tagProperties&version=1.5`], 400],
    ['aspects: unknown aspect', ['GET', `/aspects/${enc(tag)}?aspect=nope&version=0`], 422],
    ['aspects: missing version', ['GET', `/aspects/${enc(tag)}?aspect=tagProperties&version=99`], 404],
    ['relationships: bad direction', ['GET', `/relationships?direction=SIDEWAYS&urn=${enc(tag)}&types=OwnedBy`], 400],
    ['relationships: missing urn', ['GET', `/relationships?direction=INCOMING&types=OwnedBy`], 400],
    ['relationships: bad urn', ['GET', `/relationships?direction=INCOMING&urn=nope&types=OwnedBy`], 400],
    ['relationships: negative start', ['GET', `/relationships?direction=INCOMING&urn=${enc(tag)}&types=OwnedBy&start=-1`], 400],
    ['relationships: count too big', ['GET', `/relationships?direction=INCOMING&urn=${enc(tag)}&types=OwnedBy&count=100000`], 400],
    ['relationships: type with Cypher in it', ['GET', `/relationships?direction=INCOMING&urn=${enc(tag)}&types=${enc('OwnedBy]->() DETACH DELETE n//')}`], 400],
    ['unknown path', ['GET', '/nothing-here'], 404],
    ['wrong method', ['PUT', '/aspects?action=ingestProposal', {}], 405],
  ];

  it(`has at least 40 cases (${cases.length})`, () => expect(cases.length).toBeGreaterThanOrEqual(40));

  it.each(cases)('%s → %i', async (_label, [method, path, body], expected) => {
    const res = await svc.call(method, path, body);
    expect(res.status).toBe(expected);
    expect(res.body).toEqual({ status: expected, message: expect.any(String), exceptionClass: expect.any(String) });
    expect(res.body.message).not.toMatch(/MATCH \(|MERGE \(|Neo4jError|ConstraintValidation|\.ts:\d|at Object/);
  });

  it('changed nothing that is stored', async () => {
    expect(await snapshot()).toBe(before);
  });
});
