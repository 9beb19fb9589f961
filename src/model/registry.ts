import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ASPECT_BEHAVIOURS, type AspectBehaviour } from './aspects';
import { InvalidInputError, ValidationError } from './errors';
import { withSafeIntegers } from './safe-integers';
import { makeUrn, parseUrn, tryParseUrn, type Urn } from './urn';

/**
 * The entity and aspect registry, built once from `schema/`: entities.json plus one JSON Schema per aspect.
 * Annotations (x-aspect, x-key, x-relationship, x-searchable, x-urn) drive validation, edge projection and indexing.
 */

export type SearchFieldType =
  | 'TEXT'
  | 'TEXT_PARTIAL'
  | 'WORD_GRAM'
  | 'KEYWORD'
  | 'URN'
  | 'URN_PARTIAL'
  | 'BOOLEAN'
  | 'COUNT'
  | 'DATETIME'
  | 'BROWSE_PATH';

export interface SearchableField {
  /** Path of the value inside the aspect; `*` steps into array items. */
  path: string[];
  fieldName: string;
  fieldType: SearchFieldType;
  queryByDefault: boolean;
  addToFilters: boolean;
  enableAutocomplete: boolean;
  boostScore: number;
  /** DataHub's companion fields: a boolean "has any value" and a count of values. */
  hasValuesFieldName?: string;
  numValuesFieldName?: string;
}

export interface RelationshipField {
  path: string[];
  name: string;
  entityTypes: string[];
  /** DataHub's `isLineage`: the edge is part of lineage (kept as the edge property `isLineage`). */
  isLineage: boolean;
  /**
   * DataHub's `isUpstream` (default true): the target is upstream of the aspect's entity (DownstreamOf, Consumes);
   * false when the target is downstream of it (Produces).
   */
  isUpstream: boolean;
  /**
   * DataHub's `via`: the node each edge passes through (an upstream's query), beside the target in the same item.
   * `items` is the path to the items both sit in, `target` and `node` the paths from an item to each.
   */
  via?: { items: string[]; target: string[]; node: string[] };
}

/** An edge an aspect value projects; `via`: the node it passes through (DataHub's lineage edges' query). */
export interface ProjectedEdge {
  type: string;
  target: string;
  isLineage: boolean;
  via?: string;
}

export interface UrnField {
  path: string[];
  entityTypes: string[];
  /** The field projects an edge, so its URN becomes an entity (a placeholder until written). */
  edge: boolean;
}

export interface AspectSpec {
  name: string;
  recordName: string;
  shortRecordName: string;
  timeseries: boolean;
  key?: { entity: string; parts: string[] };
  schema: Record<string, unknown>;
  relationships: RelationshipField[];
  searchable: SearchableField[];
  urnFields: UrnField[];
  /** What the aspect does beyond its schema (src/model/aspects/); absent for most aspects. */
  behaviour?: AspectBehaviour;
}

export interface EntitySpec {
  name: string;
  keyAspect: string;
  snapshot?: string;
  /** DataHub's GraphQL EntityType name (DATASET, DATA_JOB, CORP_USER …). */
  graphqlType: string;
  aspects: Set<string>;
  /** The aspect holding the entity's name, description and custom properties, and its name field (src/model/aspects/). */
  properties?: { aspect: string; nameField?: string };
}

interface EntityEntry {
  name: string;
  keyAspect: string;
  snapshot?: string;
  graphqlType?: string;
  aspects: string[];
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  'x-aspect'?: { name: string; recordName: string; timeseries?: boolean };
  'x-key'?: { entity: string; parts: string[] };
  'x-relationship'?: { name: string; entityTypes: string[]; isLineage?: boolean; isUpstream?: boolean; via?: string };
  'x-searchable'?: Partial<SearchableField> & { fieldName: string; fieldType: SearchFieldType };
  'x-urn'?: { entityTypes: string[] };
  [k: string]: unknown;
}

const ANNOTATIONS = ['x-aspect', 'x-relationship', 'x-searchable', 'x-key', 'x-urn'];

/**
 * Collects annotated fields by walking properties (named steps), array items and map values (`*` steps). Recursive
 * records (`$ref`) are not followed: their annotations would have no finite path.
 */
function walk(schema: JsonSchema, path: string[], visit: (node: JsonSchema, path: string[]) => void): void {
  visit(schema, path);
  for (const [name, child] of Object.entries(schema.properties ?? {})) walk(child, [...path, name], visit);
  if (schema.items) walk(schema.items, [...path, '*'], visit);
  const values = schema.additionalProperties;
  if (values && typeof values === 'object') walk(values as JsonSchema, [...path, '*'], visit);
}

/** All leaf values found at a path (arrays flattened); missing steps yield nothing. */
export function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  const found: unknown[] = [];
  collectAt(value, path, 0, found);
  return found;
}

/**
 * valuesAt's walk, depth first into one output list: the same values in the same order as a walk step by step, without
 * a list per step (this runs for every searchable field and relationship of every aspect written, restored or indexed).
 */
function collectAt(value: unknown, path: readonly string[], depth: number, found: unknown[]): void {
  if (depth === path.length) {
    if (Array.isArray(value)) for (const item of value) found.push(item);
    else found.push(value);
    return;
  }
  if (value === null || value === undefined || typeof value !== 'object') return;
  const step = path[depth];
  if (step === '*') {
    for (const child of Array.isArray(value) ? value : Object.values(value)) collectAt(child, path, depth + 1, found);
  } else if (!Array.isArray(value)) {
    const child = (value as Record<string, unknown>)[step];
    if (child !== undefined && child !== null) collectAt(child, path, depth + 1, found);
  }
}

function describeAjvError(e: ErrorObject): { path: string; message: string } {
  const path = e.instancePath || '/';
  if (e.keyword === 'required') return { path, message: `missing required field '${(e.params as { missingProperty: string }).missingProperty}'` };
  if (e.keyword === 'enum') {
    return { path, message: `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` };
  }
  return { path, message: e.message ?? 'is invalid' };
}

/**
 * A relationship's `via` (DataHub's aspect-rooted path: upstreams, any item, query) against the relationship's own
 * path (upstreams, any item, dataset): the items both sit in (up to their last common `*`) and each one's path from an
 * item.
 */
function viaSteps(path: string[], via: string, aspect: string): { items: string[]; target: string[]; node: string[] } {
  const node = via.split('/').filter((s) => s.length > 0);
  let last = -1;
  for (let i = 0; i < Math.min(path.length, node.length) && path[i] === node[i]; i++) if (path[i] === '*') last = i;
  if (last < 0) throw new Error(`aspect ${aspect}: relationship at ${path.join('/')} has a via (${via}) outside its items`);
  return { items: path.slice(0, last), target: path.slice(last + 1), node: node.slice(last + 1) };
}

export class Registry {
  readonly entities = new Map<string, EntitySpec>();
  readonly aspects = new Map<string, AspectSpec>();
  private readonly aspectsByRecordName = new Map<string, AspectSpec>();
  private readonly entitiesBySnapshot = new Map<string, EntitySpec>();
  private readonly validators = new Map<string, ValidateFunction>();
  /**
   * Entity URNs already found valid, by their parsed object (urn.ts keeps recent ones): every URN-valued field of every
   * write is checked as an entity URN, and the same owners, tags and upstreams recur (the key-aspect check was 2-3 % of
   * the service's CPU under single-proposal ingestion). Refusals are not kept.
   */
  private readonly validEntityUrns = new WeakMap<Urn, EntitySpec>();
  private readonly ajv = new Ajv({ strict: true, removeAdditional: true, allErrors: true, allowUnionTypes: true });

  constructor(
    readonly urnNamespace: string,
    entityFile: { entities: EntityEntry[] },
    aspectSchemas: JsonSchema[],
  ) {
    this.ajv.addVocabulary(ANNOTATIONS);
    for (const schema of aspectSchemas) {
      const meta = schema['x-aspect'];
      if (!meta) throw new Error(`aspect schema ${String(schema.$id)} lacks x-aspect`);
      const spec: AspectSpec = {
        name: meta.name,
        recordName: meta.recordName,
        shortRecordName: meta.recordName.split('.').pop()!,
        timeseries: Boolean(meta.timeseries),
        key: schema['x-key'],
        schema,
        relationships: [],
        searchable: [],
        urnFields: [],
        behaviour: ASPECT_BEHAVIOURS.get(meta.name),
      };
      walk(schema, [], (node, path) => {
        const rel = node['x-relationship'];
        if (rel) {
          spec.relationships.push({
            path,
            name: rel.name,
            entityTypes: rel.entityTypes,
            isLineage: rel.isLineage ?? false,
            isUpstream: rel.isUpstream ?? true,
            ...(rel.via ? { via: viaSteps(path, rel.via, meta.name) } : {}),
          });
        }
        const urn = node['x-urn'];
        if (rel || urn) spec.urnFields.push({ path, entityTypes: (rel ?? urn)!.entityTypes, edge: Boolean(rel) });
        const s = node['x-searchable'];
        if (s) {
          spec.searchable.push({
            path,
            fieldName: s.fieldName,
            fieldType: s.fieldType,
            queryByDefault: s.queryByDefault ?? ['TEXT', 'TEXT_PARTIAL', 'WORD_GRAM', 'URN', 'URN_PARTIAL'].includes(s.fieldType),
            addToFilters: s.addToFilters ?? false,
            enableAutocomplete: s.enableAutocomplete ?? false,
            boostScore: s.boostScore ?? 1,
            hasValuesFieldName: s.hasValuesFieldName,
            numValuesFieldName: s.numValuesFieldName,
          });
        }
      });
      this.aspects.set(spec.name, spec);
      this.aspectsByRecordName.set(spec.recordName, spec);
      this.aspectsByRecordName.set(spec.shortRecordName, spec);
    }
    for (const e of entityFile.entities) {
      for (const a of [e.keyAspect, ...e.aspects]) {
        if (!this.aspects.has(a)) throw new Error(`entity ${e.name} names unknown aspect ${a}`);
      }
      const spec: EntitySpec = {
        name: e.name,
        keyAspect: e.keyAspect,
        snapshot: e.snapshot,
        graphqlType: e.graphqlType ?? e.name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase(),
        aspects: new Set([e.keyAspect, ...e.aspects]),
      };
      spec.properties = this.propertiesOf(spec);
      this.entities.set(e.name, spec);
      if (e.snapshot) {
        this.entitiesBySnapshot.set(e.snapshot, spec);
        this.entitiesBySnapshot.set(e.snapshot.split('.').pop()!, spec);
      }
    }
  }

  /** The one aspect of the entity type whose behaviour says it is the entity's properties, if any. */
  private propertiesOf(entity: EntitySpec): EntitySpec['properties'] {
    const found = [...entity.aspects].flatMap((name) => {
      const declared = this.aspects.get(name)!.behaviour?.entityProperties;
      return declared ? [{ aspect: name, nameField: declared.nameField }] : [];
    });
    if (found.length > 1) throw new Error(`entity ${entity.name} has more than one properties aspect: ${found.map((f) => f.aspect).join(', ')}`);
    const properties = found[0];
    const fields = (this.aspects.get(properties?.aspect ?? '')?.schema.properties ?? {}) as Record<string, unknown>;
    if (properties?.nameField && !(properties.nameField in fields)) {
      throw new Error(`aspect ${properties.aspect} has no field ${properties.nameField}, the name its behaviour names`);
    }
    return properties;
  }

  /**
   * The generated model (schema/entities.json, schema/aspects/) with this service's own additions on top
   * (schema/custom/aspects/ replaces or adds aspects by name; schema/custom/entities.json adds entity types, or aspects to
   * existing ones).
   */
  static load(schemaDir: string, urnNamespace = 'li'): Registry {
    const readSchemas = (dir: string): JsonSchema[] =>
      existsSync(dir)
        ? readdirSync(dir)
            .filter((f) => f.endsWith('.json'))
            .sort()
            .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as JsonSchema)
        : [];
    const schemas = new Map<string, JsonSchema>();
    for (const s of [...readSchemas(join(schemaDir, 'aspects')), ...readSchemas(join(schemaDir, 'custom', 'aspects'))]) {
      schemas.set(String(s.$id), s);
    }
    const entities = new Map<string, EntityEntry>();
    const entityFiles = [join(schemaDir, 'entities.json'), join(schemaDir, 'custom', 'entities.json')].filter(existsSync);
    for (const file of entityFiles) {
      for (const e of (JSON.parse(readFileSync(file, 'utf8')) as { entities: EntityEntry[] }).entities) {
        const known = entities.get(e.name);
        entities.set(e.name, known ? { ...known, ...e, aspects: [...new Set([...known.aspects, ...e.aspects])] } : e);
      }
    }
    return new Registry(urnNamespace, { entities: [...entities.values()] }, [...schemas.values()]);
  }

  entity(name: string): EntitySpec {
    const spec = this.entities.get(name);
    if (!spec) throw new InvalidInputError(`Unknown entity type '${name}'`);
    return spec;
  }

  /**
   * An entity type named in a path, in any case (`platformresource`, `DATASET`), as DataHub's registry looks names up:
   * the official client's platform-resource lookups, made by SQL-parsing sources, name it in lower case.
   */
  entityAnyCase(name: string): EntitySpec {
    return this.entities.get(name) ?? this.entitiesByLowerCase().get(name.toLowerCase()) ?? this.entity(name);
  }

  private lowerCaseNames?: Map<string, EntitySpec>;

  private entitiesByLowerCase(): Map<string, EntitySpec> {
    return (this.lowerCaseNames ??= new Map([...this.entities.values()].map((e) => [e.name.toLowerCase(), e])));
  }

  /** Parses a URN and checks its namespace and entity type are known. */
  parseEntityUrn(raw: unknown, what = 'urn'): { urn: Urn; entity: EntitySpec } {
    const urn = parseUrn(raw, what);
    if (urn.namespace !== this.urnNamespace) {
      throw new InvalidInputError(`Invalid ${what} '${urn.raw}': namespace must be '${this.urnNamespace}'`);
    }
    const known = this.validEntityUrns.get(urn);
    if (known) return { urn, entity: known };
    const entity = this.entities.get(urn.entityType);
    if (!entity) throw new InvalidInputError(`Invalid ${what} '${urn.raw}': unknown entity type '${urn.entityType}'`);
    this.keyAspectFor(urn, entity);
    this.validEntityUrns.set(urn, entity);
    return { urn, entity };
  }

  /** A well-formed URN of this namespace, whatever its entity type. */
  parseUrnLoosely(raw: unknown, what = 'urn'): string {
    const urn = parseUrn(raw, what);
    if (urn.namespace !== this.urnNamespace) {
      throw new InvalidInputError(`Invalid ${what} '${urn.raw}': namespace must be '${this.urnNamespace}'`);
    }
    return urn.raw;
  }

  /** The aspect spec of an aspect valid for the entity type; 422 when the entity does not carry it. */
  aspectFor(entity: EntitySpec, aspectName: unknown): AspectSpec {
    if (typeof aspectName !== 'string' || aspectName === '') throw new InvalidInputError('aspectName is required');
    const spec = this.aspects.get(aspectName);
    if (!spec || !entity.aspects.has(aspectName)) {
      throw new ValidationError(`Unknown aspect '${aspectName}' for entity type '${entity.name}'`);
    }
    return spec;
  }

  /** An aspect of the entity type named in a path, in any case (`globaltags`), as DataHub's OpenAPI looks it up. */
  aspectAnyCase(entity: EntitySpec, aspectName: string): AspectSpec {
    if (entity.aspects.has(aspectName)) return this.aspectFor(entity, aspectName);
    const lower = aspectName.toLowerCase();
    const match = [...entity.aspects].find((name) => name.toLowerCase() === lower);
    return this.aspectFor(entity, match ?? aspectName);
  }

  aspectByRecordName(recordName: string): AspectSpec | undefined {
    return this.aspectsByRecordName.get(recordName);
  }

  entityBySnapshot(recordName: string): EntitySpec | undefined {
    return this.entitiesBySnapshot.get(recordName);
  }

  /** The key aspect value derived from the URN; 400 when the URN's parts do not fit the key. */
  keyAspectFor(urn: Urn, entity: EntitySpec): { aspect: AspectSpec; value: Record<string, unknown> } {
    const aspect = this.aspects.get(entity.keyAspect)!;
    const parts = aspect.key!.parts;
    // A one-part key is the whole id, parentheses and commas included.
    const values = parts.length === 1 ? [urn.id] : urn.parts;
    if (values.length !== parts.length) {
      throw new InvalidInputError(
        `Invalid urn '${urn.raw}': a ${entity.name} urn has ${parts.length} part(s) (${parts.join(', ')}), found ${urn.parts.length}`,
      );
    }
    const value: Record<string, unknown> = Object.fromEntries(parts.map((p, i) => [p, values[i]]));
    try {
      return { aspect, value: this.validate(aspect, value, { inPlace: true }) };
    } catch (e) {
      if (e instanceof ValidationError) {
        throw new InvalidInputError(`Invalid urn '${urn.raw}': ${e.details.map((d) => `${d.path.slice(1)} ${d.message}`).join('; ')}`);
      }
      throw e;
    }
  }

  /**
   * The aspects an entity gets when it lacks them (DataHub's default aspects): its key aspect, derived from the urn,
   * and each of its aspects whose behaviour has a default value. Values are computed when asked for.
   */
  defaultAspects(urn: Urn, entity: EntitySpec): { name: string; value: () => Record<string, unknown> }[] {
    const defaults = [{ name: entity.keyAspect, value: () => this.keyAspectFor(urn, entity).value }];
    for (const behaviour of ASPECT_BEHAVIOURS.values()) {
      const value = behaviour.defaultValue;
      if (value && entity.aspects.has(behaviour.name)) defaults.push({ name: behaviour.name, value: () => value(urn) as Record<string, unknown> });
    }
    return defaults;
  }

  keyUrnOf(entityName: string, key: Record<string, unknown>): string {
    const aspect = this.aspects.get(this.entity(entityName).keyAspect)!;
    return makeUrn(this.urnNamespace, entityName, aspect.key!.parts.map((p) => String(key[p])));
  }

  /** Compiled on first use: most of the model's ~270 aspects are never written by a given deployment. */
  private validator(aspect: AspectSpec): ValidateFunction {
    let validator = this.validators.get(aspect.name);
    if (!validator) {
      validator = this.ajv.compile(withSafeIntegers(aspect.schema));
      this.validators.set(aspect.name, validator);
    }
    return validator;
  }

  /**
   * Validates an aspect value and returns a cleaned copy (unknown fields dropped).
   * Wrong types, missing required fields and malformed URNs in foreign-key fields are 422.
   */
  validate(aspect: AspectSpec, value: unknown, options: { inPlace?: boolean } = {}): Record<string, unknown> {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ValidationError(`Aspect '${aspect.name}' must be a JSON object`, [{ path: '/', message: 'must be object' }]);
    }
    // inPlace: the caller owns the value (just parsed from a request) and lets it be cleaned as it is.
    const copy = (options.inPlace ? value : structuredClone(value)) as Record<string, unknown>;
    const validator = this.validator(aspect);
    if (!validator(copy)) {
      const details = (validator.errors ?? []).slice(0, 10).map(describeAjvError);
      throw new ValidationError(
        `Invalid ${aspect.name}: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`,
        details,
      );
    }
    for (const field of aspect.urnFields) {
      for (const v of valuesAt(copy, field.path)) {
        const urn = tryParseUrn(v);
        const where = '/' + field.path.join('/');
        const problem = !urn
          ? `must be a urn, got ${JSON.stringify(v)}`
          : field.entityTypes.length > 0 && !field.entityTypes.includes(urn.entityType)
            ? `must reference ${field.entityTypes.join(' or ')}, got '${urn.raw}'`
            : field.edge
              ? this.entityUrnProblem(urn)
              : null;
        if (problem) throw new ValidationError(`Invalid ${aspect.name}: ${where} ${problem}`, [{ path: where, message: problem }]);
      }
    }
    return copy;
  }

  /**
   * Why an edge target is not a URN this service accepts for an entity (namespace, entity type, key parts), or null.
   * Otherwise the edge would create a placeholder entity that no endpoint can read or delete.
   */
  private entityUrnProblem(urn: Urn): string | null {
    try {
      this.parseEntityUrn(urn.raw);
      return null;
    } catch (err) {
      if (err instanceof InvalidInputError) return `must be a valid entity urn: ${err.message}`;
      throw err;
    }
  }

  /**
   * Lineage relationship names and their direction: isUpstream = the edge points from the downstream entity to its
   * upstream (DownstreamOf, Consumes); false = from upstream to downstream (Produces).
   */
  lineageRelationships(): Map<string, { isUpstream: boolean }> {
    const out = new Map<string, { isUpstream: boolean }>();
    for (const aspect of this.aspects.values()) {
      for (const rel of aspect.relationships) if (rel.isLineage) out.set(rel.name, { isUpstream: rel.isUpstream });
    }
    return out;
  }

  /**
   * Edges an aspect value implies: relationship name, target URN, whether it is lineage and the node it passes through
   * (the first one named, when one target is named twice), de-duplicated.
   */
  edgesOf(aspect: AspectSpec, value: Record<string, unknown>): ProjectedEdge[] {
    const seen = new Set<string>();
    const edges: ProjectedEdge[] = [];
    for (const rel of aspect.relationships) {
      if (rel.via) {
        for (const item of valuesAt(value, rel.via.items)) {
          const node = valuesAt(item, rel.via.node)[0];
          for (const v of valuesAt(item, rel.via.target)) {
            const key = `${rel.name}\u0000${String(v)}`;
            if (typeof v === 'string' && !seen.has(key)) {
              seen.add(key);
              edges.push(typeof node === 'string' ? { type: rel.name, target: v, isLineage: rel.isLineage, via: node } : { type: rel.name, target: v, isLineage: rel.isLineage });
            }
          }
        }
        continue;
      }
      for (const v of valuesAt(value, rel.path)) {
        const key = `${rel.name}\u0000${String(v)}`;
        if (typeof v === 'string' && !seen.has(key)) {
          seen.add(key);
          edges.push({ type: rel.name, target: v, isLineage: rel.isLineage });
        }
      }
    }
    return edges;
  }
}
