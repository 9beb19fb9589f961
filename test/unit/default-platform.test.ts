import { join } from 'node:path';
import { defaultPlatform } from '../../src/model/default-platform';
import { Registry } from '../../src/model/registry';
import { parseUrn } from '../../src/model/urn';
import { buildDocument } from '../../src/services/indexing/document';

const registry = Registry.load(join(__dirname, '..', '..', 'schema'));
const platformOf = (urn: string) => defaultPlatform(parseUrn(urn));
const documentOf = (urn: string, aspects: Record<string, Record<string, unknown>> = {}) =>
  buildDocument(registry, registry.entity(parseUrn(urn).entityType), urn, new Map(Object.entries(aspects)));

describe("the platform of DataHub's default dataPlatformInstance", () => {
  it('comes from the key: a platform urn, or a tool or orchestrator name in lower case', () => {
    expect(platformOf('urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn,PROD)')).toBe('urn:li:dataPlatform:sagemaker');
    expect(platformOf('urn:li:mlModelGroup:(urn:li:dataPlatform:mlflow,g,PROD)')).toBe('urn:li:dataPlatform:mlflow');
    expect(platformOf('urn:li:mlFeatureTable:(urn:li:dataPlatform:feast,users)')).toBe('urn:li:dataPlatform:feast');
    expect(platformOf('urn:li:chart:(Looker,revenue)')).toBe('urn:li:dataPlatform:looker');
    expect(platformOf('urn:li:dashboard:(tableau,sales)')).toBe('urn:li:dataPlatform:tableau');
    expect(platformOf('urn:li:dataFlow:(airflow,etl,PROD)')).toBe('urn:li:dataPlatform:airflow');
    expect(platformOf('urn:li:dataJob:(urn:li:dataFlow:(Airflow,etl,PROD),load)')).toBe('urn:li:dataPlatform:airflow');
  });

  it('is none for types DataHub gives no default platform', () => {
    expect(platformOf('urn:li:mlFeature:(ns,age)')).toBeNull();
    expect(platformOf('urn:li:container:abc')).toBeNull();
    expect(platformOf('urn:li:tag:pii')).toBeNull();
  });

  it("fills a search document's platform, and its words, unless the entity has a dataPlatformInstance of its own", () => {
    const model = documentOf('urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn,PROD)', { mlModelProperties: { description: 'churn' } });
    expect(model.platform).toBe('urn:li:dataPlatform:sagemaker');
    expect(model.urnTokens).toEqual(expect.arrayContaining(['sagemaker']));
    const chart = documentOf('urn:li:chart:(looker,revenue)', { dataPlatformInstance: { platform: 'urn:li:dataPlatform:superset' } });
    expect(chart.platform).toBe('urn:li:dataPlatform:superset');
    expect(documentOf('urn:li:mlFeature:(ns,age)', { mlFeatureProperties: { description: 'age' } }).platform).toBeUndefined();
  });
});
