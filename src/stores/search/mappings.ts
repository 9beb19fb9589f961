import type { AspectSpec, EntitySpec, Registry, SearchFieldType, SearchableField } from '../../model/registry';
import type { Body } from './engine';

/** Index names: one per entity type (`datasetindex_v2`), one per time-series aspect (`dataset_datasetprofileaspect_v1`). */
export class IndexNames {
  constructor(private readonly prefix: string) {}

  entity(entityType: string): string {
    return `${this.prefix}${entityType.toLowerCase()}index_v2`;
  }

  timeseries(entityType: string, aspectName: string): string {
    return `${this.prefix}${entityType.toLowerCase()}_${aspectName.toLowerCase()}aspect_v1`;
  }

  allTimeseries(): string {
    return `${this.prefix}*aspect_v1`;
  }

  /**
   * A time-series index name is an alias over one concrete index `<alias>_<generation>` (two while a truncation
   * reindexes): the generation is the creation time in ms, so names of one alias sort by age.
   */
  timeseriesGeneration(alias: string, generation: number): string {
    return `${alias}_${generation}`;
  }

  allEntities(): string {
    return `${this.prefix}*index_v2`;
  }

  /**
   * The concrete index behind an entity index's alias, of one mapping version (EntityIndexMigrations). `allEntities()`
   * reaches it through the alias only: an index still being built beside an older one is never searched twice.
   */
  entityGeneration(entityType: string, mappingVersion: number): string {
    return `${this.entity(entityType)}_m${mappingVersion}`;
  }

  /** Markers of deletes the entity indices may not show yet (PendingDeleteMarkers). */
  pendingDeletes(): string {
    return `${this.prefix}pending_deletes_v1`;
  }
}

/** Fields every entity document carries besides its searchable fields. */
export const SYSTEM_FIELDS: Record<string, Body> = {
  urn: { type: 'keyword' },
  entityType: { type: 'keyword' },
  removed: { type: 'boolean' },
  // ignore_above: a value of any length is accepted (an aspect can carry one); a longer one is kept but not indexed, as a
  // keyword over Lucene's 32 KB term limit would make the engine refuse the whole document, forever.
  /** Normalized ("/a/b", no trailing slash): browse lists an entity at exactly each of them. */
  browsePaths: { type: 'keyword', ignore_above: 1024 },
  /** Every browse path and each of its ancestors ("/", "/prod", "/prod/hive"): browse groups are aggregated from it. */
  browsePathPrefixes: { type: 'keyword', ignore_above: 1024 },
  /** The name a legacy default browse path lists the entity under (read from _source, never searched). */
  browseName: { type: 'keyword', index: false },
  /** Ids of the entity's own URN and of URN-valued fields (tag, platform, owner names), split into words (text-analysis.ts). */
  urnTokens: { type: 'text', analyzer: 'standard' },
  /** Name-like values whole and split into words ("SampleKafkaDataset" → sample, kafka, dataset), see text-analysis.ts. */
  nameParts: { type: 'text', analyzer: 'standard' },
  /** Words inside the words of the other default-searched text ("customer_email" → customer, email). */
  textParts: { type: 'text', analyzer: 'standard' },
  /** Lower-cased name-like values, for exact-name-first ranking and autocomplete. */
  nameExact: { type: 'keyword', ignore_above: 1024 },
  // No index_prefixes: they cost the engine a quarter of its indexing CPU per dataset document (940 -> 565 µs cold,
  // 468 -> 355 warm) and autocomplete at 100,000 datasets was no faster with them (p50 7.4 ms with, 6.6 without).
  autocomplete: { type: 'text', analyzer: 'standard', fields: { keyword: { type: 'keyword', ignore_above: 512 } } },
};

const TEXT_TYPES: SearchFieldType[] = ['TEXT', 'TEXT_PARTIAL', 'WORD_GRAM'];

/** Mapping of one searchable field; only core analyzers, so both engines (and ES's test distribution) accept it. */
function fieldMapping(field: SearchableField): Body {
  switch (field.fieldType) {
    case 'TEXT':
    case 'TEXT_PARTIAL':
    case 'WORD_GRAM':
      return { type: 'text', analyzer: 'standard', fields: { keyword: { type: 'keyword', ignore_above: 1024 } } };
    case 'BOOLEAN':
      return { type: 'boolean' };
    case 'COUNT':
      return { type: 'long' };
    case 'DATETIME':
      return { type: 'date', format: 'epoch_millis' };
    default:
      return { type: 'keyword', ignore_above: 1024 };
  }
}

export function isTextField(field: SearchableField): boolean {
  return TEXT_TYPES.includes(field.fieldType);
}

/** All searchable fields of an entity type, merged by field name across its aspects. */
const fieldCache = new WeakMap<EntitySpec, Map<string, { aspect: string; field: SearchableField }[]>>();

export function searchableFields(registry: Registry, entity: EntitySpec): Map<string, { aspect: string; field: SearchableField }[]> {
  const cached = fieldCache.get(entity);
  if (cached) return cached;
  const byName = new Map<string, { aspect: string; field: SearchableField }[]>();
  for (const aspectName of entity.aspects) {
    const aspect = registry.aspects.get(aspectName)!;
    if (aspect.timeseries) continue;
    for (const field of aspect.searchable) {
      if (field.fieldName in SYSTEM_FIELDS && field.fieldName !== 'removed' && field.fieldName !== 'browsePaths') continue;
      byName.set(field.fieldName, [...(byName.get(field.fieldName) ?? []), { aspect: aspectName, field }]);
    }
  }
  fieldCache.set(entity, byName);
  return byName;
}

const companionCache = new WeakMap<EntitySpec, { fieldName: string; hasValues?: string; numValues?: string }[]>();

/** The hasValues / numValues companion fields of an entity's searchable fields (computed once per entity type). */
export function companionFields(registry: Registry, entity: EntitySpec): { fieldName: string; hasValues?: string; numValues?: string }[] {
  const cached = companionCache.get(entity);
  if (cached) return cached;
  const out: { fieldName: string; hasValues?: string; numValues?: string }[] = [];
  for (const [fieldName, fields] of searchableFields(registry, entity)) {
    for (const { field } of fields) {
      if (field.hasValuesFieldName || field.numValuesFieldName) out.push({ fieldName, hasValues: field.hasValuesFieldName, numValues: field.numValuesFieldName });
    }
  }
  companionCache.set(entity, out);
  return out;
}

/**
 * Version of what entity documents hold and how they are mapped, kept in each entity index's mapping `_meta`. An index
 * of another version is rebuilt from Neo4j into a new index when the service starts (EntityIndexMigrations). 1: none
 * recorded; 2: DataHub's word splitting (text-analysis.ts), the entity's own URN parts, browse paths at exact levels;
 * 3: a data process instance's parentTemplate and parentInstance (a job's runs are searched by them); 4: the platform of
 * an entity without a dataPlatformInstance of its own, from its key (model/default-platform.ts); 5: structured property
 * values under `structuredProperties.<qualified_name>` (searchObjectMapping).
 */
export const ENTITY_MAPPING_VERSION = 5;

/**
 * The mapping of an object field whose keys the values name (AspectBehaviour.searchObject): the engine maps each key as it
 * first sees it, numbers as doubles (a whole number first would otherwise make it a long and cut later decimals) and
 * strings as keywords (dates as written, yyyy-MM-dd, which sort as they compare). A value of the other kind than its
 * key's mapping is dropped from the index rather than failing the entity's document.
 */
const SEARCH_OBJECT_TEMPLATES = (field: string): Body[] => [
  { [`${field}Numbers`]: { path_match: `${field}.*`, match_mapping_type: 'long', mapping: { type: 'double', ignore_malformed: true } } },
  { [`${field}Decimals`]: { path_match: `${field}.*`, match_mapping_type: 'double', mapping: { type: 'double', ignore_malformed: true } } },
  { [`${field}Strings`]: { path_match: `${field}.*`, match_mapping_type: 'string', mapping: { type: 'keyword', ignore_above: 1024 } } },
];

export function entityIndexDefinition(registry: Registry, entity: EntitySpec): { settings: Body; mappings: Body } {
  const properties: Record<string, Body> = { ...SYSTEM_FIELDS };
  for (const [name, fields] of searchableFields(registry, entity)) {
    if (name in SYSTEM_FIELDS) continue;
    properties[name] = fieldMapping(fields[0].field);
  }
  for (const { hasValues, numValues } of companionFields(registry, entity)) {
    if (hasValues && !(hasValues in properties)) properties[hasValues] = { type: 'boolean' };
    if (numValues && !(numValues in properties)) properties[numValues] = { type: 'long' };
  }
  const dynamicTemplates: Body[] = [];
  for (const aspectName of entity.aspects) {
    const field = registry.aspects.get(aspectName)?.behaviour?.searchObject?.field;
    if (!field || field in properties) continue;
    properties[field] = { type: 'object', dynamic: true };
    dynamicTemplates.push(...SEARCH_OBJECT_TEMPLATES(field));
  }
  return {
    // No refresh_interval of our own: at the engine's default (1 s), a shard nobody has searched for 30 s skips its
    // scheduled refreshes, and the next search waits for the pending one. An ingestion run nobody watches then pays for
    // no refreshes, nor for merging their small segments (a fifth to two fifths of the engine's CPU per document,
    // bench/engine-documents.ts); a search sees what was indexed a second before it, as with the explicit 1 s before.
    // Each structured property in use is a field of every index whose entities carry it: room for a few thousand.
    settings: { number_of_shards: 1, number_of_replicas: 0, 'index.max_result_window': 10000, ...(dynamicTemplates.length > 0 ? { 'index.mapping.total_fields.limit': 5000 } : {}) },
    mappings: {
      dynamic: false,
      _meta: { mappingVersion: ENTITY_MAPPING_VERSION },
      ...(dynamicTemplates.length > 0 ? { date_detection: false, dynamic_templates: dynamicTemplates } : {}),
      properties,
    },
  };
}

/** Mappings of the standard time-series fields, for aspect schemas that do not declare them. */
const TIMESERIES_STANDARD_FIELDS: Record<string, Body> = {
  messageId: { type: 'keyword' },
  eventGranularity: { properties: { unit: { type: 'keyword' }, multiple: { type: 'long' } } },
  partitionSpec: { properties: { type: { type: 'keyword' }, partition: { type: 'keyword', ignore_above: 1024 } } },
};

/** Fields of every time-series document besides the aspect's own; these win over aspect fields of the same name. */
export const TIMESERIES_SYSTEM_FIELDS: Record<string, Body> = {
  /** Deterministic id of the event (urn, time, granularity, partition, messageId): a tie-breaker for sorting. */
  docId: { type: 'keyword' },
  urn: { type: 'keyword' },
  timestampMillis: { type: 'date', format: 'epoch_millis' },
  '@timestamp': { type: 'date', format: 'epoch_millis' },
  runId: { type: 'keyword' },
  /** The whole event as ingested; returned by getTimeseriesAspectValues, never searched. */
  event: { type: 'object', enabled: false },
  systemMetadata: { type: 'object', enabled: false },
};

interface JsonSchemaNode {
  type?: string | string[];
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
  additionalProperties?: unknown;
}

/** The engine mapping of one JSON Schema node: integer→long, number→double, string→keyword, boolean→boolean. */
function schemaFieldMapping(node: JsonSchemaNode): Body | null {
  const types = (Array.isArray(node.type) ? node.type : [node.type]).filter((t) => t && t !== 'null');
  switch (types[0]) {
    case 'integer':
      return { type: 'long' };
    case 'number':
      return { type: 'double' };
    case 'string':
      return { type: 'keyword', ignore_above: 1024 };
    case 'boolean':
      return { type: 'boolean' };
    case 'array':
      // The engine has no array type: a field holds one value or many of the item type.
      return node.items ? schemaFieldMapping(node.items) : null;
    case 'object': {
      if (!node.properties) return { type: 'object', enabled: false };
      const properties: Record<string, Body> = {};
      for (const [name, child] of Object.entries(node.properties)) {
        const mapping = schemaFieldMapping(child);
        if (mapping) properties[name] = mapping;
      }
      return { properties };
    }
    default:
      return null;
  }
}

/** Index definition of a time-series aspect: typed fields from its JSON Schema plus the system fields. */
export function timeseriesIndexDefinition(aspect: AspectSpec): { settings: Body; mappings: Body } {
  const own = schemaFieldMapping(aspect.schema as JsonSchemaNode);
  const properties: Record<string, Body> = {
    ...TIMESERIES_STANDARD_FIELDS,
    ...((own?.properties as Record<string, Body>) ?? {}),
    ...TIMESERIES_SYSTEM_FIELDS,
  };
  return {
    settings: { number_of_shards: 1, number_of_replicas: 0 },
    mappings: { dynamic: false, properties },
  };
}
