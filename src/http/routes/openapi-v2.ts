import { InvalidInputError } from '../../model/errors';
import type { EntityReads, V3Entity } from '../../services/entity-reads';
import type { OpenApiEntities } from '../../services/openapi-entities';
import type { RouteDefinition, Schema } from '../route';
import { accepted, ASPECT_WRITE_QUERY, aspectExistsRoute, aspectWriteOptions, deleteAspectRoute, deleteEntityRoute, entityExistsRoute, readAspectRoute, v3Errors } from './openapi-v3-writes';

/*
 * DataHub's OpenAPI v2 entity API (its v2 EntityController): the same operations as v3 (./openapi-v3-writes.ts) on the
 * same services, in v2's shapes. An entity is `{urn, aspects: {<aspectName>: {value, systemMetadata?}}}` instead of v3's
 * `{urn, <aspectName>: {…}}`, and an aspect write's body is the aspect value itself instead of `{value, …}`.
 */

const SAMPLE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const SAMPLE_ENTITY = { urn: SAMPLE, aspects: { status: { value: { removed: false } } } };

const flag = (defaultValue: boolean, description: string): Schema => ({ type: 'boolean', default: defaultValue, description });
const SYSTEM_METADATA = flag(false, "Include each aspect's systemMetadata in the answer");
const pathParams = { entityName: 'Entity type, e.g. dataset (any case)', urn: 'URL-encoded entity urn' };
const aspectPathParams = { ...pathParams, aspectName: 'Aspect name (any case)' };

/** v3's entity as v2 shapes it; no `aspects` key when there are none (an asynchronous write's answer). */
function toV2({ urn, ...aspects }: V3Entity): { urn: string; aspects?: Record<string, unknown> } {
  return Object.keys(aspects).length > 0 ? { urn, aspects } : { urn };
}

/** A v2 entity list (`[{urn, aspects: {…}}]`) as v3 takes it. */
function fromV2(body: unknown): V3Entity[] {
  if (!Array.isArray(body)) throw new InvalidInputError('The body must be a list of {urn, aspects: {<aspectName>: {value}}}');
  return body.map((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new InvalidInputError(`body[${i}] must be an object {urn, aspects}`);
    const { urn, aspects, ...rest } = item as Record<string, unknown>;
    if (typeof urn !== 'string') throw new InvalidInputError(`body[${i}]: missing \`urn\` field`);
    if (aspects === null || typeof aspects !== 'object' || Array.isArray(aspects)) throw new InvalidInputError(`body[${i}]: missing \`aspects\` field`);
    const extra = Object.keys(rest);
    if (extra.length > 0) throw new InvalidInputError(`body[${i}] has unknown field '${extra[0]}'; aspects go under \`aspects\``);
    return { urn, ...(aspects as Record<string, unknown>) };
  });
}

/**
 * The v2 routes, registered after v3's (the v2 scroll `GET /openapi/v2/entity/{entityName}` is among v3's reads). HEAD
 * routes come before the GETs of the same paths, which would answer HEAD too.
 */
export function openApiV2Routes(entities: OpenApiEntities, reads: EntityReads): RouteDefinition[] {
  return [
    {
      operationId: 'v2BatchGetEntities',
      method: 'POST',
      path: '/openapi/v2/entity/batch/:entityName',
      tag: 'Retrieval',
      summary: 'Latest aspects of several entities of one type (OpenAPI v2): {entities: [{urn, aspects}]}, entities with no stored aspect left out',
      scope: 'none',
      pathParams: { entityName: pathParams.entityName },
      body: {
        type: 'object',
        required: ['urns'],
        properties: {
          urns: { type: 'array', maxItems: 1000, items: { type: 'string' } },
          aspectNames: { type: 'array', maxItems: 300, items: { type: 'string' }, description: 'Default: all' },
          withSystemMetadata: { type: 'boolean', default: false },
        },
        additionalProperties: false,
      },
      example: { request: { urns: [SAMPLE], aspectNames: ['status'] }, response: { entities: [SAMPLE_ENTITY] } },
      handle: async ({ params, body }) => {
        const names = (body.aspectNames as string[] | undefined) ?? [];
        const requests = (body.urns as string[]).map((urn) => ({ urn, ...Object.fromEntries(names.map((n) => [n, {}])) }));
        const found = await reads.v3BatchGet(params.entityName, requests, body.withSystemMetadata === true);
        return { entities: found.map(toV2) };
      },
    },
    entityExistsRoute('v2', entities),
    aspectExistsRoute('v2', entities),
    {
      operationId: 'v2CreateEntities',
      method: 'POST',
      path: '/openapi/v2/entity/:entityName',
      tag: 'Ingestion',
      summary: 'Write aspects of several entities of one type in one transaction (OpenAPI v2); async (the default) answers [{urn}] with 202, async=false the aspects as stored',
      description: 'Body `[{urn, aspects: {<aspectName>: {value, systemMetadata?, headers?}}}]`. An unknown aspect, a urn of another type or a bad value is a 400 and nothing is written.',
      scope: 'write',
      openByDefault: true,
      revocationInStatements: true,
      pathParams: { entityName: pathParams.entityName },
      query: {
        properties: {
          async: flag(true, 'Accepted for DataHub clients: the write is committed before the answer either way; true answers 202 with the urns only'),
          systemMetadata: SYSTEM_METADATA,
          createIfNotExists: flag(false, 'Only false: a conditional write goes through the aspect route'),
          createEntityIfNotExists: flag(false, 'Only false, as createIfNotExists'),
        },
      },
      body: { type: 'array', maxItems: 1000, items: { type: 'object', required: ['urn', 'aspects'] } },
      example: { request: [SAMPLE_ENTITY], response: [{ urn: SAMPLE }] },
      handle: async (input) => {
        const { params, query, body, principal, revocation } = input;
        if (query.createIfNotExists === true || query.createEntityIfNotExists === true) {
          throw new InvalidInputError('createIfNotExists / createEntityIfNotExists are not supported on the batch write: write such an aspect through POST /openapi/v2/entity/{entityName}/{urn}/{aspectName}, which takes them');
        }
        const async = query.async !== false;
        const written = await v3Errors(() => entities.writeEntities(params.entityName, fromV2(body), { patch: false, systemMetadata: query.systemMetadata === true }, principal, revocation));
        accepted(input, async);
        return written.map((e) => (async ? { urn: e.urn } : toV2(e)));
      },
    },
    {
      operationId: 'v2GetEntity',
      method: 'GET',
      path: '/openapi/v2/entity/:entityName/:urn',
      tag: 'Retrieval',
      summary: 'Latest aspects of one entity (OpenAPI v2): {urn, aspects}; 404 when it has no stored aspect',
      scope: 'none',
      pathParams,
      query: { properties: { aspects: { type: 'array', items: { type: 'string' }, description: 'Aspect names; default all' }, systemMetadata: SYSTEM_METADATA } },
      example: { response: SAMPLE_ENTITY },
      handle: async ({ params, query }) => toV2(await reads.v3Get(params.entityName, params.urn, (query.aspects as string[] | undefined) ?? null, query.systemMetadata === true)),
    },
    deleteEntityRoute('v2', entities),
    readAspectRoute('v2', entities),
    {
      operationId: 'v2CreateAspect',
      method: 'POST',
      path: '/openapi/v2/entity/:entityName/:urn/:aspectName',
      tag: 'Ingestion',
      summary: 'Write one aspect (OpenAPI v2): the body is the aspect value; by default only if the aspect does not exist yet (createIfNotExists)',
      description: '`createIfEntityNotExists=true`: only if the entity does not exist; else `createIfNotExists=true` (the default): only if the aspect does not (a 400 otherwise); false: upsert. Answers {urn, aspects: {<aspectName>: {value}}}.',
      scope: 'write',
      openByDefault: true,
      revocationInStatements: true,
      pathParams: aspectPathParams,
      query: ASPECT_WRITE_QUERY,
      // The aspect value itself: its own schema validates it (a 400 names what is wrong).
      body: { type: 'object', additionalProperties: true, description: 'The aspect value' },
      example: { request: { removed: false }, response: SAMPLE_ENTITY },
      handle: async (input) => {
        const { params, query, body, principal, revocation } = input;
        const written = await v3Errors(() => entities.writeAspect(params.entityName, params.urn, params.aspectName, { value: body }, aspectWriteOptions(query), principal, revocation));
        accepted(input, query.async === true);
        return toV2(written);
      },
    },
    {
      operationId: 'v2PatchAspect',
      method: 'PATCH',
      path: '/openapi/v2/entity/:entityName/:urn/:aspectName',
      tag: 'Ingestion',
      summary: 'Patch one aspect (OpenAPI v2): body {patch: [JSON Patch operations], arrayPrimaryKeys?}; answers {urn, aspects} with the patched value',
      scope: 'write',
      openByDefault: true,
      revocationInStatements: true,
      pathParams: aspectPathParams,
      query: { properties: { async: flag(false, 'Accepted; true answers 202'), systemMetadata: SYSTEM_METADATA } },
      body: { type: 'object', required: ['patch'], properties: { patch: { type: 'array', maxItems: 10000, items: { type: 'object' } }, arrayPrimaryKeys: { type: 'object' } }, additionalProperties: false },
      example: {
        request: { patch: [{ op: 'add', path: '/description', value: 'Orders' }] },
        response: { urn: SAMPLE, aspects: { datasetProperties: { value: { description: 'Orders', customProperties: {}, tags: [] } } } },
      },
      handle: async (input) => {
        const { params, query, body, principal, revocation } = input;
        const patched = await v3Errors(() => entities.patchAspect(params.entityName, params.urn, params.aspectName, body, query.systemMetadata === true, principal, revocation));
        accepted(input, query.async === true);
        return toV2(patched);
      },
    },
    deleteAspectRoute('v2', entities),
  ];
}
