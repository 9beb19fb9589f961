import { handleMaybePromise, type MaybePromise } from '@whatwg-node/promise-helpers';
import { Kind, parse, type EnumTypeDefinitionNode } from 'graphql';
import { container, dataPlatformInstance, dataProcessInstanceProperties, domains, editableContainerProperties, globalTags, glossaryTerms, mlTrainingRunProperties, ownership, subTypes } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { EntityTypeNames } from '../model/entity-type-names';
import type { Registry } from '../model/registry';
import { platformUrn, tryParseUrn } from '../model/urn';
import type { EntityReads } from '../services/entity-reads';
import type { AspectValues } from '../services/lineage/lineage-service';
import { ENTITY_TYPE_FACET, validateKeepAlive, type AcrossEntitiesSearch, type AcrossFacet, type AcrossHit, type SortCriterion } from '../services/search/across-entities';
import { parseFilter, type Filter } from '../services/search/query-builder';
import type { SearchService } from '../services/search/search-service';
import type { DataProducts } from '../services/data-products';
import type { Hierarchy } from '../services/hierarchy';
import { withView, type Views } from '../services/views';
import { lineageTypeDefs } from './graphql-lineage';
import { perRequestLoader } from './graphql-request-loader';

/**
 * DataHub's search GraphQL (searchAcrossEntities, scrollAcrossEntities, aggregateAcrossEntities) with its input and
 * result types, and the entity fields the official client's queries select (get_urns_by_filter, the SDK's search
 * client, the `datahub search` CLI): names, properties, platform, tags, glossary terms, owners, domain, container.
 */
const typeDefs = /* GraphQL */ `
  extend type Query {
    "Search over several entity types (all searchable ones when types is empty), paged by start/count."
    searchAcrossEntities(input: SearchAcrossEntitiesInput!): SearchResults
    "Search over several entity types, paged by scrollId (scroll ids never expire here; keepAlive is accepted)."
    scrollAcrossEntities(input: ScrollAcrossEntitiesInput!): ScrollResults
    "Facet counts of a search over several entity types."
    aggregateAcrossEntities(input: AggregateAcrossEntitiesInput!): AggregateResults
    "Search over one entity type (DataHub's original search query), paged by start/count."
    search(input: SearchInput!): SearchResults
    "One level of an entity type's browse paths: the groups below the path (each counting the entities anywhere under it), then the entities at it."
    browse(input: BrowseInput!): BrowseResults
  }

  input SearchInput {
    type: EntityType!
    query: String!
    start: Int
    count: Int
    "Deprecated: AND of criteria; with orFilters, added to every OR branch."
    filters: [FacetFilterInput!]
    orFilters: [AndFilterInput!]
    searchFlags: SearchFlags
  }

  input BrowseInput {
    type: EntityType!
    "The path segments, e.g. prod then hive; none: the top level."
    path: [String!]
    start: Int
    count: Int
    filters: [FacetFilterInput!]
    orFilters: [AndFilterInput!]
  }

  type BrowseResults {
    entities: [Entity!]!
    groups: [BrowseResultGroup!]!
    start: Int!
    count: Int!
    total: Int!
    metadata: BrowseResultMetadata!
  }

  type BrowseResultGroup {
    name: String!
    count: Long!
  }

  type BrowseResultMetadata {
    path: [String!]
    totalNumEntities: Long!
  }

  extend input SearchFlags {
    "Document fields returned with each result as extraProperties (values as JSON)."
    fetchExtraFields: [String!]
  }

  enum SortOrder {
    ASCENDING
    DESCENDING
  }

  input SortCriterion {
    field: String!
    sortOrder: SortOrder!
  }

  input SearchSortInput {
    sortCriterion: SortCriterion
    sortCriteria: [SortCriterion!]
  }

  input SearchAcrossEntitiesInput {
    types: [EntityType!]
    query: String!
    start: Int
    count: Int
    "Deprecated: AND of criteria; with orFilters, added to every OR branch."
    filters: [FacetFilterInput!]
    orFilters: [AndFilterInput!]
    "A saved view (createView) applied on top of the filters: its entity types and its filter."
    viewUrn: String
    searchFlags: SearchFlags
    sortInput: SearchSortInput
    "Facets to compute (default: _entityType and every facet of the searched types)."
    facets: [String]
  }

  input ScrollAcrossEntitiesInput {
    types: [EntityType!]
    query: String!
    scrollId: String
    keepAlive: String
    count: Int
    orFilters: [AndFilterInput!]
    viewUrn: String
    searchFlags: SearchFlags
    sortInput: SearchSortInput
  }

  input AggregateAcrossEntitiesInput {
    types: [EntityType!]
    query: String!
    facets: [String]
    orFilters: [AndFilterInput!]
    viewUrn: String
    searchFlags: SearchFlags
  }

  type SearchResults {
    start: Int!
    count: Int!
    total: Int!
    searchResults: [SearchResult!]!
    facets: [FacetMetadata!]
    suggestions: [SearchSuggestion!]
  }

  type ScrollResults {
    nextScrollId: String
    count: Int!
    total: Int!
    searchResults: [SearchResult!]!
    facets: [FacetMetadata!]
  }

  type AggregateResults {
    facets: [FacetMetadata!]
  }

  type SearchResult {
    entity: Entity!
    insights: [SearchInsight!]
    matchedFields: [MatchedField!]!
    extraProperties: [ExtraProperty!]
  }

  type ExtraProperty {
    name: String!
    value: String!
  }

  type SearchInsight {
    text: String!
    icon: String
  }

  type SearchSuggestion {
    text: String!
    score: Float
    frequency: Int
  }

  type FacetMetadata {
    field: String!
    displayName: String
    "Always null here (DataHub: the entity of a structured-property facet)."
    entity: Entity
    aggregations: [AggregationMetadata!]!
  }

  extend type MatchedField {
    "The entity when the value is an urn."
    entity: Entity
  }

  type AggregationMetadata {
    value: String!
    count: Long!
    entity: Entity
    displayName: String
  }

  type CustomPropertiesEntry {
    key: String!
    value: String
    associatedUrn: String!
  }

  type TagProperties {
    name: String!
    description: String
    colorHex: String
  }

  type Tag implements Entity {
    urn: String!
    type: EntityType!
    name: String!
    description: String
    properties: TagProperties
  }

  type TagAssociation {
    tag: Tag!
    associatedUrn: String!
    context: String
  }

  type GlobalTags {
    tags: [TagAssociation!]
  }

  type GlossaryTermProperties {
    name: String!
    description: String
    definition: String!
    termSource: String
  }

  type GlossaryTerm implements Entity {
    urn: String!
    type: EntityType!
    name: String!
    hierarchicalName: String!
    properties: GlossaryTermProperties
  }

  extend type Dataset {
    "Its siblings (the same asset seen through another platform, e.g. a dbt model and its warehouse table), whichever side wrote the siblings aspect; paged by scrollId."
    siblingsSearch(input: ScrollAcrossEntitiesInput!): ScrollResults
  }

  type DataProduct implements Entity {
    urn: String!
    type: EntityType!
    properties: DataProductProperties
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    ownership: Ownership
    domain: DomainAssociation
    container: Container
    subTypes: SubTypes
    "Its assets matching a search (every type; the query and filters of the input)."
    entities(input: SearchAcrossEntitiesInput): SearchResults
  }

  type DataProductProperties {
    name: String!
    description: String
    externalUrl: String
    numAssets: Int
    customProperties: [CustomPropertiesEntry!]
  }

  extend type Query {
    "A data product's assets matching a search."
    listDataProductAssets(urn: String!, input: SearchAcrossEntitiesInput!): SearchResults
  }

  type GlossaryNode implements Entity {
    urn: String!
    type: EntityType!
    properties: GlossaryNodeProperties
  }

  type GlossaryNodeProperties {
    name: String!
    description: String
  }

  "What Container.entities searches: entities of any type in the container (directly), matching the query and filters."
  input ContainerEntitiesInput {
    query: String
    start: Int
    count: Int
    filters: [FacetFilterInput!]
  }

  "What Domain.entities searches: entities of any type in the domain, matching the query and filters."
  input DomainEntitiesInput {
    query: String
    start: Int
    count: Int
    filters: [FacetFilterInput!]
  }

  extend type Container {
    "The entities whose container this is (its sub-containers too), paged by start/count."
    entities(input: ContainerEntitiesInput): SearchResults
  }

  extend type Domain {
    "The entities in this domain, paged by start/count."
    entities(input: DomainEntitiesInput): SearchResults
  }

  type GlossaryTermAssociation {
    term: GlossaryTerm!
    associatedUrn: String!
    context: String
  }

  type GlossaryTerms {
    terms: [GlossaryTermAssociation!]
  }

  type CorpUserProperties {
    displayName: String
    email: String
    title: String
    fullName: String
    firstName: String
    lastName: String
    active: Boolean!
  }

  type CorpUser implements Entity {
    urn: String!
    type: EntityType!
    username: String!
    properties: CorpUserProperties
    "Deprecated: properties."
    info: CorpUserInfo
  }

  "Deprecated: CorpUserProperties, under its old name."
  type CorpUserInfo {
    displayName: String
    email: String
    title: String
    fullName: String
    firstName: String
    lastName: String
    active: Boolean!
  }

  extend type Dataset {
    "Deprecated: properties.description."
    description: String
  }

  type CorpGroupProperties {
    displayName: String
    email: String
    description: String
  }

  type CorpGroup implements Entity {
    urn: String!
    type: EntityType!
    name: String!
    properties: CorpGroupProperties
  }

  union OwnerType = CorpUser | CorpGroup

  enum OwnershipType {
    TECHNICAL_OWNER
    BUSINESS_OWNER
    DATA_STEWARD
    NONE
    CUSTOM
    DATAOWNER
    PRODUCER
    DEVELOPER
    DELEGATE
    CONSUMER
    STAKEHOLDER
  }

  type Owner {
    owner: OwnerType!
    type: OwnershipType
    associatedUrn: String!
  }

  type Ownership {
    owners: [Owner!]
  }

  type DomainProperties {
    name: String!
    description: String
  }

  type Domain implements Entity {
    urn: String!
    type: EntityType!
    id: String!
    properties: DomainProperties
  }

  type DomainAssociation {
    domain: Domain!
    associatedUrn: String!
  }

  type SubTypes {
    typeNames: [String!]
  }

  type ContainerProperties {
    name: String!
    description: String
    qualifiedName: String
    customProperties: [CustomPropertiesEntry!]
  }

  type Container implements Entity {
    urn: String!
    type: EntityType!
    properties: ContainerProperties
    "What was edited in DataHub rather than ingested (editableContainerProperties)."
    editableProperties: ContainerEditableProperties
    platform: DataPlatform
    container: Container
    subTypes: SubTypes
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    ownership: Ownership
    domain: DomainAssociation
  }

  type ContainerEditableProperties {
    description: String
  }

  type DataPlatformProperties {
    type: String
    displayName: String
    datasetNameDelimiter: String
    logoUrl: String
  }

  extend type DataPlatform implements Entity {
    type: EntityType!
    displayName: String
    properties: DataPlatformProperties
  }

  extend type DatasetProperties {
    customProperties: [CustomPropertiesEntry!]
  }

  extend type EntityProperties {
    customProperties: [CustomPropertiesEntry!]
  }

  extend type Dataset {
    "The environment (FabricType) of the dataset's urn."
    origin: String
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    ownership: Ownership
    domain: DomainAssociation
    container: Container
    subTypes: SubTypes
  }

  extend type Chart {
    platform: DataPlatform
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    ownership: Ownership
    domain: DomainAssociation
    container: Container
    subTypes: SubTypes
  }

  extend type Dashboard {
    platform: DataPlatform
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    ownership: Ownership
    domain: DomainAssociation
    container: Container
    subTypes: SubTypes
  }

  extend type DataJob {
    dataFlow: DataFlow
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    ownership: Ownership
    domain: DomainAssociation
    subTypes: SubTypes
    container: Container
  }

  extend type DataFlow {
    cluster: String
    platform: DataPlatform
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    ownership: Ownership
    domain: DomainAssociation
    subTypes: SubTypes
    container: Container
  }

  extend type DataProcessInstance {
    properties: DataProcessInstanceProperties
    dataPlatformInstance: DataPlatformInstance
    platform: DataPlatform
    container: Container
    subTypes: SubTypes
    mlTrainingRunProperties: MLTrainingRunProperties
  }

  type DataProcessInstanceProperties {
    name: String!
    externalUrl: String
    created: AuditStamp
    customProperties: [CustomPropertiesEntry!]
  }

  type MLTrainingRunProperties {
    id: String
    outputUrls: [String]
    hyperParams: [MLHyperParam]
    trainingMetrics: [MLMetric]
  }

  type MLHyperParam {
    name: String
    description: String
    value: String
    createdAt: Long
  }

  type MLMetric {
    name: String
    description: String
    value: String
    createdAt: Long
  }

  type MLProperties {
    name: String!
    description: String
    customProperties: [CustomPropertiesEntry!]
  }

  type MLModel implements Entity {
    urn: String!
    type: EntityType!
    name: String!
    properties: MLProperties
    platform: DataPlatform
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    ownership: Ownership
    domain: DomainAssociation
    container: Container
    subTypes: SubTypes
  }

  type MLModelGroup implements Entity {
    urn: String!
    type: EntityType!
    name: String!
    properties: MLProperties
    platform: DataPlatform
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    ownership: Ownership
    domain: DomainAssociation
    container: Container
    subTypes: SubTypes
  }

  type MLFeatureTable implements Entity {
    urn: String!
    type: EntityType!
    name: String!
    properties: MLProperties
    platform: DataPlatform
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    ownership: Ownership
    domain: DomainAssociation
    container: Container
    subTypes: SubTypes
  }

  type MLFeature implements Entity {
    urn: String!
    type: EntityType!
    name: String!
    properties: MLProperties
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    ownership: Ownership
    domain: DomainAssociation
    container: Container
    subTypes: SubTypes
  }

  type MLPrimaryKey implements Entity {
    urn: String!
    type: EntityType!
    name: String!
    properties: MLProperties
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    ownership: Ownership
    domain: DomainAssociation
    container: Container
    subTypes: SubTypes
  }
`;

/** The schema text: the types above and the EntityType names the lineage schema does not declare yet. */
export function searchTypeDefs(names: EntityTypeNames): string {
  const declared = new Set<string>();
  for (const def of parse(lineageTypeDefs).definitions) {
    if (def.kind === Kind.ENUM_TYPE_DEFINITION && (def as EnumTypeDefinitionNode).name.value === 'EntityType') {
      for (const v of (def as EnumTypeDefinitionNode).values ?? []) declared.add(v.name.value);
    }
  }
  const missing = names.graphqlNames.filter((n) => !declared.has(n));
  return `${typeDefs}\n  extend enum EntityType {\n    ${missing.join('\n    ')}\n  }\n`;
}

/** An entity as these resolvers see it: its urn and model type (lineage results also bring some aspects). */
interface EntityRef {
  urn: string;
  type?: string;
  /** Aspects a lineage walk brought along (as of its moment, for an as-of walk): they win over a fresh read. */
  aspects?: AspectValues;
  /** The aspects that walk read: one of them missing from `aspects` is one the entity has not (then), not one to read. */
  aspectsRead?: ReadonlySet<string>;
}

type Aspect = Record<string, unknown>;

/** The GraphQL object of each entity type that has one (the others are OtherEntity). */
export const GRAPHQL_OBJECT: Record<string, string> = {
  dataset: 'Dataset',
  chart: 'Chart',
  dashboard: 'Dashboard',
  dataJob: 'DataJob',
  dataFlow: 'DataFlow',
  dataProcessInstance: 'DataProcessInstance',
  assertion: 'Assertion',
  schemaField: 'SchemaFieldEntity',
  container: 'Container',
  corpuser: 'CorpUser',
  corpGroup: 'CorpGroup',
  domain: 'Domain',
  tag: 'Tag',
  glossaryTerm: 'GlossaryTerm',
  glossaryNode: 'GlossaryNode',
  dataProduct: 'DataProduct',
  dataPlatform: 'DataPlatform',
  mlModel: 'MLModel',
  mlModelGroup: 'MLModelGroup',
  mlFeatureTable: 'MLFeatureTable',
  mlFeature: 'MLFeature',
  mlPrimaryKey: 'MLPrimaryKey',
};

const OWNERSHIP_TYPES = new Set(['TECHNICAL_OWNER', 'BUSINESS_OWNER', 'DATA_STEWARD', 'NONE', 'CUSTOM', 'DATAOWNER', 'PRODUCER', 'DEVELOPER', 'DELEGATE', 'CONSUMER', 'STAKEHOLDER']);

function modelOf(e: EntityRef): string {
  return e.type ?? tryParseUrn(e.urn)?.entityType ?? 'other';
}

function ref(urn: string): EntityRef {
  return { urn, type: tryParseUrn(urn)?.entityType };
}

function idOf(e: EntityRef): string {
  return tryParseUrn(e.urn)?.id ?? e.urn;
}

function part(e: EntityRef, i: number): string | null {
  return tryParseUrn(e.urn)?.parts[i] ?? null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function customProperties(value: unknown, urn: string) {
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).map(([key, v]) => ({ key, value: v === null || v === undefined ? null : String(v), associatedUrn: urn }));
}

/** A urn-derived platform: dataset (platform, …), chart/dashboard/dataFlow (tool, …), ML (platform, …). */
function platformFromUrn(e: EntityRef, namespace: string): string | null {
  const first = part(e, 0);
  if (!first) return null;
  return platformUrn(namespace, first);
}

interface FlagsInput {
  includeSoftDeleted?: boolean | null;
  skipAggregates?: boolean | null;
  skipHighlighting?: boolean | null;
  maxAggValues?: number | null;
  fetchExtraFields?: string[] | null;
  groupingSpec?: { groupingCriteria?: unknown[] | null } | null;
}

interface FacetFilterInput {
  field: string;
  value?: string | null;
  values?: string[] | null;
  negated?: boolean | null;
  condition?: string | null;
}

/** The position a siblingsSearch cursor carries (0 without one); a cursor this service did not make is refused. */
function siblingsOffset(scrollId: string | null | undefined): number {
  if (!scrollId) return 0;
  try {
    const offset = (JSON.parse(Buffer.from(scrollId, 'base64url').toString('utf8')) as { siblingsOffset?: unknown }).siblingsOffset;
    if (Number.isSafeInteger(offset) && (offset as number) >= 0) return offset as number;
  } catch {
    /* refused below */
  }
  throw new InvalidInputError('Invalid scrollId: not a siblingsSearch cursor');
}

interface BrowseInput {
  type: string;
  path?: string[] | null;
  start?: number | null;
  count?: number | null;
  filters?: FacetFilterInput[] | null;
  orFilters?: { and?: FacetFilterInput[] | null }[] | null;
}

interface CommonInput {
  types?: string[] | null;
  query?: string | null;
  orFilters?: { and?: FacetFilterInput[] | null }[] | null;
  filters?: FacetFilterInput[] | null;
  viewUrn?: string | null;
  searchFlags?: FlagsInput | null;
  sortInput?: { sortCriterion?: { field: string; sortOrder: string } | null; sortCriteria?: { field: string; sortOrder: string }[] | null } | null;
  facets?: (string | null)[] | null;
}

/**
 * DataHub's orFilters (OR of AND groups) plus the deprecated `filters` (added to every group). A criterion with no
 * value (other than EXISTS) is no condition, as in DataHub; an AND group left empty matches everything.
 */
export function graphqlFilter(orFilters: CommonInput['orFilters'], andFilters: CommonInput['filters']): Filter {
  const raw = graphqlFilterInput(orFilters, andFilters);
  return raw === null ? [] : parseFilter(raw);
}

/** The same filter in the rest.li request form (`{or: [{and: [...]}]}`); null when it matches everything. */
export function graphqlFilterInput(orFilters: CommonInput['orFilters'], andFilters: CommonInput['filters']): { or: { and: unknown[] }[] } | null {
  const clean = (filters: FacetFilterInput[] | null | undefined) =>
    (filters ?? [])
      .map((f) => ({
        field: f.field,
        values: f.values && f.values.length > 0 ? f.values : f.value !== null && f.value !== undefined && f.value !== '' ? [f.value] : [],
        condition: f.condition ?? 'EQUAL',
        negated: f.negated === true,
      }))
      .filter((f) => f.values.length > 0 || f.condition === 'EXISTS');
  const and = clean(andFilters);
  const groups = (orFilters ?? []).map((g) => [...clean(g.and), ...and]);
  if (groups.length === 0) groups.push(and);
  if (groups.some((g) => g.length === 0)) return null;
  return { or: groups.map((g) => ({ and: g })) };
}

function common(input: CommonInput) {
  const flags = input.searchFlags ?? {};
  if (flags.groupingSpec?.groupingCriteria && flags.groupingSpec.groupingCriteria.length > 0) throw new InvalidInputError('searchFlags.groupingSpec is not supported');
  const sort: SortCriterion[] = (input.sortInput?.sortCriteria ?? (input.sortInput?.sortCriterion ? [input.sortInput.sortCriterion] : [])).map((s) => ({
    field: s.field,
    order: s.sortOrder as SortCriterion['order'],
  }));
  return {
    types: input.types ?? null,
    input: input.query && input.query.trim() !== '' ? input.query : '*',
    filter: graphqlFilter(input.orFilters, input.filters),
    sort,
    includeSoftDeleted: flags.includeSoftDeleted === true,
    skipAggregates: flags.skipAggregates === true,
    skipHighlighting: flags.skipHighlighting === true,
    maxAggValues: flags.maxAggValues ?? null,
    extraFields: flags.fetchExtraFields ?? null,
    facets: input.facets ? input.facets.filter((f): f is string => typeof f === 'string') : null,
  };
}

export interface SearchGraphqlDependencies {
  search: AcrossEntitiesSearch;
  /** One entity type's browse paths (the rest.li browse action's service). */
  browsing: SearchService;
  /** Data products' assets (DataProduct.entities, listDataProductAssets). */
  dataProducts?: DataProducts;
  /** Datasets' siblings (Dataset.siblingsSearch). */
  hierarchy?: Hierarchy;
  reads: EntityReads;
  registry: Registry;
  /** Saved views, which `viewUrn` applies to a search. */
  views?: Views;
}

/**
 * The aspects the entity fields below read (one batched Neo4j read per request for all entities resolved together):
 * the properties of the entity types with a GraphQL object, and what every entity shows.
 */
function fieldAspects(registry: Registry): string[] {
  const properties = Object.keys(GRAPHQL_OBJECT).flatMap((t) => registry.entities.get(t)?.properties?.aspect ?? []);
  return [...properties, globalTags.name, glossaryTerms.name, ownership.name, domains.name, container.name, dataPlatformInstance.name, subTypes.name, editableContainerProperties.name, mlTrainingRunProperties.name];
}

export function searchResolvers({ search, browsing, dataProducts, hierarchy, reads, registry, views }: SearchGraphqlDependencies) {
  const names = search.names;
  /**
   * The search an input asks for, with its saved view (`viewUrn`) applied as DataHub applies one: only the view's entity
   * types (those of them asked for, when types are asked for too), and the view's filter AND the input's. Null when
   * that leaves no type to search.
   */
  const searchOf = async (input: CommonInput) => {
    const request = common(input);
    if (!input.viewUrn) return request;
    if (!views) throw new InvalidInputError('viewUrn is not supported here');
    const view = await views.apply(input.viewUrn);
    let types = request.types;
    if (view.types) {
      const asked = types && types.length > 0 ? search.resolveTypes(types) : null;
      types = asked ? view.types.filter((t) => asked.includes(t)) : view.types;
      if (types.length === 0) return null;
    }
    return { ...request, types, filter: withView(request.filter, view.filter) };
  };
  const read = fieldAspects(registry);
  // Every entity resolved in one request shares one aspect read per tick.
  const loaderFor = perRequestLoader(async (urns: readonly string[]) => {
    const found = await reads.aspectsOfMany([...urns], read);
    return urns.map((u) => found.get(u) ?? new Map<string, Aspect>());
  });
  /**
   * An aspect of the entity: at once when a lineage walk brought it (or read that the entity has none), else from the
   * request's batched read. Resolvers that answer at once spare graphql-js a promise per field: a lineage page of 100
   * results with the SDK's fields took ~6 ms more than its urns alone while every field was awaited.
   */
  const aspect = (e: EntityRef, name: string, ctx: object): MaybePromise<Aspect | null> => {
    const brought = e.aspects?.get(name);
    if (brought !== undefined) return brought;
    if (e.aspectsRead?.has(name)) return null;
    return loaderFor(ctx)
      .load(e.urn)
      .then((found) => found.get(name) ?? null);
  };
  /** Maps the entity's value of an aspect (null when it has none), at once when the value is at hand. */
  const withAspect = <T>(e: EntityRef, name: string, ctx: object, map: (v: Aspect) => T): MaybePromise<T | null> =>
    handleMaybePromise(
      () => aspect(e, name, ctx),
      (v) => (v ? map(v) : null),
    );
  /** A reference to the entity a urn-valued field names; null when the field holds none. */
  const urnRef = (value: unknown) => {
    const urn = str(value);
    return urn ? ref(urn) : null;
  };
  const auditStampOf = (value: unknown) => {
    const stamp = value as { time?: unknown; actor?: unknown } | undefined;
    return typeof stamp?.time === 'number' ? { time: stamp.time, actor: str(stamp.actor) } : null;
  };
  /** An ML hyper-parameter or metric: its value is text in DataHub's model. */
  const namedValueOf = (p: Aspect) => ({ name: str(p.name), description: str(p.description), value: p.value === undefined || p.value === null ? null : String(p.value), createdAt: typeof p.createdAt === 'number' ? p.createdAt : null });
  /** The entity type's properties aspect (the registry's) and the entity's value of it. */
  const propertiesOf = (e: EntityRef, ctx: object): MaybePromise<{ value: Aspect; nameField?: string } | null> => {
    const spec = registry.entities.get(modelOf(e))?.properties;
    return spec ? withAspect(e, spec.aspect, ctx, (value) => ({ value, nameField: spec.nameField })) : null;
  };

  const type = (e: EntityRef) => names.graphql(modelOf(e));
  const platform = (e: EntityRef, _: unknown, ctx: object) =>
    handleMaybePromise(
      () => aspect(e, dataPlatformInstance.name, ctx),
      (v) => {
        const urn = str(v?.platform) ?? platformFromUrn(e, search.urnNamespace);
        return urn ? ref(urn) : null;
      },
    );
  const tags = (e: EntityRef, _: unknown, ctx: object) =>
    withAspect(e, globalTags.name, ctx, (v) => ({ tags: ((v.tags as Aspect[] | undefined) ?? []).map((t) => ({ tag: ref(String(t.tag)), associatedUrn: e.urn, context: str(t.context) })) }));
  const shared = {
    type,
    tags,
    globalTags: tags,
    glossaryTerms: (e: EntityRef, _: unknown, ctx: object) =>
      withAspect(e, glossaryTerms.name, ctx, (v) => ({ terms: ((v.terms as Aspect[] | undefined) ?? []).map((t) => ({ term: ref(String(t.urn)), associatedUrn: e.urn, context: str(t.context) })) })),
    ownership: (e: EntityRef, _: unknown, ctx: object) =>
      withAspect(e, ownership.name, ctx, (v) => ({
        owners: ((v.owners as Aspect[] | undefined) ?? []).map((o) => ({
          owner: ref(String(o.owner)),
          type: typeof o.type === 'string' && OWNERSHIP_TYPES.has(o.type) ? o.type : null,
          associatedUrn: e.urn,
        })),
      })),
    domain: (e: EntityRef, _: unknown, ctx: object) =>
      withAspect(e, domains.name, ctx, (v) => {
        const first = (v.domains as string[] | undefined)?.[0];
        return first ? { domain: ref(first), associatedUrn: e.urn } : null;
      }),
    container: (e: EntityRef, _: unknown, ctx: object) => withAspect(e, container.name, ctx, (v) => urnRef(v.container)),
    subTypes: (e: EntityRef, _: unknown, ctx: object) => withAspect(e, subTypes.name, ctx, (v) => ({ typeNames: (v.typeNames as string[] | undefined) ?? [] })),
  };
  // The name is never null (DataHub's is String!): the urn's own name when the aspect carries none.
  const properties = (fallbackName: (e: EntityRef) => string = (e) => part(e, 1) ?? idOf(e)) => (e: EntityRef, _: unknown, ctx: object) =>
    handleMaybePromise(
      () => propertiesOf(e, ctx),
      (found) => {
        if (!found) return null;
        const v = found.value;
        return {
          name: (found.nameField ? str(v[found.nameField]) : null) ?? fallbackName(e),
          description: str(v.description),
          qualifiedName: str(v.qualifiedName),
          customProperties: customProperties(v.customProperties, e.urn),
        };
      },
    );
  /** The entity's properties value, as the type's own resolver maps it. */
  const ownProperties = <T>(map: (v: Aspect, e: EntityRef) => T) => (e: EntityRef, _: unknown, ctx: object) =>
    handleMaybePromise(
      () => propertiesOf(e, ctx),
      (found) => (found ? map(found.value, e) : null),
    );
  const ml = (withPlatform: boolean) => ({
    ...shared,
    name: (e: EntityRef) => part(e, 1) ?? idOf(e),
    properties: properties(),
    ...(withPlatform ? { platform } : {}),
  });

  /** Container.entities / Domain.entities: a search over every type, filtered to the entities the field names this one in. */
  const inScope = (field: string) => async (e: EntityRef, { input }: { input?: { query?: string | null; start?: number | null; count?: number | null; filters?: FacetFilterInput[] | null } | null }) => {
    const within = { field, values: [e.urn], condition: 'EQUAL' } satisfies FacetFilterInput;
    const result = await search.search({ ...common({ query: input?.query, filters: [...(input?.filters ?? []), within] }), start: input?.start ?? 0, count: input?.count ?? 20 });
    return { start: result.start, count: result.hits.length, total: result.total, searchResults: result.hits.map(hit), facets: facets(result.facets), suggestions: [] };
  };
  const userProperties = ownProperties((v) => ({
    displayName: str(v.displayName),
    email: str(v.email),
    title: str(v.title),
    fullName: str(v.fullName),
    firstName: str(v.firstName),
    lastName: str(v.lastName),
    active: v.active === true,
  }));
  // Siblings of every dataset of a request tick, read in one statement.
  const siblingsLoader = perRequestLoader(async (urns: readonly string[]) => {
    const found = hierarchy ? await hierarchy.siblings([...urns]) : new Map<string, string[]>();
    return urns.map((u) => found.get(u) ?? []);
  });
  /**
   * Dataset.siblingsSearch: a plain page (query `*`, no filters) comes straight from the graph in urn order; a query or
   * filters search the siblings. A cursor is offered when the page filled, as DataHub's.
   */
  const siblingsSearch = async (e: EntityRef, { input }: { input: CommonInput & { scrollId?: string | null; count?: number | null } }, ctx: object) => {
    const siblings = await siblingsLoader(ctx).load(e.urn);
    const count = Math.max(input.count ?? 10, 0);
    const offset = siblingsOffset(input.scrollId);
    const next = (shown: number) => (shown === count && count > 0 ? Buffer.from(JSON.stringify({ siblingsOffset: offset + count })).toString('base64url') : null);
    const plain = (!input.query || input.query.trim() === '*') && !input.filters?.length && !input.orFilters?.length;
    if (plain || siblings.length === 0) {
      const page = plain ? siblings.slice(offset, offset + count) : [];
      const entry = (urn: string) => ({ entity: ref(urn), insights: [], matchedFields: [], extraProperties: [] });
      return { nextScrollId: next(page.length), count: page.length, total: plain ? siblings.length : 0, searchResults: page.map(entry), facets: [] };
    }
    const within = { field: 'urn', values: siblings, condition: 'EQUAL' } satisfies FacetFilterInput;
    const request = await searchOf({ ...input, filters: [...(input.filters ?? []), within] });
    if (!request) return { nextScrollId: null, count: 0, total: 0, searchResults: [], facets: [] };
    const result = await search.search({ ...request, start: offset, count });
    return { nextScrollId: next(result.hits.length), count: result.hits.length, total: result.total, searchResults: result.hits.map(hit), facets: facets(result.facets) };
  };
  /** A data product's assets (read from its properties) searched with the input's query and filters. */
  const assetsOf = async (urn: string, input: CommonInput & { start?: number | null; count?: number | null }) => {
    const assets = dataProducts ? await dataProducts.assets(urn) : [];
    const start = input.start ?? 0;
    if (assets.length === 0) return { start, count: 0, total: 0, searchResults: [], facets: [], suggestions: [] };
    const within = { field: 'urn', values: assets, condition: 'EQUAL' } satisfies FacetFilterInput;
    const request = await searchOf({ ...input, filters: [...(input.filters ?? []), within] });
    if (!request) return { start, count: 0, total: 0, searchResults: [], facets: [], suggestions: [] };
    const result = await search.search({ ...request, start, count: input.count ?? 10 });
    return { start: result.start, count: result.hits.length, total: result.total, searchResults: result.hits.map(hit), facets: facets(result.facets), suggestions: [] };
  };
  const hit = (h: AcrossHit) => ({
    entity: { urn: h.urn, type: h.entityType || undefined } satisfies EntityRef,
    insights: [],
    matchedFields: h.matchedFields,
    extraProperties: Object.entries(h.extraFields).map(([name, value]) => ({ name, value })),
  });
  const facets = (list: AcrossFacet[]) =>
    list.map((f) => ({
      field: f.field,
      displayName: f.displayName,
      aggregations: f.values.map((v) => ({
        value: f.field === ENTITY_TYPE_FACET ? names.graphql(v.value) : v.value,
        count: v.count,
        entity: v.value.startsWith('urn:') && tryParseUrn(v.value) ? ref(v.value) : null,
        displayName: null,
      })),
    }));

  return {
    Query: {
      searchAcrossEntities: async (_: unknown, { input }: { input: CommonInput & { start?: number | null; count?: number | null } }) => {
        const request = await searchOf(input);
        if (!request) return { start: input.start ?? 0, count: 0, total: 0, searchResults: [], facets: [], suggestions: [] };
        const result = await search.search({ ...request, start: input.start ?? 0, count: input.count ?? 10 });
        return { start: result.start, count: result.hits.length, total: result.total, searchResults: result.hits.map(hit), facets: facets(result.facets), suggestions: [] };
      },
      scrollAcrossEntities: async (_: unknown, { input }: { input: CommonInput & { scrollId?: string | null; keepAlive?: string | null; count?: number | null } }) => {
        validateKeepAlive(input.keepAlive);
        const request = await searchOf(input);
        if (!request) return { nextScrollId: null, count: 0, total: 0, searchResults: [], facets: [] };
        const result = await search.scroll({ ...request, facets: null, scrollId: input.scrollId, count: input.count ?? 10 });
        return { nextScrollId: result.nextScrollId, count: result.hits.length, total: result.total, searchResults: result.hits.map(hit), facets: facets(result.facets) };
      },
      listDataProductAssets: (_: unknown, { urn, input }: { urn: string; input: CommonInput & { start?: number | null; count?: number | null } }) => assetsOf(urn, input),
      search: async (_: unknown, { input }: { input: CommonInput & { type: string; start?: number | null; count?: number | null } }) => {
        const request = await searchOf({ ...input, types: [input.type] });
        if (!request) return { start: input.start ?? 0, count: 0, total: 0, searchResults: [], facets: [], suggestions: [] };
        const result = await search.search({ ...request, start: input.start ?? 0, count: input.count ?? 10 });
        return { start: result.start, count: result.hits.length, total: result.total, searchResults: result.hits.map(hit), facets: facets(result.facets), suggestions: [] };
      },
      browse: async (_: unknown, { input }: { input: BrowseInput }) => {
        const entity = names.model(input.type);
        if (!entity) throw new InvalidInputError(`Unknown entity type ${input.type}`);
        const segments = input.path ?? [];
        const start = input.start ?? 0;
        const { value } = await browsing.browse({
          entity,
          path: `/${segments.join('/')}`,
          start,
          limit: input.count ?? 10,
          filter: graphqlFilterInput(input.orFilters, input.filters) ?? undefined,
        });
        return {
          entities: value.entities.map((e) => ref(e.urn)),
          groups: value.groups,
          start,
          count: value.groups.length + value.entities.length,
          total: value.numElements,
          metadata: { path: segments, totalNumEntities: value.metadata.totalNumEntities },
        };
      },
      aggregateAcrossEntities: async (_: unknown, { input }: { input: CommonInput }) => {
        const viewed = await searchOf(input);
        if (!viewed) return { facets: [] };
        const { sort: _sort, ...request } = viewed;
        const result = await search.aggregate(request);
        return { facets: facets(result.facets) };
      },
    },
    Entity: {
      __resolveType: (e: EntityRef) => GRAPHQL_OBJECT[modelOf(e)] ?? 'OtherEntity',
    },
    OwnerType: {
      __resolveType: (e: EntityRef) => (modelOf(e) === 'corpGroup' ? 'CorpGroup' : 'CorpUser'),
    },
    OtherEntity: { type },
    MatchedField: { entity: (f: { value: string }) => (f.value.startsWith('urn:') && tryParseUrn(f.value) ? ref(f.value) : null) },
    FacetMetadata: { entity: () => null },
    SchemaFieldEntity: { type },
    Dataset: {
      siblingsSearch,
      ...shared,
      origin: (e: EntityRef) => part(e, 2),
      platform,
      properties: properties(),
      description: ownProperties((v) => str(v.description)),
    },
    Chart: { ...shared, platform, properties: properties() },
    Dashboard: { ...shared, platform, properties: properties() },
    DataJob: {
      ...shared,
      dataFlow: (e: EntityRef) => (part(e, 0) ? ref(part(e, 0)!) : null),
      properties: properties(),
      // The stored platform and instance; without the aspect, the platform is the flow's orchestrator.
      dataPlatformInstance: (e: EntityRef, _: unknown, ctx: object) =>
        handleMaybePromise(
          () => aspect(e, dataPlatformInstance.name, ctx),
          (v) => {
            const orchestrator = tryParseUrn(part(e, 0) ?? '')?.parts[0];
            const platform = str(v?.platform) ?? (orchestrator ? platformUrn(search.urnNamespace, orchestrator) : null);
            return platform ? { platform: ref(platform), instance: str(v?.instance) } : null;
          },
        ),
    },
    DataFlow: { ...shared, platform, cluster: (e: EntityRef) => part(e, 2), properties: properties() },
    // A run, as DataHub's DataProcessInstanceMapper shows it.
    DataProcessInstance: {
      name: (e: EntityRef, _: unknown, ctx: object) => withAspect(e, dataProcessInstanceProperties.name, ctx, (v) => str(v.name)),
      created: (e: EntityRef, _: unknown, ctx: object) => withAspect(e, dataProcessInstanceProperties.name, ctx, (v) => auditStampOf(v.created)),
      properties: (e: EntityRef, _: unknown, ctx: object) =>
        withAspect(e, dataProcessInstanceProperties.name, ctx, (v) => ({
          name: str(v.name) ?? idOf(e),
          externalUrl: str(v.externalUrl),
          created: auditStampOf(v.created),
          customProperties: customProperties(v.customProperties, e.urn),
        })),
      dataPlatformInstance: (e: EntityRef, _: unknown, ctx: object) =>
        withAspect(e, dataPlatformInstance.name, ctx, (v) => (str(v.platform) ? { platform: ref(str(v.platform)!), instance: str(v.instance) } : null)),
      platform: (e: EntityRef, _: unknown, ctx: object) => withAspect(e, dataPlatformInstance.name, ctx, (v) => urnRef(v.platform)),
      container: shared.container,
      subTypes: shared.subTypes,
      mlTrainingRunProperties: (e: EntityRef, _: unknown, ctx: object) =>
        withAspect(e, mlTrainingRunProperties.name, ctx, (v) => ({
          id: str(v.id),
          outputUrls: Array.isArray(v.outputUrls) ? v.outputUrls.map(String) : null,
          hyperParams: Array.isArray(v.hyperParams) ? (v.hyperParams as Aspect[]).map(namedValueOf) : null,
          trainingMetrics: Array.isArray(v.trainingMetrics) ? (v.trainingMetrics as Aspect[]).map(namedValueOf) : null,
        })),
    },
    Container: {
      ...shared,
      editableProperties: (e: EntityRef, _: unknown, ctx: object) => withAspect(e, editableContainerProperties.name, ctx, (v) => ({ description: str(v.description) })),
      entities: inScope(container.name),
      platform: (e: EntityRef, _: unknown, ctx: object) => withAspect(e, dataPlatformInstance.name, ctx, (v) => urnRef(v.platform)),
      properties: properties(idOf),
    },
    DataPlatform: {
      type,
      name: (e: EntityRef & { name?: string }) => e.name ?? idOf(e),
      displayName: ownProperties((v) => str(v.displayName)),
      properties: ownProperties((v) => ({ type: str(v.type), displayName: str(v.displayName), datasetNameDelimiter: str(v.datasetNameDelimiter), logoUrl: str(v.logoUrl) })),
    },
    CorpUser: {
      type,
      username: idOf,
      properties: userProperties,
      info: userProperties,
    },
    CorpGroup: {
      type,
      name: idOf,
      properties: ownProperties((v) => ({ displayName: str(v.displayName), email: str(v.email), description: str(v.description) })),
    },
    Domain: {
      type,
      id: idOf,
      entities: inScope(domains.name),
      properties: ownProperties((v, e) => ({ name: str(v.name) ?? idOf(e), description: str(v.description) })),
    },
    Tag: {
      type,
      name: idOf,
      description: ownProperties((v) => str(v.description)),
      properties: ownProperties((v, e) => ({ name: str(v.name) ?? idOf(e), description: str(v.description), colorHex: str(v.colorHex) })),
    },
    DataProduct: {
      ...shared,
      properties: ownProperties((v, e) => ({
        name: str(v.name) ?? idOf(e),
        description: str(v.description),
        externalUrl: str(v.externalUrl),
        numAssets: Array.isArray(v.assets) ? v.assets.length : 0,
        customProperties: customProperties(v.customProperties, e.urn),
      })),
      entities: (e: EntityRef, { input }: { input?: (CommonInput & { start?: number | null; count?: number | null }) | null }) => assetsOf(e.urn, input ?? {}),
    },
    GlossaryNode: {
      type,
      properties: ownProperties((v, e) => ({ name: str(v.name) ?? idOf(e), description: str(v.definition) })),
    },
    GlossaryTerm: {
      type,
      name: idOf,
      hierarchicalName: idOf,
      properties: ownProperties((v, e) => ({ name: str(v.name) ?? idOf(e), description: str(v.definition), definition: str(v.definition) ?? '', termSource: str(v.termSource) })),
    },
    MLModel: ml(true),
    MLModelGroup: ml(true),
    MLFeatureTable: ml(true),
    MLFeature: ml(false),
    MLPrimaryKey: ml(false),
  };
}
