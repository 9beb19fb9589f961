import { join } from 'node:path';
import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, runProcess, type DatahubClient } from '../support/datahub-client';
import { mintToken, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * DataHub's own smoke tests of the graph client's scroll_entities, scroll_relationships and scroll_lineage
 * (smoke-test/tests/openapi/v3/test_scroll_*.py), rewritten in test/python/scroll_smoke_check.py on entities of their own.
 * Departures: a sliced scroll is refused (400) rather than sliced, and the smoke tests' `entity_urn` walker mode is in a
 * newer client than the pinned one.
 */
describe("DataHub's scroll smoke tests through the official client", () => {
  let svc: TestService;
  let client: DatahubClient;
  let checks: { check: string; ok: boolean; error?: string; trace?: string }[] = [];

  beforeAll(async () => {
    svc = await startTestService();
    client = await datahubClient(svc.url);
    const { token } = await mintToken();
    const run = await runProcess(join(client.venv, 'bin', 'python'), [join(__dirname, '..', 'python', 'scroll_smoke_check.py'), svc.url, token, uniqueId('s').replace(/[^a-zA-Z0-9]/g, '')], client.env(), { cwd: client.home });
    checks = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    if (checks.length === 0) throw new Error(`scroll_smoke_check.py printed nothing: ${run.stderr.slice(-3000)}`);
  }, CLIENT_SETUP_TIMEOUT_MS + 120_000);

  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  test.each([
    'entities_basic',
    'entities_aspects_none',
    'entities_aspects_empty',
    'entities_aspects_single',
    'entities_by_type',
    'entities_by_types',
    'entities_impossible_filter',
    'entities_pagination',
    'entities_sort_criteria',
    'entities_query',
    'entities_system_metadata',
    'entities_slicing_refused',
    'relationships_basic',
    'relationships_by_type',
    'relationships_source_urns',
    'relationships_destination_urns',
    'relationships_urns_equal_filters',
    'relationships_entity_types',
    'relationships_edge_filter',
    'relationships_directions',
    'relationships_pagination',
    'lineage_around_urn',
    'lineage_upstream_root',
    'lineage_produces',
    'lineage_data_job',
    'lineage_feature',
    'lineage_types',
    'lineage_pagination',
    'lineage_no_urns',
  ])('%s', (name) => {
    const check = checks.find((c) => c.check === name);
    expect(check).toBeDefined();
    if (!check!.ok) throw new Error(`${name}: ${check!.error}\n${check!.trace ?? ''}`);
  });
});
