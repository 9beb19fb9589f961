import { InvalidInputError, PreconditionFailedError, ValidationError } from '../../model/errors';

/*
 * Conditional writes, as DataHub's metadata service has them (its CreateIfNotExistsValidator and
 * ConditionalWriteValidator): a proposal's `changeType` CREATE / CREATE_ENTITY and its `headers` If-None-Match and
 * If-Version-Match. The official client sends CREATE with `If-None-Match: *` for definitions a run must not overwrite
 * (Snowflake tags as structured properties, data products' domains, Unity Catalog federation, the documents lock).
 * They are checked in the plan stage, against the locked entity as the group leaves it (./plan.ts).
 */

/** What must hold of the stored state for an upsert to be written. */
export interface WriteCondition {
  /** CREATE: the aspect must be absent; CREATE_ENTITY: the entity (its key aspect) must be absent. */
  create: 'aspect' | 'entity' | null;
  /** With `create`: a write that finds it present is dropped (`If-None-Match: *`) instead of refused. */
  dropIfPresent: boolean;
  /** If-Version-Match: the aspect's version must be this ("-1": absent). */
  version: string | null;
  /** The entity's key aspect, whose presence says the entity exists. */
  keyAspect: string;
}

/** Change types written as upserts; CREATE and CREATE_ENTITY add a condition, UPDATE is an upsert as in DataHub. */
export const UPSERT_CHANGE_TYPES = ['UPSERT', 'UPDATE', 'CREATE', 'CREATE_ENTITY'];

/** The version of an aspect that is absent, and of any aspect a CREATE names (DataHub's UNVERSIONED_ASPECT_VERSION). */
const UNVERSIONED = '-1';

/** Headers that condition a write in DataHub but are not implemented here: refused, never ignored. */
const UNSUPPORTED_HEADERS = new Set(['if-modified-since', 'if-unmodified-since']);

/**
 * The condition of a proposal (null: none). Header names are matched case-insensitively; headers that condition
 * nothing (DataHub's free-form map) are ignored, as DataHub ignores them.
 */
export function writeCondition(changeType: string, headers: unknown, keyAspect: string): WriteCondition | null {
  if (headers !== undefined && headers !== null && (typeof headers !== 'object' || Array.isArray(headers))) {
    throw new InvalidInputError('proposal.headers must be an object of header names to string values');
  }
  let ifNoneMatch: string | null = null;
  let ifVersionMatch: string | null = null;
  for (const [name, value] of Object.entries((headers as Record<string, unknown> | null) ?? {})) {
    if (typeof value !== 'string') throw new InvalidInputError(`proposal.headers['${name}'] must be a string`);
    const lower = name.toLowerCase();
    if (UNSUPPORTED_HEADERS.has(lower)) throw new InvalidInputError(`proposal.headers['${name}'] is not supported: use If-Version-Match for a conditional write`);
    if (lower === 'if-none-match') ifNoneMatch = value;
    else if (lower === 'if-version-match') ifVersionMatch = value;
  }
  const create = changeType === 'CREATE' ? 'aspect' : changeType === 'CREATE_ENTITY' ? 'entity' : null;
  if (create === null && ifVersionMatch === null) return null;
  // As in DataHub, If-None-Match only changes what a CREATE does when it finds the aspect or entity present.
  return { create, dropIfPresent: create !== null && ifNoneMatch === '*', version: ifVersionMatch, keyAspect };
}

/**
 * Whether a conditional upsert is written (true) or dropped (false); throws when it is refused, which leaves the whole
 * request unwritten. `version`: the aspect's version as the group leaves it, null when it is absent.
 */
export function conditionHolds(condition: WriteCondition, where: { urn: string; aspect: string; version: number | null; entityExists: boolean }): boolean {
  if (condition.create === 'aspect' && where.version !== null) {
    if (condition.dropIfPresent) return false;
    throw new ValidationError(`Cannot perform CREATE since the aspect already exists: ${where.urn} ${where.aspect}`);
  }
  if (condition.create === 'entity' && where.entityExists) {
    if (condition.dropIfPresent) return false;
    throw new ValidationError(`Cannot perform CREATE_ENTITY if not exists since the entity key already exists: ${where.urn}`);
  }
  if (condition.version !== null) {
    const actual = condition.create !== null || where.version === null ? UNVERSIONED : String(where.version);
    if (condition.version !== actual) {
      throw new PreconditionFailedError(`Expected version ${condition.version}, actual version ${actual}: ${where.urn} ${where.aspect}`);
    }
  }
  return true;
}

/**
 * The system metadata a latest value is stored with: the client's, with the aspect's version (1 for its first value,
 * one more for each value that replaced another), which If-Version-Match compares and DataHub returns as `version`.
 */
export function withVersion(systemMetadata: string, version: number): string {
  // The client's own `version` was removed when it was parsed (normalizeSystemMetadata): the server assigns it.
  return systemMetadata === '{}' ? `{"version":"${version}"}` : `${systemMetadata.slice(0, -1)},"version":"${version}"}`;
}
