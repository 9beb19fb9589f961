import { documentation, editableDatasetProperties, editableSchemaMetadata, inputFields, schemaMetadata } from '../model/aspects';
import { makeUrn, tryParseUrn } from '../model/urn';
import type { GraphqlContext } from './graphql';
import type { DatasetOperations, OperationsRange, ReportOperationInput } from '../services/dataset-operations';
import type { EntityReads } from '../services/entity-reads';
import { perRequestLoader } from './graphql-request-loader';

/**
 * A dataset's schema and editable documentation as DataHub's GraphQL gives them: `schemaMetadata(version)` (what the
 * client's bulk schema fetch for SQL lineage selects), `editableProperties` and `editableSchemaMetadata`; and the
 * operations reported on it (`reportOperation`, `operations`: the client's Operation API and Airflow's circuit breakers).
 */
export const datasetTypeDefs = /* GraphQL */ `
  extend type Dataset {
    "The schema: version 0 (the default) is the latest, n > 0 history version n; null when the dataset has none."
    schemaMetadata(version: Long): SchemaMetadata
    "Documentation edited in the UI, over the ingested properties."
    editableProperties: DatasetEditableProperties
    "Field documentation, tags and terms edited in the UI."
    editableSchemaMetadata: EditableSchemaMetadata
    "Operations reported on the dataset in a time range, newest first (limit: 10,000 when not given)."
    operations(startTimeMillis: Long, endTimeMillis: Long, limit: Int, filter: FilterInput): [Operation!]
  }

  extend type Mutation {
    "Reports an operation on an existing dataset, done now (or at timestampMillis) by the caller."
    reportOperation(input: ReportOperationInput!): Boolean
  }

  enum OperationType {
    INSERT
    UPDATE
    DELETE
    CREATE
    ALTER
    DROP
    CUSTOM
    UNKNOWN
  }

  enum OperationSourceType {
    DATA_PROCESS
    DATA_PLATFORM
  }

  input ReportOperationInput {
    urn: String!
    operationType: OperationType!
    customOperationType: String
    sourceType: OperationSourceType!
    customProperties: [StringMapEntryInput!]
    partition: String
    numAffectedRows: Long
    timestampMillis: Long
  }

  "An AND of criteria."
  input FilterInput {
    and: [FacetFilterInput!]!
  }

  type Operation {
    timestampMillis: Long!
    lastUpdatedTimestamp: Long!
    actor: String
    operationType: OperationType!
    customOperationType: String
    sourceType: OperationSourceType
    numAffectedRows: Long
    affectedDatasets: [String!]
    partition: String
    customProperties: [StringMapEntry!]
  }

  enum SchemaFieldDataType {
    BOOLEAN
    FIXED
    STRING
    BYTES
    NUMBER
    DATE
    TIME
    ENUM
    NULL
    MAP
    ARRAY
    UNION
    STRUCT
  }

  type SchemaMetadata {
    "The version read (0: latest)."
    aspectVersion: Long
    "In DataHub's type, which its mapper leaves unset: null."
    createdAt: Long
    datasetUrn: String
    name: String!
    platformUrn: String!
    "The schema's own version number."
    version: Long!
    cluster: String
    hash: String!
    fields: [SchemaField!]!
    primaryKeys: [String!]
  }

  type SchemaField {
    fieldPath: String!
    jsonPath: String
    label: String
    nullable: Boolean!
    description: String
    type: SchemaFieldDataType!
    nativeDataType: String
    recursive: Boolean!
    isPartOfKey: Boolean
    isPartitioningKey: Boolean
    jsonProps: String
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
    "The field as an entity of its own: urn:li:schemaField:(<the schema's entity>,<fieldPath>)."
    schemaFieldEntity: SchemaFieldEntity
  }

  "The columns a chart or dashboard is built from (its inputFields aspect)."
  type InputFields {
    fields: [InputField]
  }

  type InputField {
    schemaFieldUrn: String
    schemaField: SchemaField
  }

  extend type Chart {
    inputFields: InputFields
  }

  extend type Dashboard {
    inputFields: InputFields
  }

  type Documentation {
    documentations: [DocumentationAssociation!]!
  }

  type DocumentationAssociation {
    documentation: String!
  }

  extend type SchemaFieldEntity {
    "Documentation of the field (its documentation aspect)."
    documentation: Documentation
  }

  type DatasetEditableProperties {
    name: String
    description: String
  }

  type EditableSchemaMetadata {
    editableSchemaFieldInfo: [EditableSchemaFieldInfo!]!
  }

  type EditableSchemaFieldInfo {
    fieldPath: String!
    description: String
    tags: GlobalTags
    "Deprecated: the same as tags (DataHub keeps both)."
    globalTags: GlobalTags @deprecated(reason: "Use tags")
    glossaryTerms: GlossaryTerms
  }
`;

type Aspect = Record<string, unknown>;

interface DatasetRef {
  urn: string;
}

/** The union member names of SchemaFieldDataType (com.linkedin.schema.*Type) and their GraphQL enum values. */
const FIELD_TYPES: Record<string, string> = {
  BooleanType: 'BOOLEAN',
  FixedType: 'FIXED',
  StringType: 'STRING',
  BytesType: 'BYTES',
  NumberType: 'NUMBER',
  DateType: 'DATE',
  TimeType: 'TIME',
  EnumType: 'ENUM',
  NullType: 'NULL',
  MapType: 'MAP',
  ArrayType: 'ARRAY',
  UnionType: 'UNION',
  RecordType: 'STRUCT',
};

/** A stored field's data type: the member of its `type.type` union (a fully qualified name, as the client writes it). */
export function schemaFieldDataType(field: Aspect): string {
  const union = (field.type as { type?: Record<string, unknown> } | undefined)?.type;
  const member = union && typeof union === 'object' ? Object.keys(union)[0] : undefined;
  return (member && FIELD_TYPES[member.slice(member.lastIndexOf('.') + 1)]) ?? 'NULL';
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

const tagsOf = (value: unknown, urn: string) =>
  value && typeof value === 'object'
    ? { tags: (((value as Aspect).tags as Aspect[] | undefined) ?? []).map((t) => ({ tag: { urn: String(t.tag), type: 'tag' }, associatedUrn: urn, context: str(t.context) })) }
    : null;

const termsOf = (value: unknown, urn: string) =>
  value && typeof value === 'object'
    ? { terms: (((value as Aspect).terms as Aspect[] | undefined) ?? []).map((t) => ({ term: { urn: String(t.urn), type: 'glossaryTerm' }, associatedUrn: urn, context: str(t.context) })) }
    : null;

function schemaOf(value: Aspect, urn: string, aspectVersion: number) {
  return {
    aspectVersion,
    datasetUrn: urn,
    name: str(value.schemaName) ?? '',
    platformUrn: str(value.platform) ?? '',
    version: typeof value.version === 'number' ? value.version : 0,
    cluster: str(value.cluster),
    hash: str(value.hash) ?? '',
    primaryKeys: Array.isArray(value.primaryKeys) ? value.primaryKeys : null,
    fields: ((value.fields as Aspect[] | undefined) ?? []).map((f) => schemaFieldOf(f, urn)),
  };
}

/** A schema field as GraphQL shows it; `urn`: the entity whose schema holds it. */
function schemaFieldOf(f: Aspect, urn: string) {
  return {
      fieldPath: String(f.fieldPath),
      jsonPath: str(f.jsonPath),
      label: str(f.label),
      nullable: f.nullable === true,
      description: str(f.description),
      type: schemaFieldDataType(f),
      nativeDataType: str(f.nativeDataType),
      recursive: f.recursive === true,
      isPartOfKey: typeof f.isPartOfKey === 'boolean' ? f.isPartOfKey : null,
      isPartitioningKey: typeof f.isPartitioningKey === 'boolean' ? f.isPartitioningKey : null,
      jsonProps: str(f.jsonProps),
      tags: tagsOf(f.globalTags, urn),
      glossaryTerms: termsOf(f.glossaryTerms, urn),
      schemaFieldEntity: { urn: makeUrn(tryParseUrn(urn)?.namespace ?? 'li', 'schemaField', [urn, String(f.fieldPath)]), fieldPath: String(f.fieldPath) },
  };
}

/** An operation event as GraphQL shows it: the partition out of its spec, custom properties as entries. */
function operationOf(event: Aspect) {
  const partition = (event.partitionSpec as Aspect | undefined)?.partition;
  const custom = event.customProperties;
  return {
    ...event,
    partition: typeof partition === 'string' && partition !== 'FULL_TABLE_SNAPSHOT' ? partition : null,
    customProperties: custom && typeof custom === 'object' ? Object.entries(custom as Aspect).map(([key, value]) => ({ key, value: str(value) })) : null,
  };
}

export interface DatasetGraphqlDependencies {
  reads: EntityReads;
  datasetOperations: DatasetOperations;
}

export function datasetResolvers({ reads, datasetOperations: operations }: DatasetGraphqlDependencies) {
  // Latest values of these aspects, read only when a query selects them (a schema is large): one read per request tick.
  const latest = perRequestLoader(
    async (keys: readonly { urn: string; name: string }[]) => {
      const found = await reads.aspectsOfMany([...new Set(keys.map((k) => k.urn))], [...new Set(keys.map((k) => k.name))]);
      return keys.map((k) => found.get(k.urn)?.get(k.name) ?? null);
    },
    { cacheKeyFn: (k) => `${k.name} ${k.urn}` },
  );
  const latestOf = (e: DatasetRef, name: string, ctx: object) => latest(ctx).load({ urn: e.urn, name });
  /** A chart's or dashboard's input fields, each field as the entity of the column it names (DataHub's InputFieldsMapper). */
  const inputFieldsOf = async (e: DatasetRef, ctx: object) => {
    const value = await latestOf(e, inputFields.name, ctx);
    if (!value) return null;
    return {
      fields: ((value.fields as Aspect[] | undefined) ?? []).map((f) => {
        const column = str(f.schemaFieldUrn);
        const owner = (column && tryParseUrn(column)?.parts[0]) ?? e.urn;
        const field = f.schemaField && typeof f.schemaField === 'object' ? schemaFieldOf(f.schemaField as Aspect, owner) : null;
        return { schemaFieldUrn: column, schemaField: field && column ? { ...field, schemaFieldEntity: { urn: column, fieldPath: field.fieldPath } } : field };
      }),
    };
  };

  return {
    Mutation: {
      reportOperation: (_: unknown, args: { input: ReportOperationInput }, ctx: GraphqlContext) => operations.report(args.input, ctx.principal),
    },
    // The deprecated globalTags of a field is its tags, as in DataHub.
    SchemaField: { globalTags: (f: { tags: unknown }) => f.tags },
    EditableSchemaFieldInfo: { globalTags: (f: { tags: unknown }) => f.tags },
    Chart: { inputFields: (e: DatasetRef, _: unknown, ctx: object) => inputFieldsOf(e, ctx) },
    Dashboard: { inputFields: (e: DatasetRef, _: unknown, ctx: object) => inputFieldsOf(e, ctx) },
    SchemaFieldEntity: {
      documentation: async (e: DatasetRef, _: unknown, ctx: object) => {
        const value = await latestOf(e, documentation.name, ctx);
        if (!value) return null;
        return { documentations: ((value.documentations as Aspect[] | undefined) ?? []).map((d) => ({ documentation: String(d.documentation ?? '') })) };
      },
    },
    Dataset: {
      operations: async (e: DatasetRef, args: Omit<OperationsRange, 'criteria'> & { filter?: { and: OperationsRange['criteria'] } | null }) =>
        (await operations.recent(e.urn, { ...args, criteria: args.filter?.and ?? [] })).map(operationOf),
      schemaMetadata: async (e: DatasetRef, args: { version?: number | null }, ctx: object) => {
        const version = args.version ?? 0;
        const value = version === 0 ? await latestOf(e, schemaMetadata.name, ctx) : (await reads.aspectVersion(e.urn, schemaMetadata.name, version))?.value;
        return value ? schemaOf(value, e.urn, version) : null;
      },
      editableProperties: async (e: DatasetRef, _: unknown, ctx: object) => {
        const value = await latestOf(e, editableDatasetProperties.name, ctx);
        return value ? { name: str(value.name), description: str(value.description) } : null;
      },
      editableSchemaMetadata: async (e: DatasetRef, _: unknown, ctx: object) => {
        const value = await latestOf(e, editableSchemaMetadata.name, ctx);
        if (!value) return null;
        return {
          editableSchemaFieldInfo: ((value.editableSchemaFieldInfo as Aspect[] | undefined) ?? []).map((f) => ({
            fieldPath: String(f.fieldPath),
            description: str(f.description),
            tags: tagsOf(f.globalTags, e.urn),
            glossaryTerms: termsOf(f.glossaryTerms, e.urn),
          })),
        };
      },
    },
  };
}
