import { defaultBrowsePaths, defaultBrowsePathsV2, normalizeBrowsePath } from '../../src/model/browse-paths';
import { parseUrn } from '../../src/model/urn';

describe('default browse paths', () => {
  const paths = (urn: string) => defaultBrowsePaths(parseUrn(urn));
  const v2 = (urn: string, context = {}) => defaultBrowsePathsV2(parseUrn(urn), context).path;

  it('keeps the legacy form for datasets, charts and dashboards, and follows DataHub for the other types', () => {
    expect(paths('urn:li:dataset:(urn:li:dataPlatform:hive,Db.Orders,PROD)')).toEqual(['/prod/hive/db/orders']);
    expect(paths('urn:li:chart:(looker,Board.1)')).toEqual(['/looker/board.1']);
    expect(paths('urn:li:dashboard:(looker,Main)')).toEqual(['/looker/main']);
    expect(paths('urn:li:dataFlow:(Airflow,etl,PROD)')).toEqual(['/airflow/prod']);
    expect(paths('urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,DEV),load)')).toEqual(['/airflow/dev']);
    for (const urn of ['urn:li:container:abc', 'urn:li:glossaryTerm:a.b', 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,m,PROD)']) expect(paths(urn)).toEqual(['']);
  });

  it('makes browsePathsV2 from the dataset name, the job flow, or the Default folder', () => {
    expect(v2('urn:li:dataset:(urn:li:dataPlatform:hive,Db.Schema.Orders,PROD)')).toEqual([{ id: 'db' }, { id: 'schema' }]);
    expect(v2('urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)')).toEqual([{ id: 'Default' }]);
    const flow = 'urn:li:dataFlow:(airflow,etl,PROD)';
    expect(v2(`urn:li:dataJob:(${flow},load)`)).toEqual([{ id: flow, urn: flow }]);
    expect(v2('urn:li:chart:(looker,1)')).toEqual([{ id: 'Default' }]);
  });

  it('puts the platform instance first and the container chain after it', () => {
    const instance = 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:mysql,east)';
    const db = 'urn:li:container:db';
    const schema = 'urn:li:container:schema';
    const dataset = 'urn:li:dataset:(urn:li:dataPlatform:mysql,db.schema.t,PROD)';
    expect(v2(dataset, { platformInstance: instance })).toEqual([{ id: instance, urn: instance }, { id: 'db' }, { id: 'schema' }]);
    expect(v2(dataset, { platformInstance: instance, container: { urn: schema, path: [{ id: instance, urn: instance }, { id: db, urn: db }] } })).toEqual([
      { id: instance, urn: instance },
      { id: db, urn: db },
      { id: schema, urn: schema },
    ]);
    expect(v2(dataset, { container: { urn: db, path: [{ id: 'Default' }] } })).toEqual([{ id: db, urn: db }]);
    expect(v2('urn:li:container:x', { platformInstance: instance })).toEqual([{ id: instance, urn: instance }]);
  });

  it('normalizes browse paths', () => {
    expect(['', '/', 'prod/kafka1/', '//prod//kafka1'].map(normalizeBrowsePath)).toEqual(['/', '/', '/prod/kafka1', '/prod/kafka1']);
  });
});
