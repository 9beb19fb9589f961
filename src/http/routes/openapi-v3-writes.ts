import { InvalidInputError, NotFoundError, ValidationError } from '../../model/errors';
import { GENERIC, type EntityReads } from '../../services/entity-reads';
import type { OpenApiEntities } from '../../services/openapi-entities';
import type { RouteDefinition, RouteInput, Schema } from '../route';

const SAMPLE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const SAMPLE_ENTITY = { urn: SAMPLE, status: { value: { removed: false } } };

const flag = (defaultValue: boolean, description: string): Schema => ({ type: 'boolean', default: defaultValue, description });
const ASYNC = flag(true, 'Accepted for DataHub clients: the write is committed before the answer either way; true answers 202, false 200');
const SYSTEM_METADATA = flag(false, 'Include each aspect\'s systemMetadata in the answer');
const entityList: Schema = { type: 'array', maxItems: 1000, items: { type: 'object', required: ['urn'] }, description: '[{urn, <aspectName>: {value, systemMetadata?, headers?}}]' };
const byEntityType: Schema = { type: 'object', description: '{<entityName>: [{urn, <aspectName>: {value, systemMetadata?, headers?}}]}' };
const pathParams = { entityName: 'Entity type, e.g. dataset (any case; `generic`: the urn\'s own)', urn: 'URL-encoded entity urn' };
const aspectPathParams = { ...pathParams, aspectName: 'Aspect name (any case)' };

/**
 * DataHub's OpenAPI answers a failed aspect validation with 400 where its rest.li API (and this service's) answers 422;
 * a v3 (or v2) client branches on 400.
 */
export async function v3Errors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ValidationError) throw new InvalidInputError(err.message);
    throw err;
  }
}

/** A write's status as DataHub gives it: 202 for `async=true`, else 200. */
/** The query of a one-aspect write, v2's and v3's alike. */
export const ASPECT_WRITE_QUERY = {
  properties: {
    async: flag(false, 'Accepted for DataHub clients: the write is committed before the answer either way; true answers 202'),
    systemMetadata: SYSTEM_METADATA,
    createIfEntityNotExists: flag(false, 'Write only if the entity does not exist'),
    createIfNotExists: flag(true, 'Write only if the aspect does not exist'),
  },
};

export function aspectWriteOptions(query: Record<string, unknown>): { createIfEntityNotExists: boolean; createIfNotExists: boolean; systemMetadata: boolean } {
  return { createIfEntityNotExists: query.createIfEntityNotExists === true, createIfNotExists: query.createIfNotExists !== false, systemMetadata: query.systemMetadata === true };
}

export function accepted(input: RouteInput, async: boolean): void {
  input.ctx.status = async ? 202 : 200;
}

/**
 * A batch write route (create or patch; per type or the generic façade): written through `write`, answered with the
 * aspects as stored, 202 unless `async=false`.
 */
function batchWrite(
  route: Pick<RouteDefinition, 'operationId' | 'method' | 'path' | 'summary' | 'description' | 'pathParams' | 'body' | 'example'>,
  write: (input: RouteInput, systemMetadata: boolean) => Promise<unknown>,
): RouteDefinition {
  return {
    ...route,
    tag: 'Ingestion',
    scope: 'write',
    openByDefault: true,
    revocationInStatements: true,
    query: { properties: { async: ASYNC, systemMetadata: SYSTEM_METADATA } },
    handle: async (input) => {
      const answer = await v3Errors(() => write(input, input.query.systemMetadata === true));
      accepted(input, input.query.async !== false);
      return answer;
    },
  };
}

/** The OpenAPI versions whose entity routes share their operations (v2's answers differ in shape, not in these). */
export type OpenApiVersion = 'v2' | 'v3';

const entityPath = (version: OpenApiVersion) => `/openapi/${version}/entity/:entityName/:urn`;
const aspectPath = (version: OpenApiVersion) => `${entityPath(version)}/:aspectName`;

/** HEAD on an entity: 204, or 404. */
export function entityExistsRoute(version: OpenApiVersion, entities: OpenApiEntities): RouteDefinition {
  return {
    operationId: `${version}EntityExists`,
    method: 'HEAD',
    path: entityPath(version),
    tag: 'Retrieval',
    summary: `Whether an entity exists (OpenAPI ${version}): 204, or 404; a soft-deleted one only with includeSoftDelete`,
    scope: 'none',
    pathParams,
    query: { properties: { includeSoftDelete: flag(false, 'Count a soft-deleted entity as existing') } },
    example: { response: null },
    handle: async ({ params, query }) => {
      if (!(await entities.exists(params.entityName, params.urn, null, query.includeSoftDelete === true))) throw notFound(params.urn);
      return undefined;
    },
  };
}

/** HEAD on an aspect: 204, or 404. */
export function aspectExistsRoute(version: OpenApiVersion, entities: OpenApiEntities): RouteDefinition {
  return {
    operationId: `${version}AspectExists`,
    method: 'HEAD',
    path: aspectPath(version),
    tag: 'Retrieval',
    summary: `Whether an entity has an aspect (OpenAPI ${version}): 204, or 404`,
    scope: 'none',
    pathParams: aspectPathParams,
    query: { properties: { includeSoftDelete: flag(false, 'Count an aspect of a soft-deleted entity as existing') } },
    example: { response: null },
    handle: async ({ params, query }) => {
      if (!(await entities.exists(params.entityName, params.urn, params.aspectName, query.includeSoftDelete === true))) throw notFound(params.urn, params.aspectName);
      return undefined;
    },
  };
}

/** DELETE on an entity: the entity (hard), or only the named aspects, or (clear) every aspect but its key. */
export function deleteEntityRoute(version: OpenApiVersion, entities: OpenApiEntities): RouteDefinition {
  return {
    operationId: `${version}DeleteEntity`,
    method: 'DELETE',
    path: entityPath(version),
    tag: 'Ingestion',
    summary: `Hard-delete an entity (OpenAPI ${version}), or only the named aspects; clear=true removes every aspect but the key`,
    scope: 'write',
    openByDefault: true,
    pathParams,
    query: {
      properties: {
        aspects: { type: 'array', items: { type: 'string' }, description: 'Only these aspects (the key aspect: the entity)' },
        clear: flag(false, 'Remove every versioned aspect but the key aspect: the entity stays'),
      },
    },
    example: { response: null },
    handle: async ({ params, query }) => {
      await v3Errors(() => entities.deleteEntity(params.entityName, params.urn, { aspects: (query.aspects as string[] | undefined) ?? [], clear: query.clear === true }));
      return undefined;
    },
  };
}

/** GET on an aspect: `{value, systemMetadata?}` of its latest value, a history version, or a time-series event. */
export function readAspectRoute(version: OpenApiVersion, entities: OpenApiEntities): RouteDefinition {
  return {
    operationId: `${version}GetAspect`,
    method: 'GET',
    path: aspectPath(version),
    tag: 'Retrieval',
    summary: `One aspect of an entity (OpenAPI ${version}): its latest value, a history version, or a time-series event at or before a time`,
    scope: 'none',
    pathParams: aspectPathParams,
    query: {
      properties: {
        version: { type: 'integer', minimum: 0, default: 0, description: '0: latest; n: history version n; time-series: the latest event at or before this time (ms)' },
        systemMetadata: SYSTEM_METADATA,
      },
    },
    example: { response: { value: { removed: false } } },
    handle: async ({ params, query }) => v3Errors(() => entities.readAspect(params.entityName, params.urn, params.aspectName, query.version as number, query.systemMetadata === true)),
  };
}

/** DELETE on an aspect: all its versions (of a time-series aspect, its latest event). */
export function deleteAspectRoute(version: OpenApiVersion, entities: OpenApiEntities): RouteDefinition {
  return {
    operationId: `${version}DeleteAspect`,
    method: 'DELETE',
    path: aspectPath(version),
    tag: 'Ingestion',
    summary: `Hard-delete one aspect with all its versions (OpenAPI ${version}); of a time-series aspect, its latest event`,
    scope: 'write',
    openByDefault: true,
    pathParams: aspectPathParams,
    example: { response: null },
    handle: async ({ params }) => {
      await v3Errors(() => entities.deleteAspect(params.entityName, params.urn, params.aspectName));
      return undefined;
    },
  };
}

/**
 * Routes registered before the v3 reads: the `generic` façade (its literal segment must win over `{entityName}`) and
 * the HEAD checks (a GET route also answers HEAD, so these must come first).
 */
export function openApiV3GenericRoutes(entities: OpenApiEntities, reads: EntityReads): RouteDefinition[] {
  return [
    {
      operationId: 'v3BatchGetGeneric',
      method: 'POST',
      path: '/openapi/v3/entity/generic/batchGet',
      tag: 'Retrieval',
      summary: 'Latest aspects of entities of several types (OpenAPI v3): body and answer keyed by entity type',
      scope: 'none',
      query: { properties: { systemMetadata: SYSTEM_METADATA } },
      body: { type: 'object', description: '{<entityName>: [{urn, <aspectName>: {}}]}' },
      example: { request: { dataset: [{ urn: SAMPLE, status: {} }] }, response: { dataset: [SAMPLE_ENTITY] } },
      handle: async ({ query, body }) => entities.batchGetGeneric(body, query.systemMetadata === true),
    },
    batchWrite(
      {
        operationId: 'v3CreateGeneric',
        method: 'POST',
        path: '/openapi/v3/entity/generic',
        summary: 'Write aspects of entities of several types in one transaction (OpenAPI v3); answer keyed by entity type',
        body: { ...byEntityType, additionalProperties: true },
        example: { request: { dataset: [SAMPLE_ENTITY] }, response: { dataset: [SAMPLE_ENTITY] } },
      },
      ({ body, principal, revocation }, systemMetadata) => entities.writeGeneric(body, { patch: false, systemMetadata }, principal, revocation),
    ),
    batchWrite(
      {
        operationId: 'v3PatchGeneric',
        method: 'PATCH',
        path: '/openapi/v3/entity/generic',
        summary: 'Patch aspects of entities of several types in one transaction (OpenAPI v3): each value is {patch: [...], arrayPrimaryKeys?}',
        body: { ...byEntityType, additionalProperties: true },
        example: {
          request: { dataset: [{ urn: SAMPLE, datasetProperties: { value: { patch: [{ op: 'add', path: '/description', value: 'Orders' }] } } }] },
          response: { dataset: [{ urn: SAMPLE, datasetProperties: { value: { description: 'Orders', customProperties: {}, tags: [] } } }] },
        },
      },
      ({ body, principal, revocation }, systemMetadata) => entities.writeGeneric(body, { patch: true, systemMetadata }, principal, revocation),
    ),
    entityExistsRoute('v3', entities),
    aspectExistsRoute('v3', entities),
    {
      operationId: 'v3GetGenericEntity',
      method: 'GET',
      path: '/openapi/v3/entity/generic/:urn',
      tag: 'Retrieval',
      summary: 'Latest aspects of one entity of any type (OpenAPI v3 generic façade); 404 when it has no stored aspect',
      scope: 'none',
      pathParams: { urn: pathParams.urn },
      query: { properties: { aspects: { type: 'array', items: { type: 'string' }, description: 'Aspect names; default all' }, systemMetadata: SYSTEM_METADATA } },
      example: { response: SAMPLE_ENTITY },
      handle: async ({ params, query }) => reads.v3Get(GENERIC, params.urn, (query.aspects as string[] | undefined) ?? null, query.systemMetadata === true),
    },
  ];
}

function notFound(urn: string, aspect?: string) {
  return new NotFoundError(aspect ? `No aspect ${aspect} of ${urn}` : `No entity ${urn}`);
}

/** DataHub's OpenAPI v3 entity and aspect writes, deletes and aspect reads (registered after the v3 reads and scroll). */
export function openApiV3WriteRoutes(entities: OpenApiEntities): RouteDefinition[] {
  return [
    batchWrite(
      {
        operationId: 'v3CreateEntities',
        method: 'POST',
        path: '/openapi/v3/entity/:entityName',
        summary: 'Write aspects of several entities of one type in one transaction (OpenAPI v3); answers the aspects as stored',
        description:
          'Each aspect is `{value, systemMetadata?, headers?}`; `headers` may hold `If-Version-Match` (412 when the stored ' +
          'version differs; "-1": absent). An unknown aspect, a urn of another type or a bad value is a 400 and nothing is written.',
        pathParams: { entityName: pathParams.entityName },
        body: entityList,
        example: { request: [SAMPLE_ENTITY], response: [SAMPLE_ENTITY] },
      },
      ({ params, body, principal, revocation }, systemMetadata) => entities.writeEntities(params.entityName, body, { patch: false, systemMetadata }, principal, revocation),
    ),
    batchWrite(
      {
        operationId: 'v3PatchEntities',
        method: 'PATCH',
        path: '/openapi/v3/entity/:entityName',
        summary: 'Patch aspects of several entities of one type in one transaction (OpenAPI v3): each value is {patch: [...], arrayPrimaryKeys?}',
        pathParams: { entityName: pathParams.entityName },
        body: entityList,
        example: {
          request: [{ urn: SAMPLE, datasetProperties: { value: { patch: [{ op: 'add', path: '/description', value: 'Orders' }] } } }],
          response: [{ urn: SAMPLE, datasetProperties: { value: { description: 'Orders', customProperties: {}, tags: [] } } }],
        },
      },
      ({ params, body, principal, revocation }, systemMetadata) => entities.writeEntities(params.entityName, body, { patch: true, systemMetadata }, principal, revocation),
    ),
    deleteEntityRoute('v3', entities),
    readAspectRoute('v3', entities),
    {
      operationId: 'v3CreateAspect',
      method: 'POST',
      path: '/openapi/v3/entity/:entityName/:urn/:aspectName',
      tag: 'Ingestion',
      summary: 'Write one aspect (OpenAPI v3); by default only if the aspect does not exist yet (createIfNotExists)',
      description:
        'Body `{value, systemMetadata?, headers?}`. `createIfEntityNotExists=true`: only if the entity does not exist; else ' +
        '`createIfNotExists=true` (the default): only if the aspect does not (a 400 otherwise); false: upsert.',
      scope: 'write',
      openByDefault: true,
      revocationInStatements: true,
      pathParams: aspectPathParams,
      query: ASPECT_WRITE_QUERY,
      body: { type: 'object', required: ['value'], properties: { value: { type: 'object' }, systemMetadata: { type: 'object' }, headers: { type: 'object' } }, additionalProperties: false },
      example: { request: { value: { removed: false } }, response: SAMPLE_ENTITY },
      handle: async (input) => {
        const { params, query, body, principal, revocation } = input;
        const answer = await v3Errors(() => entities.writeAspect(params.entityName, params.urn, params.aspectName, body, aspectWriteOptions(query), principal, revocation));
        accepted(input, query.async === true);
        return answer;
      },
    },
    {
      operationId: 'v3PatchAspect',
      method: 'PATCH',
      path: '/openapi/v3/entity/:entityName/:urn/:aspectName',
      tag: 'Ingestion',
      summary: 'Patch one aspect (OpenAPI v3): body {patch: [JSON Patch operations], arrayPrimaryKeys?}; answers the patched value',
      scope: 'write',
      openByDefault: true,
      revocationInStatements: true,
      pathParams: aspectPathParams,
      query: { properties: { async: flag(false, 'Accepted; true answers 202'), systemMetadata: SYSTEM_METADATA } },
      body: { type: 'object', required: ['patch'], properties: { patch: { type: 'array', maxItems: 10000, items: { type: 'object' } }, arrayPrimaryKeys: { type: 'object' }, forceGenericPatch: { type: 'boolean' } } },
      example: {
        request: { patch: [{ op: 'add', path: '/description', value: 'Orders' }] },
        response: { urn: SAMPLE, datasetProperties: { value: { description: 'Orders', customProperties: {}, tags: [] } } },
      },
      handle: async (input) => {
        const { params, query, body, principal, revocation } = input;
        // DataHub's forceGenericPatch bypasses its aspect templates; this service always patches through them.
        const { forceGenericPatch, ...patch } = body;
        if (forceGenericPatch === true) throw new InvalidInputError('forceGenericPatch is not supported: patches apply through the aspect templates');
        const answer = await v3Errors(() => entities.patchAspect(params.entityName, params.urn, params.aspectName, patch, query.systemMetadata === true, principal, revocation));
        accepted(input, query.async === true);
        return answer;
      },
    },
    deleteAspectRoute('v3', entities),
  ];
}
