import type { IngestionService } from '../../services/ingestion';
import type { RetrievalService } from '../../services/retrieval';
import type { RouteDefinition, Schema } from '../route';

const SAMPLE_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

const proposalSchema: Schema = {
  type: 'object',
  required: ['entityUrn', 'aspectName'],
  properties: {
    entityType: { type: 'string', description: 'Must agree with the urn' },
    entityUrn: { type: 'string' },
    changeType: {
      type: 'string',
      enum: ['UPSERT', 'UPDATE', 'CREATE', 'CREATE_ENTITY', 'DELETE', 'PATCH'],
      description:
        'PATCH: aspect.value is a JSON patch (DataHub form), applied atomically to the current value. CREATE: written only if the aspect is absent, CREATE_ENTITY: only if the entity is (else 422). UPDATE: as UPSERT',
    },
    aspectName: { type: 'string' },
    aspect: {
      type: 'object',
      required: ['value'],
      properties: {
        value: { type: 'string', description: 'The aspect (or, for PATCH, the patch) serialized as JSON' },
        contentType: { type: 'string', enum: ['application/json', 'application/json-patch+json'] },
      },
    },
    systemMetadata: { type: ['object', 'string'] },
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description:
        "Conditional writes: 'If-None-Match: *' drops a CREATE or CREATE_ENTITY that finds its aspect or entity present; 'If-Version-Match' writes only over that version of the aspect (systemMetadata.version; -1: absent), else 412",
    },
  },
};

const asyncFlag: Schema = { type: ['string', 'boolean'], enum: ['true', 'false', true, false], description: 'Accepted for compatibility; writes are always synchronous' };

export interface MetadataServices {
  ingestion: IngestionService;
  retrieval: RetrievalService;
}

/** Ingestion, retrieval and relationship endpoints. Handlers parse, call one service method, and return the body. */
export function metadataRoutes({ ingestion, retrieval }: MetadataServices): RouteDefinition[] {
  return [
    {
      operationId: 'ingestProposal',
      method: 'POST',
      path: '/aspects',
      action: 'ingestProposal',
      tag: 'Ingestion',
      summary: 'Write one aspect (UPSERT), patch it (PATCH) or remove it (DELETE)',
      scope: 'write',
      openByDefault: true,
      body: { type: 'object', required: ['proposal'], properties: { proposal: proposalSchema, async: asyncFlag, systemMetadata: { type: ['object', 'string'] } } },
      example: {
        request: {
          proposal: {
            entityType: 'dataset',
            entityUrn: SAMPLE_URN,
            changeType: 'UPSERT',
            aspectName: 'status',
            aspect: { value: '{"removed":false}', contentType: 'application/json' },
          },
        },
        response: { value: SAMPLE_URN },
      },
      revocationInStatements: true,
      handle: async ({ body, principal, revocation }) => ({ value: await ingestion.ingestProposal(body.proposal, principal, body.systemMetadata, revocation) }),
    },
    {
      operationId: 'ingestProposalBatch',
      method: 'POST',
      path: '/aspects',
      action: 'ingestProposalBatch',
      tag: 'Ingestion',
      summary: 'Write several proposals; the batch is validated as a whole and rejected whole if any proposal is invalid',
      scope: 'write',
      openByDefault: true,
      body: { type: 'object', required: ['proposals'], properties: { proposals: { type: 'array', maxItems: 10000, items: { type: 'object' } }, async: asyncFlag } },
      example: { request: { proposals: ['…'], async: 'false' }, response: { value: [SAMPLE_URN] } },
      revocationInStatements: true,
      handle: async ({ body, principal, revocation }) => ({ value: await ingestion.ingestProposalBatch(body.proposals as unknown[], principal, revocation) }),
    },
    {
      operationId: 'ingestSnapshot',
      method: 'POST',
      path: '/entities',
      action: 'ingest',
      tag: 'Ingestion',
      summary: 'Legacy: ingest a whole entity snapshot (all its aspects in one transaction)',
      scope: 'write',
      openByDefault: true,
      body: { type: 'object', required: ['entity'], properties: { entity: { type: 'object', required: ['value'], properties: { value: { type: 'object' } } }, systemMetadata: { type: ['object', 'string'] } } },
      example: {
        request: { entity: { value: { 'com.linkedin.metadata.snapshot.TagSnapshot': { urn: 'urn:li:tag:pii', aspects: [{ 'com.linkedin.tag.TagProperties': { name: 'pii', description: 'Personal data' } }] } } } },
        response: {},
      },
      revocationInStatements: true,
      handle: async ({ body, principal, revocation }) => {
        await ingestion.ingestSnapshot(body.entity, body.systemMetadata, principal, revocation);
        return {};
      },
    },
    {
      operationId: 'deleteEntity',
      method: 'POST',
      path: '/entities',
      action: 'delete',
      tag: 'Ingestion',
      summary: 'Hard-delete an entity, one aspect of it, or a time range of a time-series aspect',
      description:
        'Without `aspectName`: the entity (all aspects, versions, edges, search document) and its time-series rows (only those in ' +
        '`startTimeMillis`..`endTimeMillis`, inclusive, when given). With a time-series `aspectName`: only its rows in the range; ' +
        'the entity stays. With a versioned `aspectName`: that aspect with all its versions (the key aspect: the entity); a time ' +
        'range is then a 400. `rows` counts aspect versions removed, `timeseriesRows` time-series rows. Unknown fields are a 400.',
      scope: 'write',
      openByDefault: true,
      body: {
        type: 'object',
        required: ['urn'],
        additionalProperties: false,
        properties: {
          urn: { type: 'string' },
          aspectName: { type: 'string', minLength: 1 },
          startTimeMillis: { type: 'integer' },
          endTimeMillis: { type: 'integer' },
        },
      },
      example: { request: { urn: SAMPLE_URN }, response: { value: { urn: SAMPLE_URN, rows: 7, timeseriesRows: 0 } } },
      handle: async ({ body }) =>
        ({
          value: await ingestion.delete({
            urn: body.urn,
            aspectName: body.aspectName,
            startTimeMillis: body.startTimeMillis as number | undefined,
            endTimeMillis: body.endTimeMillis as number | undefined,
          }),
        }),
    },
    {
      operationId: 'getEntityV2',
      method: 'GET',
      path: '/entitiesV2/:urn',
      tag: 'Retrieval',
      summary: 'Latest aspects of an entity (always including its key aspect)',
      scope: 'none',
      pathParams: { urn: 'URL-encoded entity urn' },
      query: {
        properties: {
          aspects: { type: 'array', items: { type: 'string' }, description: 'List(a,b), a single name, or repeated' },
          asOfTime: { type: 'integer', minimum: 0, description: 'Epoch ms: each aspect as it was then (410 if retention trimmed that history)' },
        },
      },
      example: {
        response: {
          urn: 'urn:li:tag:pii',
          entityName: 'tag',
          aspects: { tagKey: { name: 'tagKey', type: 'VERSIONED', version: 0, value: { name: 'pii' }, created: { time: 0, actor: 'urn:li:corpuser:__datahub_system' } } },
        },
      },
      handle: async ({ params, query }) => retrieval.entityV2(params.urn, (query.aspects as string[] | undefined) ?? null, query.asOfTime as number | undefined),
    },
    {
      operationId: 'getEntity',
      method: 'GET',
      path: '/entities/:urn',
      tag: 'Retrieval',
      summary: 'Legacy: the entity as a snapshot with the latest version of each aspect',
      scope: 'none',
      pathParams: { urn: 'URL-encoded entity urn' },
      example: { response: { value: { 'com.linkedin.metadata.snapshot.TagSnapshot': { urn: 'urn:li:tag:pii', aspects: [{ 'com.linkedin.metadata.key.TagKey': { name: 'pii' } }] } } } },
      handle: async ({ params }) => retrieval.entitySnapshot(params.urn),
    },
    {
      operationId: 'getVersionedAspect',
      method: 'GET',
      path: '/aspects/:urn',
      tag: 'Retrieval',
      summary: 'One version of an aspect: 0 = latest, n > 0 = history, n < 0 = counted back from the newest history version',
      scope: 'none',
      pathParams: { urn: 'URL-encoded entity urn' },
      query: {
        properties: {
          aspect: { type: 'string', minLength: 1 },
          version: { type: 'integer', default: 0 },
          asOfTime: { type: 'integer', minimum: 0, description: 'Epoch ms, instead of version: the version valid then (404: none yet; 410: trimmed by retention)' },
        },
        required: ['aspect'],
      },
      example: { response: { version: 0, aspect: { 'com.linkedin.common.Status': { removed: false } } } },
      handle: async ({ params, query }) => retrieval.versionedAspect(params.urn, query.aspect, query.version as number, query.asOfTime as number | undefined),
    },
    {
      operationId: 'getRelationships',
      method: 'GET',
      path: '/relationships',
      tag: 'Relationships',
      summary: 'Entities on the other side of edges of the given types',
      scope: 'none',
      query: {
        properties: {
          urn: { type: 'string', minLength: 1 },
          direction: { type: 'string', enum: ['INCOMING', 'OUTGOING'] },
          types: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]*$' }, description: 'List(A,B), a single name, or repeated' },
          start: { type: 'integer', minimum: 0, maximum: 2_147_483_647, default: 0 },
          count: { type: 'integer', minimum: 0, maximum: 10000, default: 100, description: 'Page size, at most 10,000 (larger is a 400); page on with start' },
        },
        required: ['urn', 'direction'],
      },
      example: {
        response: { start: 0, count: 1, total: 1, relationships: [{ type: 'OwnedBy', entity: 'urn:li:corpuser:jdoe' }], entities: ['urn:li:corpuser:jdoe'] },
      },
      handle: async ({ query }) =>
        retrieval.relationships(query.urn, query.direction, (query.types as string[] | undefined) ?? [], query.start as number, query.count as number),
    },
    {
      // The official client's DataHubGraph.get_related_entities() reads relationships only from this path.
      operationId: 'getRelatedEntities',
      method: 'GET',
      path: '/openapi/relationships/v1',
      tag: 'Relationships',
      summary: 'Entities on the other side of edges of the given types, in the form the official Python client reads',
      scope: 'none',
      query: {
        properties: {
          urn: { type: 'string', minLength: 1 },
          direction: { type: 'string', enum: ['INCOMING', 'OUTGOING'] },
          relationshipTypes: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]*$' }, description: 'Repeated, or List(A,B)' },
          start: { type: 'integer', minimum: 0, maximum: 2_147_483_647, default: 0 },
          count: { type: 'integer', minimum: 0, maximum: 10000, default: 200 },
        },
        required: ['urn', 'direction', 'relationshipTypes'],
      },
      example: { response: { start: 0, count: 1, total: 1, entities: [{ relationshipType: 'OwnedBy', urn: 'urn:li:corpuser:jdoe' }] } },
      handle: async ({ query }) => {
        const page = await retrieval.relationships(query.urn, query.direction, query.relationshipTypes as string[], query.start as number, query.count as number);
        return { start: page.start, count: page.count, total: page.total, entities: page.relationships.map((r) => ({ relationshipType: r.type, urn: r.entity })) };
      },
    },
  ];
}
