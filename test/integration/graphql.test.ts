import { proposal } from '../support/samples';
import { bearer, deleteEntities, enc, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

const DEPRECATION_QUERY = 'query q($urn: String!) { dataset(urn: $urn) { urn deprecation { deprecated decommissionTime note actor } } }';
const UPDATE = 'mutation u($input: UpdateDeprecationInput!) { updateDeprecation(input: $input) }';
const BATCH = 'mutation b($input: BatchUpdateDeprecationInput!) { batchUpdateDeprecation(input: $input) }';

describe('GraphQL deprecation', () => {
  let svc: TestService;
  let headers: Record<string, string>;
  const actor = `urn:li:corpuser:${uniqueId('deprecator')}`;
  const created: string[] = [];

  beforeAll(async () => {
    svc = await startTestService();
    headers = bearer((await mintToken({ actor, scopes: ['write'] })).token);
  });
  afterAll(async () => {
    await deleteEntities(svc.call, created);
    await svc.close();
  });

  const datasetUrn = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name}_${uniqueId()},PROD)`;

  async function createDataset(fields: string[] = []): Promise<string> {
    const urn = datasetUrn('deprecated');
    created.push(urn);
    const res = await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'status', { removed: false }));
    expect(res.status).toBe(200);
    if (fields.length > 0) {
      const schema = {
        schemaName: 'S',
        platform: 'urn:li:dataPlatform:hive',
        version: 0,
        hash: '',
        platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
        fields: fields.map((fieldPath) => ({ fieldPath, nativeDataType: 'string', type: { type: { 'com.linkedin.schema.StringType': {} } } })),
      };
      expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, 'schemaMetadata', schema))).status).toBe(200);
    }
    return urn;
  }

  const graphql = (query: string, variables: Record<string, unknown>, path = '/api/graphql', extra: Record<string, string> = headers) =>
    svc.call('POST', path, { query, variables }, extra);

  it('deprecates a dataset and reads the deprecation back, with extensions {} on every response', async () => {
    const urn = await createDataset();
    const before = await graphql(DEPRECATION_QUERY, { urn });
    expect(before).toMatchObject({ status: 200, body: { data: { dataset: { urn, deprecation: null } }, extensions: {} } });

    const update = await graphql(UPDATE, { input: { urn, deprecated: true, decommissionTime: 1_893_456_000_000, note: 'use the v2 table' } });
    expect(update.status).toBe(200);
    expect(update.body).toEqual({ data: { updateDeprecation: true }, extensions: {} });

    const after = await graphql(DEPRECATION_QUERY, { urn });
    expect(after.body).toEqual({
      data: { dataset: { urn, deprecation: { deprecated: true, decommissionTime: 1_893_456_000_000, note: 'use the v2 table', actor } } },
      extensions: {},
    });

    // Written through the ingestion path: a versioned aspect whose audit actor is the token's actor, and a search document.
    const aspect = await svc.call('GET', `/entitiesV2/${enc(urn)}?aspects=List(deprecation)`);
    expect(aspect.body.aspects.deprecation).toMatchObject({ version: 0, value: { deprecated: true, note: 'use the v2 table', actor }, created: { actor } });
    await svc.indexer.waitUntilIndexed([urn]);
    const name = urn.split(',')[1];
    const deprecatedOnly = { or: [{ and: [{ field: 'deprecated', value: 'true', condition: 'EQUAL' }] }] };
    const search = await svc.call('POST', '/entities?action=search', { input: name, entity: 'dataset', start: 0, count: 10, filter: deprecatedOnly });
    expect(search.status).toBe(200);
    expect(search.body.value.entities).toEqual([urn]);

    // Un-deprecating without a note writes note "" and drops the decommission time.
    await graphql(UPDATE, { input: { urn, deprecated: false } });
    const undone = await graphql(DEPRECATION_QUERY, { urn });
    expect(undone.body.data.dataset.deprecation).toEqual({ deprecated: false, decommissionTime: null, note: '', actor });
    const history = await svc.call('GET', `/aspects/${enc(urn)}?aspect=deprecation&version=1`);
    expect(history.body.aspect['com.linkedin.common.Deprecation']).toMatchObject({ deprecated: true });
  });

  it('answers at /api/v2/graphql and under /gms too', async () => {
    const urn = await createDataset();
    for (const path of ['/api/v2/graphql', '/gms/api/graphql']) {
      const res = await graphql(DEPRECATION_QUERY, { urn }, path);
      expect(res).toMatchObject({ status: 200, body: { data: { dataset: { urn } }, extensions: {} } });
    }
  });

  it('answers a dataset that is not stored as DataHub does: the dataset, with exists false and no deprecation', async () => {
    const ghost = datasetUrn('ghost');
    const res = await graphql(DEPRECATION_QUERY, { urn: ghost });
    expect(res.body).toEqual({ data: { dataset: { urn: ghost, deprecation: null } }, extensions: {} });
    // Many in one request share one read, each alias answered for its own urn (DataHub's exists batching smoke test).
    const stored = await createDataset();
    const urns = [stored, ghost, stored, datasetUrn('ghost2')];
    const batched = await graphql(`{ ${urns.map((u, i) => `e${i}: dataset(urn: "${u}") { urn exists }`).join(' ')} }`, {});
    expect(batched.body.data).toEqual({ e0: { urn: stored, exists: true }, e1: { urn: ghost, exists: false }, e2: { urn: stored, exists: true }, e3: { urn: urns[3], exists: false } });
  });

  it('refuses to deprecate an entity that does not exist, with the documented error', async () => {
    const urn = datasetUrn('missing');
    const res = await graphql(UPDATE, { input: { urn, deprecated: true } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ updateDeprecation: null });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({
      message: `Failed to update deprecation for Entity ${urn}. Entity does not exist.`,
      path: ['updateDeprecation'],
      extensions: { code: 400, type: 'BAD_REQUEST' },
    });
    expect(res.body.extensions).toEqual({});
    const stored = await svc.call('GET', `/entitiesV2/${enc(urn)}?aspects=List(deprecation)`);
    expect(stored.body.aspects.deprecation).toBeUndefined();
  });

  it('deprecates a batch of datasets in one go', async () => {
    const urns = [await createDataset(), await createDataset(), await createDataset()];
    const res = await graphql(BATCH, { input: { deprecated: true, note: 'batch', resources: urns.map((resourceUrn) => ({ resourceUrn })) } });
    expect(res.body).toEqual({ data: { batchUpdateDeprecation: true }, extensions: {} });
    for (const urn of urns) {
      const read = await graphql(DEPRECATION_QUERY, { urn });
      expect(read.body.data.dataset.deprecation).toEqual({ deprecated: true, decommissionTime: null, note: 'batch', actor });
    }
  });

  it('writes nothing when one resource of a batch is missing', async () => {
    const present = [await createDataset(), await createDataset()];
    const missing = datasetUrn('missing');
    const res = await graphql(BATCH, {
      input: { deprecated: true, resources: [{ resourceUrn: present[0] }, { resourceUrn: missing }, { resourceUrn: present[1] }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ batchUpdateDeprecation: null });
    expect(res.body.errors[0]).toMatchObject({
      message: `Failed to update resource with urn ${missing}. Entity does not exist.`,
      extensions: { code: 400, type: 'BAD_REQUEST' },
    });
    for (const urn of present) {
      const read = await graphql(DEPRECATION_QUERY, { urn });
      expect(read.body.data.dataset).toEqual({ urn, deprecation: null });
    }
  });

  it('accepts a schema field as sub-resource, writing the deprecation of its dataset; an unknown field fails the batch', async () => {
    const urn = await createDataset(['field_foo']);
    const ok = await graphql(BATCH, {
      input: { deprecated: true, note: 'field', resources: [{ resourceUrn: urn, subResourceType: 'DATASET_FIELD', subResource: 'field_foo' }] },
    });
    expect(ok.body).toEqual({ data: { batchUpdateDeprecation: true }, extensions: {} });
    expect((await graphql(DEPRECATION_QUERY, { urn })).body.data.dataset.deprecation).toMatchObject({ deprecated: true, note: 'field' });

    const other = await createDataset();
    const bad = await graphql(BATCH, {
      input: { deprecated: false, resources: [{ resourceUrn: other }, { resourceUrn: urn, subResourceType: 'DATASET_FIELD', subResource: 'nope' }] },
    });
    expect(bad.body.errors[0]).toMatchObject({
      message: `Failed to update ${urn} & field nope. Field nope does not exist in the datasets schema.`,
      extensions: { code: 400, type: 'BAD_REQUEST' },
    });
    expect((await graphql(DEPRECATION_QUERY, { urn: other })).body.data.dataset.deprecation).toBeNull();
  });

  it('reports a malformed urn as BAD_REQUEST', async () => {
    const res = await graphql(UPDATE, { input: { urn: 'not-a-urn', deprecated: true } });
    expect(res.body.data).toEqual({ updateDeprecation: null });
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringContaining('not-a-urn'), extensions: { code: 400, type: 'BAD_REQUEST' } });
  });

  it('allows introspection and rejects queries beyond the limits (aliases, tokens)', async () => {
    const intro = await graphql('{ __schema { queryType { name } mutationType { name } types { name fields { name type { name ofType { name ofType { name } } } } } } }', {});
    expect(intro.body.data.__schema).toMatchObject({ queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } });
    expect(intro.body.extensions).toEqual({});
    const aliases = await graphql(`{ ${Array.from({ length: 20 }, (_, i) => `a${i}: dataset(urn: "urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)") { urn }`).join(' ')} }`, {});
    expect(aliases.body.errors[0].message).toMatch(/aliases/i);
    expect(aliases.body.data).toBeUndefined();
    const tokens = await graphql(`{ dataset(urn: "x") { ${'urn '.repeat(3000)} } }`, {});
    expect(tokens.body.errors[0].message).toMatch(/token/i);
  });

  it('refuses variables that cannot be coerced, and a request without one operation to run, with 400 and the common error body', async () => {
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      [DEPRECATION_QUERY, { urn: 42 }, 'a number for a String', /Variable "\$urn" got invalid value 42/],
      [DEPRECATION_QUERY, {}, 'a required variable missing', /Variable "\$urn" of required type "String!" was not provided/],
      [UPDATE, { input: { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)', deprecated: 'yes' } }, 'a string for a Boolean', /Variable "\$input" got invalid value "yes" at "input.deprecated"/],
      ['query a { __typename } query b { __typename }', {}, 'two operations, none named', /Could not determine what operation to execute/],
    ];
    for (const [query, variables, what, message] of cases) {
      const res = await graphql(query, variables);
      expect({ what, status: res.status }).toEqual({ what, status: 400 });
      expect(res.body).toMatchObject({ status: 400, exceptionClass: 'InvalidInputError', message: expect.stringMatching(message) });
      expect(res.body.errors[0].message).toMatch(message);
    }
  });

  it('answers a query sent again (compiled after its first run) as it answered the first time: data, errors of the service, request errors', async () => {
    const urn = await createDataset();
    expect((await graphql(UPDATE, { input: { urn, deprecated: true, note: 'again', decommissionTime: 1700000000000 } })).body.data).toEqual({ updateDeprecation: true });
    const lineage = 'query l($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { nextScrollId searchResults { degree entity { urn type } } } }';
    const cases: [string, Record<string, unknown>][] = [
      [DEPRECATION_QUERY, { urn }],
      [DEPRECATION_QUERY, { urn: 'not-a-urn' }],
      [DEPRECATION_QUERY, { urn: 42 }],
      [lineage, { input: { urn, direction: 'DOWNSTREAM' } }],
      [lineage, { input: { urn: 'urn:li:dataset:nope', direction: 'DOWNSTREAM' } }],
      [lineage, { input: { urn, direction: 'SIDEWAYS' } }],
    ];
    for (const [query, variables] of cases) {
      const answers = [];
      for (let run = 0; run < 3; run++) {
        const res = await graphql(query, variables);
        answers.push({ status: res.status, body: res.body });
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
    }
    const first = async (query: string, variables: Record<string, unknown>) => (await graphql(query, variables)).body;
    expect((await first(DEPRECATION_QUERY, { urn })).data.dataset.deprecation).toMatchObject({ deprecated: true, note: 'again', decommissionTime: 1700000000000 });
    // The service's own error keeps its code when answered by the compiled query.
    expect((await first(DEPRECATION_QUERY, { urn: 'not-a-urn' })).errors).toEqual([
      { message: expect.stringContaining('not-a-urn'), path: ['dataset'], extensions: { code: 400, type: 'BAD_REQUEST' } },
    ]);
    expect((await graphql(DEPRECATION_QUERY, { urn: 42 })).status).toBe(400);
  });

  it('reports syntax and validation errors as GraphQL errors', async () => {
    const syntax = await graphql('{ dataset(urn: ', {});
    expect(syntax.body.errors[0].message).toMatch(/Syntax Error/);
    const unknown = await graphql('{ nothing }', {});
    expect(unknown.body.errors[0].message).toMatch(/Cannot query field "nothing"/);
    // No subscription type: said so, not answered as an internal error.
    const subscription = await graphql('subscription { x }', {});
    expect(subscription.status).toBe(200);
    expect(subscription.body.errors).toEqual([{ message: 'Schema is not configured to execute subscription operation.', locations: [{ line: 1, column: 1 }] }]);
  });
});
