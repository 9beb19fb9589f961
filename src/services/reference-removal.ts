import type { AspectSpec, RelationshipField } from '../model/registry';

/**
 * Removing a reference to an entity from an aspect value, guided by the aspect's schema and its relationship fields
 * (`x-relationship`). Where the urn sits decides what goes:
 * - an optional field holding it is unset;
 * - a required one takes its record with it, up to the nearest array element or map entry (removed) or optional field
 *   (unset): a tag association leaves globalTags.tags, an owner ownership.owners, an upstream upstreamLineage.upstreams,
 *   also nested ones such as schemaMetadata.fields[].globalTags.tags[];
 * - a required field with nothing removable above it (container.container) cannot go without leaving an invalid aspect:
 *   it is kept and reported.
 */

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
  required?: string[];
  minProperties?: number;
  [k: string]: unknown;
}

export interface RemovalResult {
  /** The aspect value without the references (a copy; unchanged when nothing was removed). */
  value: Record<string, unknown>;
  /** Relationship names of which at least one occurrence was removed. */
  removed: Set<string>;
  /** Relationship names of which an occurrence had to stay (a required field with nothing removable above it). */
  blocked: Set<string>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function childSchema(schema: SchemaNode | undefined, step: string): SchemaNode | undefined {
  if (!schema) return undefined;
  if (step !== '*') return schema.properties?.[step];
  if (schema.items) return schema.items;
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

/** A field the record can lose: not required, and not the one member of a union (an object with exactly one key). */
function canUnset(record: SchemaNode | undefined, field: string): boolean {
  if (!record) return false;
  if (record.required?.includes(field)) return false;
  return !(typeof record.minProperties === 'number' && record.minProperties >= 1);
}

/**
 * Walks `path` from `node`; answers 'remove' when the caller must remove `node` itself (it holds the urn, or a required
 * part of it does), after removing what it could below. Mutates `node`.
 */
function visit(node: unknown, schema: SchemaNode | undefined, path: readonly string[], i: number, urn: string, counts: { removed: number }): 'keep' | 'remove' {
  if (i === path.length) return node === urn ? 'remove' : 'keep';
  const step = path[i];
  const child = childSchema(schema, step);
  if (step === '*') {
    if (Array.isArray(node)) {
      for (let k = node.length - 1; k >= 0; k--) {
        if (visit(node[k], child, path, i + 1, urn, counts) === 'remove') {
          node.splice(k, 1);
          counts.removed++;
        }
      }
    } else if (isObject(node)) {
      for (const key of Object.keys(node)) {
        if (visit(node[key], child, path, i + 1, urn, counts) === 'remove') {
          delete node[key];
          counts.removed++;
        }
      }
    }
    return 'keep';
  }
  if (!isObject(node) || node[step] === undefined || node[step] === null) return 'keep';
  if (visit(node[step], child, path, i + 1, urn, counts) === 'keep') return 'keep';
  if (canUnset(schema, step)) {
    delete node[step];
    counts.removed++;
    return 'keep';
  }
  return 'remove';
}

/** Removes every occurrence of `urn` from the aspect's relationship fields (all of them, whatever their name). */
export function removeReferences(aspect: AspectSpec, value: Record<string, unknown>, urn: string): RemovalResult {
  const copy = structuredClone(value);
  const removed = new Set<string>();
  const blocked = new Set<string>();
  for (const field of aspect.relationships) {
    const counts = { removed: 0 };
    if (visit(copy, aspect.schema as SchemaNode, field.path, 0, urn, counts) === 'remove') blocked.add(field.name);
    if (counts.removed > 0) removed.add(field.name);
  }
  return { value: removed.size > 0 ? copy : value, removed, blocked };
}

/** Whether an occurrence in this field can be removed at all: some step from it up to the root can go. */
export function isRemovable(aspect: AspectSpec, field: RelationshipField): boolean {
  const records: (SchemaNode | undefined)[] = [aspect.schema as SchemaNode];
  for (const step of field.path) records.push(childSchema(records[records.length - 1], step));
  for (let i = field.path.length - 1; i >= 0; i--) {
    if (field.path[i] === '*' || canUnset(records[i], field.path[i])) return true;
  }
  return false;
}
