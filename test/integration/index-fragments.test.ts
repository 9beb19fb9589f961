import { buildDocument } from '../../src/services/indexing/document';
import { proposal } from '../support/samples';
import { engineUrl, startTestService, uniqueId, type TestService } from '../support/service';

/**
 * The indexer builds the documents of this process's writes from the search fragments the writes carried, without
 * reading the entity back from Neo4j, and the documents are the ones a read would give. A change it did not see (another
 * process's write) moves the entity's revision past its copy, and the entity is read again.
 */
describe('search documents from the fragments of committed writes', () => {
  let svc: TestService;
  const runPrefix = `frag${Date.now().toString(36)}_`;
  const id = uniqueId().toLowerCase();
  const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,frag_${id},PROD)`;
  let latestReads: string[][] = [];

  const ingest = async (aspect: string, value: unknown, changeType = 'UPSERT') => {
    const body = proposal(urn, aspect, value, changeType);
    if (changeType === 'PATCH') body.proposal.aspect = { value: JSON.stringify(value), contentType: 'application/json-patch+json' };
    const res = await svc.call('POST', '/aspects?action=ingestProposal', body);
    expect(res.status).toBe(200);
  };
  const indexed = async () => {
    await svc.indexer.waitUntilIndexed([urn]);
    const res = await fetch(`${engineUrl('opensearch')}/${svc.indexNames.entity('dataset')}/_doc/${encodeURIComponent(urn)}`);
    return ((await res.json()) as { _source: Record<string, unknown> })._source;
  };
  /** The document built from the entity as Neo4j holds it now. */
  const fromNeo4j = async () => {
    const state = (await svc.indexer['aspects'].latestMany([urn], null)).get(urn)!;
    return JSON.parse(JSON.stringify(buildDocument(svc.registry, svc.registry.entities.get('dataset')!, urn, state.aspects)));
  };

  beforeAll(async () => {
    svc = await startTestService({ SEARCH_INDEX_PREFIX: runPrefix });
    const query = svc.graph.query.bind(svc.graph);
    jest.spyOn(svc.graph, 'query').mockImplementation((caller, statement, params, options) => {
      if (caller === 'retrieval.latestMany') latestReads.push((params as { urns: string[] }).urns);
      return query(caller, statement, params, options);
    });
  });
  afterAll(async () => {
    await fetch(`${engineUrl('opensearch')}/${runPrefix}*`, { method: 'DELETE' });
    await svc.close();
  });

  it('indexes a chain of writes, deletes and patches without reading the entity, to the document a read gives', async () => {
    await ingest('datasetProperties', { name: `frag_${id}`, description: 'first words', customProperties: { team: 'core' } });
    expect(await indexed()).toMatchObject({ name: `frag_${id}`, description: 'first words' });
    await ingest('schemaMetadata', {
      schemaName: 's',
      platform: 'urn:li:dataPlatform:hive',
      version: 0,
      hash: '',
      platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
      fields: ['order_id', 'customer_email'].map((fieldPath) => ({ fieldPath, nativeDataType: 'string', type: { type: { 'com.linkedin.schema.StringType': {} } }, description: `the ${fieldPath}` })),
    });
    await ingest('globalTags', { tags: [{ tag: `urn:li:tag:pii_${id}` }] });
    await ingest('ownership', { owners: [{ owner: `urn:li:corpuser:o_${id}`, type: 'DATAOWNER' }] });
    expect(await indexed()).toMatchObject({ fieldPaths: ['order_id', 'customer_email'], tags: `urn:li:tag:pii_${id}`, owners: `urn:li:corpuser:o_${id}` });
    await ingest('globalTags', null, 'DELETE');
    await ingest('ownership', [{ op: 'add', path: `/owners/urn:li:corpuser:p_${id}/DATAOWNER`, value: { owner: `urn:li:corpuser:p_${id}`, type: 'DATAOWNER' } }], 'PATCH');
    const doc = await indexed();
    expect(doc.tags).toBeUndefined();
    expect(doc.owners).toEqual([`urn:li:corpuser:o_${id}`, `urn:li:corpuser:p_${id}`]);
    expect(latestReads.filter((urns) => urns.includes(urn))).toEqual([]);
    expect(doc).toEqual(await fromNeo4j());
  });

  it("reads the entity again after a change it did not see, and carries on from that read", async () => {
    // Another process's write, as Neo4j sees it: a new value, a bumped revision and an outbox entry.
    await svc.graph.driver.executeQuery(
      `MATCH (e:Entity {urn: $urn})-[:ASPECT]->(a:Aspect {name: 'datasetProperties'})
       SET a.value = $value, e.rev = e.rev + 1
       WITH e
       MERGE (o:Outbox {urn: $urn, ns: $ns}) SET o.rev = e.rev, o.updatedAt = timestamp(), o.claimUntil = 0`,
      { urn, ns: runPrefix, value: JSON.stringify({ name: `frag_${id}`, description: 'changed elsewhere', customProperties: {} }) },
      { database: 'neo4j' },
    );
    svc.indexer.notify();
    latestReads = [];
    expect(await indexed()).toMatchObject({ description: 'changed elsewhere' });
    expect(latestReads.filter((urns) => urns.includes(urn))).toHaveLength(1);

    await ingest('globalTags', { tags: [{ tag: `urn:li:tag:late_${id}` }] });
    const doc = await indexed();
    expect(doc).toMatchObject({ description: 'changed elsewhere', tags: `urn:li:tag:late_${id}` });
    expect(latestReads.filter((urns) => urns.includes(urn))).toHaveLength(1);
    expect(doc).toEqual(await fromNeo4j());
  });
});
