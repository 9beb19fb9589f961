import { datahubClient, CLIENT_SETUP_TIMEOUT_MS, type DatahubClient } from '../support/datahub-client';
import { enc, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * Conditional writes as DataHub has them: changeType CREATE / CREATE_ENTITY, and the proposal's `headers`
 * If-None-Match: * (a write that finds the aspect or entity present is dropped, not refused) and If-Version-Match (the
 * aspect's systemMetadata.version). The official client sends CREATE with If-None-Match for definitions a run must
 * not overwrite; a refused condition leaves the whole request unwritten.
 */

describe('conditional writes', () => {
  let svc: TestService;
  let client: DatahubClient;

  beforeAll(async () => {
    svc = await startTestService();
    client = await datahubClient(svc.url);
  }, CLIENT_SETUP_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  const datasetUrn = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
  const proposal = (urn: string, aspectName: string, value: unknown, extra: Record<string, unknown> = {}) => ({
    entityType: 'dataset',
    entityUrn: urn,
    changeType: 'UPSERT',
    aspectName,
    aspect: { value: JSON.stringify(value), contentType: 'application/json' },
    ...extra,
  });
  const ingest = (p: Record<string, unknown>) => svc.call('POST', '/aspects?action=ingestProposal', { proposal: p });
  const batch = (proposals: Record<string, unknown>[]) => svc.call('POST', '/aspects?action=ingestProposalBatch', { proposals });

  async function stored(urn: string, aspect: string): Promise<{ value: any; version: string | undefined } | null> {
    const res = await svc.call('GET', `/entitiesV2/${enc(urn)}`);
    if (res.status === 404) return null;
    expect(res.status).toBe(200);
    const found = res.body.aspects?.[aspect];
    return found ? { value: found.value, version: found.systemMetadata?.version } : null;
  }

  it('CREATE writes an absent aspect and is refused (422) once it exists, changing nothing of the request', async () => {
    const urn = datasetUrn(uniqueId('create'));
    expect((await ingest(proposal(urn, 'datasetProperties', { description: 'first' }, { changeType: 'CREATE' }))).status).toBe(200);
    expect(await stored(urn, 'datasetProperties')).toEqual({ value: { description: 'first' }, version: '1' });

    const again = await batch([
      proposal(urn, 'globalTags', { tags: [{ tag: 'urn:li:tag:conditional' }] }),
      proposal(urn, 'datasetProperties', { description: 'second' }, { changeType: 'CREATE' }),
    ]);
    expect(again.status).toBe(422);
    expect(again.body.message).toMatch(/Cannot perform CREATE since the aspect already exists/);
    expect((await stored(urn, 'datasetProperties'))?.value.description).toBe('first');
    expect(await stored(urn, 'globalTags')).toBeNull();
  });

  it('CREATE with If-None-Match: * is dropped when the aspect exists, and the rest of the batch is written', async () => {
    const urn = datasetUrn(uniqueId('if-none-match'));
    expect((await ingest(proposal(urn, 'datasetProperties', { description: 'kept' }))).status).toBe(200);
    const res = await batch([
      proposal(urn, 'datasetProperties', { description: 'overwritten?' }, { changeType: 'CREATE', headers: { 'if-none-match': '*' } }),
      proposal(urn, 'globalTags', { tags: [{ tag: 'urn:li:tag:written' }] }, { changeType: 'CREATE', headers: { 'If-None-Match': '*' } }),
    ]);
    expect(res.status).toBe(200);
    expect(await stored(urn, 'datasetProperties')).toMatchObject({ value: { description: 'kept' }, version: '1' });
    expect((await stored(urn, 'globalTags'))?.value.tags).toEqual([{ tag: 'urn:li:tag:written' }]);
    // As in DataHub, If-None-Match conditions only a CREATE: an UPSERT carrying it is written.
    expect((await ingest(proposal(urn, 'datasetProperties', { description: 'upserted' }, { headers: { 'If-None-Match': '*' } }))).status).toBe(200);
    expect(await stored(urn, 'datasetProperties')).toMatchObject({ value: { description: 'upserted' }, version: '2' });
  });

  it('CREATE_ENTITY writes only to an entity whose key aspect is absent', async () => {
    const urn = datasetUrn(uniqueId('create-entity'));
    expect((await ingest(proposal(urn, 'status', { removed: false }, { changeType: 'CREATE_ENTITY' }))).status).toBe(200);
    expect((await stored(urn, 'datasetKey'))?.value.name).toMatch(/create-entity/);
    const refused = await ingest(proposal(urn, 'datasetProperties', { description: 'no' }, { changeType: 'CREATE_ENTITY' }));
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/CREATE_ENTITY/);
    expect((await ingest(proposal(urn, 'datasetProperties', { description: 'no' }, { changeType: 'CREATE_ENTITY', headers: { 'If-None-Match': '*' } }))).status).toBe(200);
    expect(await stored(urn, 'datasetProperties')).toBeNull();
  });

  it('If-Version-Match writes only over the version it names, else 412 and nothing written', async () => {
    const urn = datasetUrn(uniqueId('if-version-match'));
    const write = (description: string, version: string) => ingest(proposal(urn, 'datasetProperties', { description }, { headers: { 'If-Version-Match': version } }));
    expect((await write('one', '-1')).status).toBe(200);
    expect((await write('two', '1')).status).toBe(200);
    expect(await stored(urn, 'datasetProperties')).toMatchObject({ value: { description: 'two' }, version: '2' });
    const stale = await write('three', '1');
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({ status: 412, exceptionClass: 'PreconditionFailedError', message: expect.stringMatching(/Expected version 1, actual version 2/) });
    expect((await stored(urn, 'datasetProperties'))?.value.description).toBe('two');
    // The same value again keeps the version (nothing new is stored), as in DataHub.
    expect((await write('two', '2')).status).toBe(200);
    expect((await stored(urn, 'datasetProperties'))?.version).toBe('2');
    // A version sent in systemMetadata is the server's to assign.
    expect((await ingest(proposal(urn, 'datasetProperties', { description: 'four' }, { systemMetadata: { version: '99' } }))).status).toBe(200);
    expect((await stored(urn, 'datasetProperties'))?.version).toBe('3');
  });

  it('refuses conditions it does not implement, before anything is written', async () => {
    const urn = datasetUrn(uniqueId('unsupported-conditions'));
    const since = await ingest(proposal(urn, 'datasetProperties', { description: 'x' }, { headers: { 'If-Unmodified-Since': '2024-01-01T00:00:00Z' } }));
    expect(since.status).toBe(400);
    expect(since.body.message).toMatch(/If-Unmodified-Since/);
    const remove = await ingest({ entityType: 'dataset', entityUrn: urn, changeType: 'DELETE', aspectName: 'datasetProperties', headers: { 'If-Version-Match': '1' } });
    expect(remove.status).toBe(400);
    expect((await ingest(proposal(urn, 'datasetProfile', { timestampMillis: 1, rowCount: 1 }, { changeType: 'CREATE' }))).status).toBe(400);
    expect((await ingest(proposal(urn, 'datasetProperties', { description: 'x' }, { headers: ['If-None-Match'] }))).status).toBe(400);
    expect(await stored(urn, 'datasetProperties')).toBeNull();
  });

  it("the official client's conditional creates (a data product's domain, CREATE + If-None-Match) leave what exists", async () => {
    const name = uniqueId('dp');
    const script = `
import json, sys
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.emitter.mcp_builder import DataProductKey, gen_data_product
from datahub.emitter.rest_emitter import DatahubRestEmitter
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig
from datahub.metadata.schema_classes import ChangeTypeClass, DomainsClass, GlobalTagsClass, TagAssociationClass

emitter = DatahubRestEmitter(sys.argv[1])
key = DataProductKey(platform="hive", name=sys.argv[2])
for domain in ("urn:li:domain:first", "urn:li:domain:second"):
    for wu in gen_data_product(key, name=sys.argv[2], domain_urn=domain):
        emitter.emit(wu.metadata)
urn = key.as_urn()
dataset = "urn:li:dataset:(urn:li:dataPlatform:hive,%s,PROD)" % sys.argv[2]
for tag in ("urn:li:tag:first", "urn:li:tag:second"):
    emitter.emit(MetadataChangeProposalWrapper(entityUrn=dataset, aspect=GlobalTagsClass(tags=[TagAssociationClass(tag=tag)]),
                                               changeType=ChangeTypeClass.CREATE, headers={"If-None-Match": "*"}))
graph = DataHubGraph(DatahubClientConfig(server=sys.argv[1]))
print(json.dumps({"domains": graph.get_aspect(urn, DomainsClass).domains,
                  "tags": [t.tag for t in graph.get_aspect(dataset, GlobalTagsClass).tags]}))
`;
    const run = await client.python(script, [svc.url, name]);
    expect(run.stderr).not.toMatch(/Traceback/);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toEqual({ domains: ['urn:li:domain:first'], tags: ['urn:li:tag:first'] });
  });

  it("the SDK's client.entities.create (CREATE_ENTITY, then CREATE per aspect) writes a new entity and fails on an existing one", async () => {
    const name = uniqueId('sdk-create');
    const script = `
import json, sys, warnings
warnings.filterwarnings("ignore")
from datahub.configuration.common import OperationalError
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.metadata.schema_classes import ChangeTypeClass
from datahub.sdk.dataset import Dataset
from datahub.sdk.main_client import DataHubClient

client = DataHubClient(server=sys.argv[1])
dataset = Dataset(platform="hive", name=sys.argv[2], description="created", tags=["urn:li:tag:created"])
client.entities.create(dataset)
got = client.entities.get(dataset.urn)
# What create sends, sent again past its client-side exists check: the service refuses it whole.
mcps = [MetadataChangeProposalWrapper(entityUrn=str(dataset.urn), aspect=dataset.urn.to_key_aspect(), changeType=ChangeTypeClass.CREATE_ENTITY)]
mcps += Dataset(platform="hive", name=sys.argv[2], description="again").as_mcps(ChangeTypeClass.CREATE)
try:
    client._graph.emit_mcps(mcps)
    refused = None
except OperationalError as e:
    refused = e.info.get("status")
print(json.dumps({"description": got.description, "tags": [str(t.tag) for t in got.tags or []], "refused": refused,
                  "after": client.entities.get(dataset.urn).description}))
`;
    const run = await client.python(script, [svc.url, name]);
    expect(run.stderr).not.toMatch(/Traceback/);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toEqual({ description: 'created', tags: ['urn:li:tag:created'], refused: 422, after: 'created' });
  });
});
