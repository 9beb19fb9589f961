import type { Registry } from './registry';

/**
 * DataHub's GraphQL `EntityType` names of the model's entity types (EntityTypeMapper in datahub-graphql-core), and the
 * names the official client derives for any other type (`entity_type_to_graphql`: camelCase to UPPER_SNAKE, without a
 * `DATA_HUB_` prefix). Filters on `_entityType` arrive in either form, or as the model's own name.
 */
const DATAHUB_NAMES: Record<string, string> = {
  domain: 'DOMAIN',
  dataset: 'DATASET',
  corpuser: 'CORP_USER',
  corpGroup: 'CORP_GROUP',
  dataPlatform: 'DATA_PLATFORM',
  erModelRelationship: 'ER_MODEL_RELATIONSHIP',
  dashboard: 'DASHBOARD',
  notebook: 'NOTEBOOK',
  chart: 'CHART',
  dataFlow: 'DATA_FLOW',
  dataJob: 'DATA_JOB',
  tag: 'TAG',
  glossaryTerm: 'GLOSSARY_TERM',
  glossaryNode: 'GLOSSARY_NODE',
  container: 'CONTAINER',
  mlModel: 'MLMODEL',
  mlModelGroup: 'MLMODEL_GROUP',
  mlFeatureTable: 'MLFEATURE_TABLE',
  mlFeature: 'MLFEATURE',
  mlPrimaryKey: 'MLPRIMARY_KEY',
  dataHubIngestionSource: 'INGESTION_SOURCE',
  dataHubExecutionRequest: 'EXECUTION_REQUEST',
  assertion: 'ASSERTION',
  dataProcessInstance: 'DATA_PROCESS_INSTANCE',
  dataPlatformInstance: 'DATA_PLATFORM_INSTANCE',
  dataHubAccessToken: 'ACCESS_TOKEN',
  test: 'TEST',
  dataHubPolicy: 'DATAHUB_POLICY',
  dataHubRole: 'DATAHUB_ROLE',
  post: 'POST',
  schemaField: 'SCHEMA_FIELD',
  dataHubView: 'DATAHUB_VIEW',
  query: 'QUERY',
  dataProduct: 'DATA_PRODUCT',
  ownershipType: 'CUSTOM_OWNERSHIP_TYPE',
  incident: 'INCIDENT',
  role: 'ROLE',
  structuredProperty: 'STRUCTURED_PROPERTY',
  form: 'FORM',
  dataType: 'DATA_TYPE',
  entityType: 'ENTITY_TYPE',
  businessAttribute: 'BUSINESS_ATTRIBUTE',
};

/** The entity types searchAcrossEntities searches when none are given (DataHub's SEARCHABLE_ENTITY_TYPES). */
export const DEFAULT_SEARCH_TYPES = [
  'dataset',
  'dashboard',
  'chart',
  'mlModel',
  'mlModelGroup',
  'mlFeatureTable',
  'mlFeature',
  'mlPrimaryKey',
  'dataFlow',
  'dataJob',
  'glossaryTerm',
  'glossaryNode',
  'tag',
  'role',
  'corpuser',
  'corpGroup',
  'container',
  'domain',
  'dataProduct',
  'notebook',
  'businessAttribute',
  'schemaField',
  'dataPlatformInstance',
];

/** The official client's own conversion (datahub.ingestion.graph.client.entity_type_to_graphql). */
export function clientGraphqlName(entityType: string): string {
  const name = entityType.replace(/[A-Z]/g, (c) => `_${c}`).replace(/^_/, '').toUpperCase();
  return name.startsWith('DATA_HUB_') ? name.slice('DATA_HUB_'.length) : name;
}

export class EntityTypeNames {
  private readonly toModel = new Map<string, string>();
  private readonly toGraphql = new Map<string, string>();

  constructor(registry: Registry) {
    for (const [name, spec] of registry.entities) {
      const official = DATAHUB_NAMES[name] ?? spec.graphqlType;
      this.toGraphql.set(name, official);
      for (const alias of [official, spec.graphqlType, clientGraphqlName(name)]) if (!this.toModel.has(alias)) this.toModel.set(alias, name);
    }
  }

  /** Every GraphQL name an entity type may be given by (DataHub's and the client's), for the `EntityType` enum. */
  get graphqlNames(): string[] {
    return [...this.toModel.keys()].filter((n) => /^[A-Z_][A-Z0-9_]*$/.test(n));
  }

  /** DataHub's GraphQL name of a model entity type; OTHER for none. */
  graphql(entityType: string): string {
    return this.toGraphql.get(entityType) ?? 'OTHER';
  }

  /** The model entity type of a GraphQL name or a model name; undefined when it names none. */
  model(name: string): string | undefined {
    if (this.toGraphql.has(name)) return name;
    return this.toModel.get(name) ?? this.toModel.get(name.toUpperCase());
  }
}
