import { enc, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * DataHub's OpenAPI v2 entity API: the operations of v3 in v2's shapes (`{urn, aspects: {<aspectName>: {value}}}`; an
 * aspect write's body is the value itself), as DataHub's own OpenAPI smoke tests drive them (its v1/v2 timeline and
 * v2 structured-property fixtures, rewritten here on names of their own).
 */
describe('OpenAPI v2 entities', () => {
  let svc: TestService;
  const id = uniqueId('v2');
  const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:test,${id}_${name},PROD)`;
  const entityPath = (urn: string, entity = 'dataset') => `/openapi/v2/entity/${entity}/${enc(urn)}`;
  const stamp = { time: 0, actor: 'urn:li:corpuser:unknown' };
  const schema = (fields: { fieldPath: string; nativeDataType: string }[]) => ({
    schemaName: 'db1.orders',
    platform: 'urn:li:dataPlatform:hive',
    version: 0,
    created: stamp,
    lastModified: stamp,
    hash: '',
    platformSchema: { 'com.linkedin.schema.MySqlDDL': { tableSchema: '' } },
    fields: fields.map((f) => ({ ...f, type: { type: { 'com.linkedin.schema.StringType': {} } }, recursive: false, isPartOfKey: false })),
  });

  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('writes entities in a batch: async (the default) answers their urns with 202, async=false the aspects stored', async () => {
    const [a, b] = [dataset('batch_a'), dataset('batch_b')];
    const async = await svc.call('POST', '/openapi/v2/entity/dataset?createIfNotExists=false&createEntityIfNotExists=false', [{ urn: a, aspects: { status: { value: { removed: false } } } }]);
    expect([async.status, async.body]).toEqual([202, [{ urn: a }]]);
    const sync = await svc.call('POST', '/openapi/v2/entity/dataset?async=false', [{ urn: b, aspects: { datasetProperties: { value: { name: 'b', customProperties: {} } } } }]);
    expect([sync.status, sync.body]).toEqual([200, [{ urn: b, aspects: { datasetProperties: { value: { name: 'b', customProperties: {} } } } }]]);

    const read = await svc.call('GET', `${entityPath(a)}?aspects=status`);
    expect(read.body).toEqual({ urn: a, aspects: { status: { value: { removed: false } } } });
    const batch = await svc.call('POST', '/openapi/v2/entity/batch/dataset', { urns: [a, b, dataset('missing')], aspectNames: ['status', 'datasetProperties'] });
    expect(batch.body).toEqual({ entities: [{ urn: a, aspects: { status: { value: { removed: false } } } }, { urn: b, aspects: { datasetProperties: { value: { name: 'b', customProperties: {} } } } }] });

    // v3's shape, an unknown aspect or a conditional batch write: refused, nothing written.
    const c = dataset('batch_c');
    expect((await svc.call('POST', '/openapi/v2/entity/dataset', [{ urn: c, status: { value: { removed: false } } }])).status).toBe(400);
    expect((await svc.call('POST', '/openapi/v2/entity/dataset', [{ urn: c, aspects: { notAnAspect: { value: {} } } }])).status).toBe(400);
    expect((await svc.call('POST', '/openapi/v2/entity/dataset?createIfNotExists=true', [{ urn: c, aspects: { status: { value: { removed: false } } } }])).status).toBe(400);
    expect((await svc.call('HEAD', entityPath(c))).status).toBe(404);
    expect((await svc.call('HEAD', entityPath(a))).status).toBe(204);
  });

  it('writes one aspect from its bare value, reads it by version, and the timeline of its changes (v1 and v2 paths)', async () => {
    const urn = dataset('timeline');
    const aspectPath = `${entityPath(urn)}/schemaMetadata`;
    expect((await svc.call('DELETE', entityPath(urn))).status).toBe(204);
    const first = await svc.call('POST', `${aspectPath}?createIfNotExists=false`, schema([{ fieldPath: 'id', nativeDataType: 'int' }]));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ urn, aspects: { schemaMetadata: { value: expect.objectContaining({ schemaName: 'db1.orders', fields: [expect.objectContaining({ fieldPath: 'id' })] }) } } });
    // createIfNotExists is the default: the aspect exists now.
    expect((await svc.call('POST', aspectPath, schema([{ fieldPath: 'id', nativeDataType: 'int' }]))).status).toBe(400);
    await svc.call('POST', `${aspectPath}?createIfNotExists=false`, schema([{ fieldPath: 'id', nativeDataType: 'int' }, { fieldPath: 'name', nativeDataType: 'string' }]));
    expect((await svc.call('GET', `${aspectPath}?version=1`)).body).toEqual({ value: expect.objectContaining({ fields: [expect.objectContaining({ fieldPath: 'id' })] }) });
    expect((await svc.call('HEAD', aspectPath)).status).toBe(204);

    const path = (prefix: string) => `${prefix}/${enc(urn)}?startTime=-1&endTime=0&raw=false&categories=TECHNICAL_SCHEMA`;
    const v1 = await svc.call('GET', path('/openapi/v1/timeline'));
    expect(v1.body.map((t: { semVerChange: string; changeEvents: { operation: string }[] }) => [t.semVerChange, t.changeEvents.map((e) => e.operation)])).toEqual([
      ['MINOR', ['ADD']],
      ['MINOR', ['ADD']],
    ]);
    expect((await svc.call('GET', path('/openapi/v2/timeline/v1'))).body).toEqual(v1.body);

    expect((await svc.call('DELETE', aspectPath)).status).toBe(204);
    expect((await svc.call('HEAD', aspectPath)).status).toBe(404);
  });

  it('patches an aspect with array primary keys, answering {urn, aspects}', async () => {
    const urn = dataset('structured');
    const property = (name: string) => `urn:li:structuredProperty:${id}.${name}`;
    for (const [name, valueType] of [
      ['retention', 'urn:li:dataType:datahub.number'],
      ['tier', 'urn:li:dataType:datahub.string'],
    ]) {
      const definition = { qualifiedName: `${id}.${name}`, valueType, cardinality: 'MULTIPLE', entityTypes: ['urn:li:entityType:datahub.dataset'] };
      const res = await svc.call('POST', `${entityPath(property(name), 'structuredProperty')}/propertyDefinition?createIfNotExists=false`, definition);
      expect([res.status, res.body.aspects.propertyDefinition.value]).toEqual([200, expect.objectContaining(definition)]);
    }
    const added = await svc.call('POST', `${entityPath(urn)}/structuredProperties?createIfNotExists=false`, { properties: [{ propertyUrn: property('retention'), values: [{ double: 60 }] }] });
    expect(added.body).toEqual({ urn, aspects: { structuredProperties: { value: { properties: [{ propertyUrn: property('retention'), values: [{ double: 60 }] }] } } } });
    // A double is written as one, as DataHub writes it (a Python client reads 60.0, not 60).
    const raw = await fetch(`${svc.url}${entityPath(urn)}/structuredProperties`);
    expect(await raw.text()).toContain('"values":[{"double":60.0}]');
    const patch = (op: string, value: unknown) =>
      svc.call('PATCH', `${entityPath(urn)}/structuredProperties`, { patch: [{ op, path: `/properties/${property('tier')}`, value }], arrayPrimaryKeys: { properties: ['propertyUrn'] } });
    const withTier = await patch('add', { propertyUrn: property('tier'), values: [{ string: 'gold' }] });
    expect(withTier.body.aspects.structuredProperties.value.properties).toEqual([
      { propertyUrn: property('retention'), values: [{ double: 60 }] },
      { propertyUrn: property('tier'), values: [{ string: 'gold' }] },
    ]);
    const without = await patch('remove', { propertyUrn: property('tier') });
    expect(without.body).toEqual({ urn, aspects: { structuredProperties: { value: { properties: [{ propertyUrn: property('retention'), values: [{ double: 60 }] }] } } } });
  });

  it("refuses structured property values their definitions do not allow, writing nothing; a batch may define and use a property", async () => {
    const urn = dataset('checked');
    const property = `urn:li:structuredProperty:${id}.size`;
    const definition = { qualifiedName: `${id}.size`, valueType: 'urn:li:dataType:datahub.string', cardinality: 'SINGLE', entityTypes: ['urn:li:entityType:datahub.dataset'], allowedValues: [{ value: { string: 'S' } }, { value: { string: 'L' } }] };
    const proposal = (entityUrn: string, aspectName: string, value: unknown) => ({ entityUrn, entityType: entityUrn.split(':')[2], changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } });
    const values = (...v: unknown[]) => ({ properties: [{ propertyUrn: property, values: v }] });
    // Defined and used in one batch: the definition counts as it will be stored.
    const batch = await svc.call('POST', '/aspects?action=ingestProposalBatch', { proposals: [proposal(property, 'propertyDefinition', definition), proposal(urn, 'structuredProperties', values({ string: 'S' }))] });
    expect(batch.status).toBe(200);
    for (const [bad, message] of [
      [values({ string: 'XL' }), 'should be one of [{string=S}, {string=L}]'],
      [values({ double: 3 }), 'is not of type string'],
      [values({ string: 'S' }, { string: 'L' }), 'cardinality SINGLE'],
      [{ properties: [{ propertyUrn: `${property}_undefined`, values: [{ string: 'S' }] }] }, 'does not exist'],
    ] as const) {
      const res = await svc.call('POST', '/aspects?action=ingestProposal', { proposal: proposal(urn, 'structuredProperties', bad) });
      expect([res.status, res.body.message]).toEqual([422, expect.stringContaining(message)]);
    }
    // A definition may widen, not narrow: SINGLE → MULTIPLE, not back; an allowed value stays allowed.
    const define = (change: Record<string, unknown>) => svc.call('POST', '/aspects?action=ingestProposal', { proposal: proposal(property, 'propertyDefinition', { ...definition, ...change }) });
    expect((await define({ cardinality: 'MULTIPLE' })).status).toBe(200);
    const narrowed = await define({ cardinality: 'SINGLE' });
    expect([narrowed.status, narrowed.body.message]).toEqual([422, expect.stringContaining('from MULTIPLE to SINGLE')]);
    const disallowed = await define({ cardinality: 'MULTIPLE', allowedValues: [{ value: { string: 'S' } }] });
    expect([disallowed.status, disallowed.body.message]).toEqual([422, expect.stringContaining('cannot be disallowed')]);
    expect((await define({ cardinality: 'MULTIPLE', description: 'T-shirt sizes' })).status).toBe(200);
    const v2 = await svc.call('POST', `${entityPath(urn)}/structuredProperties?createIfNotExists=false`, values({ string: 'XL' }));
    expect(v2.status).toBe(400);
    expect((await svc.call('GET', `${entityPath(urn)}/structuredProperties`)).body).toEqual({ value: values({ string: 'S' }) });
  });
});

