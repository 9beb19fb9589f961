/** Sample entities in the shapes of the interface document, made unique per test with `id`. */
export function samples(id: string) {
  const user = `urn:li:corpuser:jdoe_${id}`;
  const user2 = `urn:li:corpuser:asmith_${id}`;
  const group = `urn:li:corpGroup:bfoo_${id}`;
  const tag = `urn:li:tag:Legacy_${id}`;
  const term = `urn:li:glossaryTerm:Classification.Sensitive_${id}`;
  const platform = 'urn:li:dataPlatform:hive';
  const dataset = `urn:li:dataset:(${platform},SampleHiveDataset_${id},PROD)`;
  const upstream = `urn:li:dataset:(${platform},fct_users_created_${id},PROD)`;
  const chart = `urn:li:chart:(looker,baz1_${id})`;
  const dashboard = `urn:li:dashboard:(looker,baz_${id})`;
  const stamp = { time: 1581407189000, actor: user };

  const snapshots = {
    user: {
      'com.linkedin.metadata.snapshot.CorpUserSnapshot': {
        urn: user,
        aspects: [{ 'com.linkedin.identity.CorpUserInfo': { active: true, displayName: 'John Doe', fullName: 'John Doe', email: 'jdoe@linkedin.com' } }],
      },
    },
    group: {
      'com.linkedin.metadata.snapshot.CorpGroupSnapshot': {
        urn: group,
        aspects: [{ 'com.linkedin.identity.CorpGroupInfo': { email: 'bfoo@linkedin.com', admins: [user], members: [user, user2], groups: [] } }],
      },
    },
    dataset: {
      'com.linkedin.metadata.snapshot.DatasetSnapshot': {
        urn: dataset,
        aspects: [
          { 'com.linkedin.common.Ownership': { owners: [{ owner: user, type: 'DATAOWNER' }], lastModified: stamp } },
          {
            'com.linkedin.common.InstitutionalMemory': {
              elements: [{ url: 'https://www.linkedin.com', description: 'Sample doc', createStamp: stamp }],
            },
          },
          {
            'com.linkedin.schema.SchemaMetadata': {
              schemaName: 'SampleHiveSchema',
              platform,
              version: 0,
              created: stamp,
              lastModified: stamp,
              hash: '',
              platformSchema: { 'com.linkedin.schema.KafkaSchema': { documentSchema: '{"type":"record","name":"SampleHiveSchema"}' } },
              fields: [
                { fieldPath: 'field_foo', description: 'Foo field description', nativeDataType: 'varchar(100)', type: { type: { 'com.linkedin.schema.StringType': {} } }, nullable: false, isPartOfKey: true, recursive: false },
                { fieldPath: 'field_bar', description: 'Bar field description', nativeDataType: 'boolean', type: { type: { 'com.linkedin.schema.BooleanType': {} } }, nullable: false, recursive: false },
              ],
            },
          },
          { 'com.linkedin.common.GlobalTags': { tags: [{ tag: tag }] } },
          {
            'com.linkedin.schema.EditableSchemaMetadata': {
              created: stamp,
              lastModified: stamp,
              editableSchemaFieldInfo: [{ fieldPath: 'field_foo', globalTags: { tags: [{ tag: tag }] } }],
            },
          },
          { 'com.linkedin.dataset.UpstreamLineage': { upstreams: [{ auditStamp: stamp, type: 'TRANSFORMED', dataset: upstream }] } },
          { 'com.linkedin.common.Status': { removed: false } },
        ],
      },
    },
    chart: {
      'com.linkedin.metadata.snapshot.ChartSnapshot': {
        urn: chart,
        aspects: [
          { 'com.linkedin.chart.ChartInfo': { title: 'Baz Chart 1', description: 'Baz Chart 1', inputs: [{ string: dataset }], lastModified: { created: stamp, lastModified: stamp } } },
          { 'com.linkedin.common.Status': { removed: false } },
        ],
      },
    },
    dashboard: {
      'com.linkedin.metadata.snapshot.DashboardSnapshot': {
        urn: dashboard,
        aspects: [{ 'com.linkedin.dashboard.DashboardInfo': { title: 'Baz Dashboard', description: 'Baz Dashboard', charts: [chart], lastModified: { created: stamp, lastModified: stamp } } }],
      },
    },
    tag: {
      'com.linkedin.metadata.snapshot.TagSnapshot': {
        urn: tag,
        aspects: [{ 'com.linkedin.tag.TagProperties': { name: `Legacy_${id}`, description: 'Indicates the dataset is no longer supported' } }],
      },
    },
    glossaryTerm: {
      'com.linkedin.metadata.snapshot.GlossaryTermSnapshot': {
        urn: term,
        aspects: [
          {
            'com.linkedin.glossary.GlossaryTermInfo': {
              definition: 'Sensitive data',
              customProperties: { FQDN: 'Classification.Sensitive' },
              sourceRef: 'FIBO',
              sourceUrl: 'https://spec.edmcouncil.org/fibo/',
              termSource: 'EXTERNAL',
            },
          },
          { 'com.linkedin.common.Ownership': { owners: [{ owner: user, type: 'DATAOWNER' }], lastModified: stamp } },
        ],
      },
    },
  };
  return { urns: { user, user2, group, tag, term, dataset, upstream, chart, dashboard, platform }, snapshots, stamp };
}

/** A proposal body for `aspects?action=ingestProposal`. */
export function proposal(entityUrn: string, aspectName: string, value: unknown, changeType = 'UPSERT') {
  const entityType = entityUrn.split(':')[2];
  return {
    proposal: {
      entityType,
      entityUrn,
      changeType,
      aspectName,
      ...(changeType === 'DELETE' ? {} : { aspect: { value: JSON.stringify(value), contentType: 'application/json' } }),
    },
  };
}
