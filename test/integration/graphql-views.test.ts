import { proposal } from '../support/samples';
import { bearer, mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * DataHub's saved views: createView / updateView / deleteView / listMyViews / listGlobalViews (its views smoke test's
 * operations), and a view applied to a search (`viewUrn`: `datahub search --view`).
 */
describe('saved views', () => {
  let svc: TestService;
  const id = uniqueId('views').toLowerCase();
  const tag = `urn:li:tag:gold_${id}`;
  const hive = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name}_${id},PROD)`;
  const [tagged, plain] = [hive('tagged'), hive('plain')];
  const dashboard = `urn:li:dashboard:(looker,board_${id})`;
  let admin: Record<string, string>;
  let alice: Record<string, string>;
  let bob: Record<string, string>;

  beforeAll(async () => {
    svc = await startTestService();
    admin = bearer((await mintToken({ actor: `urn:li:corpuser:admin_${id}`, scopes: ['admin'] })).token);
    alice = bearer((await mintToken({ actor: `urn:li:corpuser:alice_${id}` })).token);
    bob = bearer((await mintToken({ actor: `urn:li:corpuser:bob_${id}` })).token);
    for (const [urn, aspect, value] of [
      [tagged, 'globalTags', { tags: [{ tag }] }],
      [tagged, 'datasetProperties', { name: `tagged_${id}` }],
      [plain, 'datasetProperties', { name: `plain_${id}` }],
      [dashboard, 'globalTags', { tags: [{ tag }] }],
    ] as const) {
      expect((await svc.call('POST', '/aspects?action=ingestProposal', proposal(urn, aspect, value))).status).toBe(200);
    }
    await svc.indexer.waitUntilIndexed([tagged, plain, dashboard]);
  });
  afterAll(async () => {
    await svc?.close();
  });

  async function graphql(query: string, variables: Record<string, unknown>, auth = admin) {
    const res = await svc.call('POST', '/api/graphql', { query, variables }, auth);
    expect(res.status).toBe(200);
    return res.body;
  }
  const VIEW_FIELDS = 'urn type viewType name description definition { entityTypes filter { operator filters { field values condition negated } } }';
  const create = (input: Record<string, unknown>, auth = admin) => graphql(`mutation createView($input: CreateViewInput!) { createView(input: $input) { ${VIEW_FIELDS} } }`, { input }, auth);
  const listGlobal = async () => (await graphql(`query { listGlobalViews(input: {start: 0, count: 1000}) { start count total views { ${VIEW_FIELDS} } } }`, {})).data.listGlobalViews;
  const listMine = async (auth: Record<string, string>, viewType?: string) =>
    (await graphql('query listMyViews($input: ListMyViewsInput!) { listMyViews(input: $input) { total views { urn name } } }', { input: { start: 0, count: 20, ...(viewType ? { viewType } : {}) } }, auth)).data.listMyViews;
  const remove = (urn: string, auth = admin) => graphql('mutation deleteView($urn: String!) { deleteView(urn: $urn) }', { urn }, auth);
  const definition = (operator: string, filters: Record<string, unknown>[], entityTypes = ['DATASET', 'DASHBOARD']) => ({ entityTypes, filter: { operator, filters } });
  const tagFilter = { field: 'tags', values: [tag], negated: false, condition: 'EQUAL' };

  it('creates, lists and deletes a global view; only an admin manages global views', async () => {
    const before = (await listGlobal()).total;
    const created = await create({ viewType: 'GLOBAL', name: `Gold ${id}`, description: 'gold assets', definition: definition('AND', [tagFilter]) });
    const view = created.data.createView;
    expect(view).toEqual({
      urn: expect.stringMatching(/^urn:li:dataHubView:/),
      type: 'DATAHUB_VIEW',
      viewType: 'GLOBAL',
      name: `Gold ${id}`,
      description: 'gold assets',
      definition: { entityTypes: ['DATASET', 'DASHBOARD'], filter: { operator: 'AND', filters: [tagFilter] } },
    });
    const listed = await listGlobal();
    expect(listed.total).toBe(before + 1);
    expect(listed.views).toContainEqual(view);

    const refused = await create({ viewType: 'GLOBAL', name: 'not mine to make', definition: definition('AND', []) }, alice);
    expect(refused.errors[0].extensions).toMatchObject({ code: 403 });
    expect((await remove(view.urn, alice)).errors[0].extensions).toMatchObject({ code: 403 });

    expect((await remove(view.urn)).data.deleteView).toBe(true);
    expect((await listGlobal()).total).toBe(before);
  });

  it("lists a user's own personal views, which only they (or an admin) change", async () => {
    const before = (await listMine(alice)).total;
    const view = (await create({ viewType: 'PERSONAL', name: 'Mine', definition: definition('AND', [tagFilter]) }, alice)).data.createView;
    expect((await listMine(alice)).total).toBe(before + 1);
    expect((await listMine(alice, 'GLOBAL')).views).not.toContainEqual({ urn: view.urn, name: 'Mine' });
    expect((await listMine(bob)).views).not.toContainEqual({ urn: view.urn, name: 'Mine' });

    const update = 'mutation updateView($urn: String!, $input: UpdateViewInput!) { updateView(urn: $urn, input: $input) { ' + VIEW_FIELDS + ' } }';
    const negatedTerm = { field: 'glossaryTerms', values: ['urn:li:glossaryTerm:test'], negated: true, condition: 'CONTAIN' };
    const input = { name: 'Mine, renamed', description: 'changed', definition: definition('OR', [tagFilter, negatedTerm], ['DATASET', 'DASHBOARD', 'CHART', 'DATA_FLOW']) };
    expect((await graphql(update, { urn: view.urn, input }, bob)).errors[0].extensions).toMatchObject({ code: 403 });
    const updated = (await graphql(update, { urn: view.urn, input }, alice)).data.updateView;
    expect(updated).toEqual({ ...view, name: 'Mine, renamed', description: 'changed', definition: input.definition });

    expect((await remove(view.urn, alice)).data.deleteView).toBe(true);
    expect((await listMine(alice)).total).toBe(before);
    expect((await remove(view.urn, alice)).errors[0].extensions).toMatchObject({ code: 400 });
  });

  it("applies a view to a search: only its entity types, and its filter AND the search's", async () => {
    const datasetsOnly = (await create({ viewType: 'PERSONAL', name: 'Gold datasets', definition: definition('AND', [tagFilter], ['DATASET']) }, alice)).data.createView;
    const goldAnything = (await create({ viewType: 'PERSONAL', name: 'Gold', definition: definition('AND', [tagFilter], []) }, alice)).data.createView;
    // This suite's entities only (the suites share one index set).
    const ours = { field: 'urn', values: [id], condition: 'CONTAIN' };
    const urns = async (input: Record<string, unknown>, also: Record<string, unknown>[] = []) => {
      const body = await graphql(
        'query s($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { total searchResults { entity { urn } } } }',
        { input: { query: '*', count: 50, orFilters: [{ and: [ours, ...also] }], ...input } },
        alice,
      );
      return body.data.searchAcrossEntities.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn).sort();
    };
    expect(await urns({})).toEqual([dashboard, plain, tagged].sort());
    expect(await urns({ viewUrn: datasetsOnly.urn })).toEqual([tagged]);
    expect(await urns({ viewUrn: goldAnything.urn })).toEqual([dashboard, tagged].sort());
    // The search's own filter applies too; types asked for that the view excludes leave nothing.
    expect(await urns({ viewUrn: goldAnything.urn }, [{ field: 'platform', values: ['urn:li:dataPlatform:hive'] }])).toEqual([tagged]);
    expect(await urns({ viewUrn: datasetsOnly.urn, types: ['DASHBOARD'] })).toEqual([]);

    const scrolled = await graphql('query s($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { total } }', { input: { query: '*', count: 10, orFilters: [{ and: [ours] }], viewUrn: datasetsOnly.urn } }, alice);
    expect(scrolled.data.scrollAcrossEntities.total).toBe(1);
    const counted = await graphql('query a($input: AggregateAcrossEntitiesInput!) { aggregateAcrossEntities(input: $input) { facets { field aggregations { value count } } } }', { input: { query: '*', orFilters: [{ and: [ours] }], viewUrn: goldAnything.urn, facets: ['_entityType'] } }, alice);
    expect(counted.data.aggregateAcrossEntities.facets[0].aggregations).toEqual(expect.arrayContaining([{ value: 'DATASET', count: 1 }, { value: 'DASHBOARD', count: 1 }]));

    const unknown = await graphql('{ searchAcrossEntities(input: {query: "*", viewUrn: "urn:li:dataHubView:none"}) { total } }', {}, alice);
    expect(unknown.errors[0].extensions).toEqual({ code: 400, type: 'BAD_REQUEST' });
  });
});
