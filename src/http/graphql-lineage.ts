import type { RevocationCheck } from '../auth/revocation-check';
import { platformName, platformUrn, tryParseUrn } from '../model/urn';
import { graphqlEntityType, modelEntityType, type AspectValues, type FacetFilter, type LineageResult, type LineageService } from '../services/lineage/lineage-service';
import type { WalkAnswerContext } from './graphql-execution';
import { walkFingerprint } from './graphql-walk-answers';
import { decodeScrollId, encodeScrollId } from './routes/lineage';

/** DataHub's lineage GraphQL (scrollAcrossLineage, searchAcrossLineage): type names and shapes its SDK reads. */
export const lineageTypeDefs = /* GraphQL */ `
  extend type Query {
    "Multi-hop lineage, paged by scrollId. Bounded: an answer cut by a bound says truncated (and truncatedBy)."
    scrollAcrossLineage(input: ScrollAcrossLineageInput!): ScrollAcrossLineageResults
    "Multi-hop lineage, paged by start/count; same bounds as scrollAcrossLineage."
    searchAcrossLineage(input: SearchAcrossLineageInput!): SearchAcrossLineageResults
  }

  enum LineageDirection {
    UPSTREAM
    DOWNSTREAM
  }

  enum EntityType {
    DATASET CHART DASHBOARD DATA_JOB DATA_FLOW SCHEMA_FIELD CORP_USER CORP_GROUP TAG GLOSSARY_TERM DATA_PLATFORM TEST
    CONTAINER QUERY DOMAIN DATA_PRODUCT NOTEBOOK ML_MODEL ML_MODEL_GROUP ML_FEATURE ML_FEATURE_TABLE ML_PRIMARY_KEY OTHER
  }

  enum FilterOperator {
    CONTAIN EQUAL IEQUAL IN EXISTS GREATER_THAN GREATER_THAN_OR_EQUAL_TO LESS_THAN LESS_THAN_OR_EQUAL_TO START_WITH END_WITH
    DESCENDANTS_INCL ANCESTORS_INCL RELATED_INCL
  }

  input FacetFilterInput {
    field: String!
    value: String
    values: [String!]
    negated: Boolean
    condition: FilterOperator
  }

  input AndFilterInput {
    and: [FacetFilterInput!]
  }

  input GroupingCriterion {
    baseEntityType: EntityType
    groupingEntityType: EntityType!
  }

  input GroupingSpec {
    groupingCriteria: [GroupingCriterion!]
  }

  input SearchFlags {
    skipCache: Boolean
    maxAggValues: Int
    fulltext: Boolean
    skipHighlighting: Boolean
    skipAggregates: Boolean
    getSuggestions: Boolean
    includeSoftDeleted: Boolean
    includeRestricted: Boolean
    groupingSpec: GroupingSpec
  }

  input LineageFlags {
    startTimeMillis: Long
    endTimeMillis: Long
    "Nodes with more onward lineage edges than this are reached but not expanded (answer then truncated: fanOut)."
    entitiesExploredPerHopLimit: Int
  }

  input ScrollAcrossLineageInput {
    urn: String
    direction: LineageDirection!
    types: [EntityType!]
    query: String
    scrollId: String
    keepAlive: String
    count: Int
    orFilters: [AndFilterInput!]
    startTimeMillis: Long
    endTimeMillis: Long
    searchFlags: SearchFlags
    lineageFlags: LineageFlags
    "This service: hops to walk (default: from the degree filter; '3+' or none = the configured cap)."
    maxHops: Int
    "This service: fail with a deadline error rather than answer later than this."
    deadlineMs: Int
    "This service: the lineage as it was at this moment (epoch ms), from the lineage aspects' versions valid then."
    asOfTime: Long
  }

  input SearchAcrossLineageInput {
    urn: String
    direction: LineageDirection!
    types: [EntityType!]
    query: String
    start: Int
    count: Int
    orFilters: [AndFilterInput!]
    startTimeMillis: Long
    endTimeMillis: Long
    searchFlags: SearchFlags
    lineageFlags: LineageFlags
    maxHops: Int
    deadlineMs: Int
    asOfTime: Long
  }

  interface Entity {
    urn: String!
    type: EntityType!
  }

  type DataPlatform {
    urn: String!
    name: String!
  }

  type DataPlatformInstance {
    platform: DataPlatform
  }

  type DatasetProperties {
    name: String!
    qualifiedName: String
    description: String
  }

  type EntityProperties {
    name: String!
    description: String
  }

  extend type Dataset implements Entity {
    type: EntityType!
    name: String!
    platform: DataPlatform
    properties: DatasetProperties
  }

  type DataJob implements Entity {
    urn: String!
    type: EntityType!
    jobId: String
    dataPlatformInstance: DataPlatformInstance
    properties: EntityProperties
  }

  type DataFlow implements Entity {
    urn: String!
    type: EntityType!
    flowId: String
    properties: EntityProperties
  }

  type Chart implements Entity {
    urn: String!
    type: EntityType!
    properties: EntityProperties
  }

  type Dashboard implements Entity {
    urn: String!
    type: EntityType!
    properties: EntityProperties
  }

  type SchemaFieldEntity implements Entity {
    urn: String!
    type: EntityType!
    fieldPath: String
    parent: Dataset
  }

  "Any other entity type."
  type OtherEntity implements Entity {
    urn: String!
    type: EntityType!
  }

  type EntityPath {
    path: [Entity]
  }

  type MatchedField {
    name: String!
    value: String!
  }

  type SearchAcrossLineageResult {
    entity: Entity!
    matchedFields: [MatchedField!]!
    paths: [EntityPath]
    degree: Int!
    degrees: [Int!]
    explored: Boolean!
  }

  type ScrollAcrossLineageResults {
    nextScrollId: String
    count: Int!
    total: Int!
    searchResults: [SearchAcrossLineageResult!]!
    "True when a bound cut the traversal (see truncatedBy: maxHops, fanOut, results)."
    truncated: Boolean!
    truncatedBy: [String!]!
  }

  type SearchAcrossLineageResults {
    start: Int!
    count: Int!
    total: Int!
    searchResults: [SearchAcrossLineageResult!]!
    truncated: Boolean!
    truncatedBy: [String!]!
  }
`;

interface LineageInput {
  urn: string;
  direction: 'UPSTREAM' | 'DOWNSTREAM';
  types?: string[] | null;
  query?: string | null;
  start?: number | null;
  scrollId?: string | null;
  count?: number | null;
  orFilters?: { and?: FacetFilter[] | null }[] | null;
  searchFlags?: {
    includeSoftDeleted?: boolean | null;
    groupingSpec?: { groupingCriteria?: { baseEntityType?: string | null; groupingEntityType: string }[] | null } | null;
  } | null;
  lineageFlags?: { entitiesExploredPerHopLimit?: number | null } | null;
  maxHops?: number | null;
  deadlineMs?: number | null;
  asOfTime?: number | null;
}

/** An entity as the resolvers below read it: urn, model type and the aspects the traversal brought along. */
interface EntityRef {
  urn: string;
  type: string;
  aspects?: AspectValues;
  /** The aspects the traversal read: one of them missing from `aspects` is one the entity has not. */
  aspectsRead?: ReadonlySet<string>;
}

const GRAPHQL_TYPE: Record<string, string> = { dataset: 'Dataset', dataJob: 'DataJob', dataFlow: 'DataFlow', chart: 'Chart', dashboard: 'Dashboard', schemaField: 'SchemaFieldEntity' };

function part(urn: string, i: number): string | null {
  return tryParseUrn(urn)?.parts[i] ?? null;
}

function platformOf(urn: string, namespace: string): { urn: string; name: string } | null {
  const parsed = tryParseUrn(urn);
  if (!parsed) return null;
  // dataset: (platform, name, env); dataJob: (dataFlow urn, id) with the flow's orchestrator; chart/dashboard/dataFlow: (tool, id…).
  const p = parsed.entityType === 'dataJob' ? (tryParseUrn(parsed.parts[0])?.parts[0] ?? null) : (parsed.parts[0] ?? null);
  if (!p) return null;
  const platform = platformUrn(namespace, p);
  return { urn: platform, name: platformName(namespace, platform) };
}

function shape(result: LineageResult) {
  const aspectsRead = new Set(result.aspectsRead);
  return result.results.map((r) => ({
    entity: { urn: r.urn, type: r.type, aspects: r.aspects, aspectsRead } satisfies EntityRef,
    degree: r.degree,
    degrees: [r.degree],
    paths: (r.paths ?? [r.path]).map((path) => ({ path: path.map((p) => ({ urn: p.urn, type: p.type })) })),
    matchedFields: [],
    explored: true,
  }));
}

/**
 * Whether a column's lineage is answered as the columns' parents, as DataHub's LineageSearchService answers it: always
 * for scrollAcrossLineage; for searchAcrossLineage unless a grouping is given without SCHEMA_FIELD → DATASET (DataHub's
 * default grouping is that one).
 */
function columnsAsParents(input: LineageInput, scroll: boolean): boolean {
  if (scroll) return true;
  const criteria = input.searchFlags?.groupingSpec?.groupingCriteria;
  if (!criteria) return true;
  return criteria.some((c) => c.baseEntityType === 'SCHEMA_FIELD' && c.groupingEntityType === 'DATASET');
}

function toRequest(input: LineageInput, start: number, revocation: RevocationCheck, scroll: boolean) {
  return {
    columnsAsParents: columnsAsParents(input, scroll),
    urn: input.urn,
    direction: input.direction,
    types: (input.types ?? []).map(modelEntityType),
    orFilters: input.orFilters ?? [],
    maxHops: input.maxHops,
    fanOut: input.lineageFlags?.entitiesExploredPerHopLimit,
    deadlineMs: input.deadlineMs,
    includeRemoved: input.searchFlags?.includeSoftDeleted === true,
    start,
    count: input.count ?? 10,
    asOfTime: input.asOfTime,
    revocation,
  };
}

type WalkContext = { revocation: RevocationCheck } & WalkAnswerContext;

/**
 * Whether the walk found what it found when its answer was kept (graphql-walk-answers.ts): then the executor answers
 * the text kept, and the resolver returns an empty stand-in for it. Otherwise the answer built is kept when it can be.
 */
function answeredAsBefore(result: LineageResult, ctx: WalkContext): boolean {
  const slot = ctx.walkAnswer;
  const fingerprint = slot ? walkFingerprint(result) : null;
  if (!slot || fingerprint === null) return false;
  slot.hit = slot.answers.lookup(slot.key, fingerprint);
  if (slot.hit === undefined) slot.fingerprint = fingerprint;
  return slot.hit !== undefined;
}

/** The entities' `properties` (and tags, owners, …) are resolved by the search module's resolvers (graphql-search.ts). */
export function lineageResolvers(lineage: LineageService) {
  const entityFields = {
    type: (e: EntityRef) => graphqlEntityType(e.type ?? tryParseUrn(e.urn)?.entityType ?? 'other'),
  };
  return {
    Query: {
      scrollAcrossLineage: async (_: unknown, { input }: { input: LineageInput }, ctx: WalkContext) => {
        const result = await lineage.lineage(toRequest(input, decodeScrollId(input.scrollId), ctx.revocation, true));
        if (answeredAsBefore(result, ctx)) return { nextScrollId: null, count: 0, total: 0, searchResults: [], truncated: false, truncatedBy: [] };
        const end = result.start + result.count;
        return {
          nextScrollId: result.count > 0 && end < result.total ? encodeScrollId(end) : null,
          count: result.count,
          total: result.total,
          searchResults: shape(result),
          truncated: result.truncated,
          truncatedBy: result.truncatedBy,
        };
      },
      searchAcrossLineage: async (_: unknown, { input }: { input: LineageInput }, ctx: WalkContext) => {
        const result = await lineage.lineage(toRequest(input, input.start ?? 0, ctx.revocation, false));
        if (answeredAsBefore(result, ctx)) return { start: 0, count: 0, total: 0, searchResults: [], truncated: false, truncatedBy: [] };
        return { start: result.start, count: result.count, total: result.total, searchResults: shape(result), truncated: result.truncated, truncatedBy: result.truncatedBy };
      },
    },
    Entity: {
      __resolveType: (e: EntityRef) => GRAPHQL_TYPE[e.type ?? tryParseUrn(e.urn)?.entityType ?? ''] ?? 'OtherEntity',
    },
    Dataset: {
      ...entityFields,
      type: () => 'DATASET',
      name: (e: EntityRef) => part(e.urn, 1),
      platform: (e: EntityRef) => platformOf(e.urn, lineage.urnNamespace),
    },
    // dataPlatformInstance: the search module's resolver (graphql-search.ts), which reads the aspect when no walk brought it.
    DataJob: { ...entityFields, jobId: (e: EntityRef) => part(e.urn, 1) },
    DataFlow: { ...entityFields, flowId: (e: EntityRef) => part(e.urn, 1) },
    Chart: entityFields,
    Dashboard: entityFields,
    SchemaFieldEntity: {
      ...entityFields,
      fieldPath: (e: EntityRef) => part(e.urn, 1),
      parent: (e: EntityRef) => {
        const parent = part(e.urn, 0);
        return parent ? { urn: parent, type: 'dataset' } : null;
      },
    },
    OtherEntity: entityFields,
  };
}
