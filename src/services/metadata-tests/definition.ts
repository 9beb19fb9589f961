import { ValidationError } from '../../model/errors';
import { MAX_NESTING, nestsDeeperThan } from '../../model/nesting';

/**
 * The metadata-test definition language (conformance notes, "Metadata tests"), parsed into a typed tree once so it can
 * be evaluated many times. Pure: no I/O. Legacy key spellings are accepted: property|query, operator|operation,
 * values|value|params, conditions|match.
 *
 *   {"on": {"types": ["dataset"], "conditions": <rule>}, "rules": <rule>}
 *   rule = [rule, …] (AND) | {"and": [rule, …]} | {"or": [rule, …]} | {"not": rule}
 *        | {"property": "<aspect>.<field>…", "operator": "<op>", "values": [scalar, …], "negate"?: boolean}
 */

export const OPERATORS = [
  'equals',
  'starts_with',
  'contains_str',
  'contains_any',
  'regex_match',
  'greater_than',
  'less_than',
  'exists',
  'is_true',
  'is_false',
] as const;
export type Operator = (typeof OPERATORS)[number];

export type Scalar = string | number | boolean;

/** `<aspect>.<field>.<field>…`; arrays met along the way are flattened. */
export interface PropertyPath {
  raw: string;
  aspect: string;
  fields: string[];
}

export interface LeafRule {
  kind: 'leaf';
  property: PropertyPath;
  operator: Operator;
  values: Scalar[];
  negate: boolean;
  /** regex_match: the patterns, compiled once and anchored (the whole value must match). */
  patterns?: RegExp[];
  /** greater_than / less_than: the bound. */
  bound?: number;
}

export type Rule = { kind: 'and'; rules: Rule[] } | { kind: 'or'; rules: Rule[] } | { kind: 'not'; rule: Rule } | LeafRule;

export interface TestDefinition {
  /** Entity types the test applies to. */
  types: string[];
  /** on.conditions / on.match; null = every entity of those types is selected. */
  selection: Rule | null;
  rules: Rule;
  /** Every aspect a property path names (what evaluation must read). */
  aspects: string[];
}

/** What a definition may refer to: entity type → its versioned (non-time-series) aspects. */
export interface DefinitionCatalog {
  entityTypes: ReadonlyMap<string, ReadonlySet<string>>;
}

/** A definition that cannot be evaluated; the message names where (e.g. `rules.or[1].operator`). 422 at ingest. */
export class TestDefinitionError extends ValidationError {}

const MAX_DEPTH = 32;
const MAX_PATTERN_LENGTH = 1000;
const UNARY: ReadonlySet<Operator> = new Set(['exists', 'is_true', 'is_false']);
const NUMERIC: ReadonlySet<Operator> = new Set(['greater_than', 'less_than']);
const LEAF_KEYS = ['property', 'query', 'operator', 'operation', 'values', 'value', 'params', 'negate'];
const TOP_KEYS = ['on', 'rules', 'actions'];
const ON_KEYS = ['types', 'conditions', 'match'];
const FIELD_SEGMENT = /^[^\s.]+$/;
const ASPECT_SEGMENT = /^[A-Za-z][A-Za-z0-9_]*$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function fail(where: string, problem: string): never {
  throw new TestDefinitionError(`${where}: ${problem}`, [{ path: where, message: problem }]);
}

function describe(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** The one key of `keys` present in `obj`; two spellings of the same thing at once are ambiguous. */
function oneOf(obj: Record<string, unknown>, keys: string[], where: string): string | null {
  const present = keys.filter((k) => obj[k] !== undefined);
  if (present.length > 1) fail(where, `give only one of ${present.map((k) => `'${k}'`).join(', ')}`);
  return present[0] ?? null;
}

function rejectUnknownKeys(obj: Record<string, unknown>, allowed: string[], where: string): void {
  const unknown = Object.keys(obj).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) fail(where, `unknown key '${unknown[0]}'; expected ${allowed.map((k) => `'${k}'`).join(', ')}`);
}

class Parser {
  readonly aspects = new Set<string>();

  constructor(
    private readonly catalog: DefinitionCatalog | undefined,
    private readonly types: string[],
  ) {}

  rule(raw: unknown, where: string, depth: number): Rule {
    if (depth > MAX_DEPTH) fail(where, `rules nest deeper than ${MAX_DEPTH} levels`);
    if (Array.isArray(raw)) return { kind: 'and', rules: raw.map((r, i) => this.rule(r, `${where}[${i}]`, depth + 1)) };
    if (!isObject(raw)) fail(where, `a rule must be a list, {"and": […]}, {"or": […]}, {"not": rule} or a property rule, got ${describe(raw)}`);
    const composite = ['and', 'or', 'not'].filter((k) => raw[k] !== undefined);
    if (composite.length > 0) {
      const [kind] = composite;
      if (Object.keys(raw).length > 1) fail(where, `'${kind}' must be the only key of its rule, found also '${Object.keys(raw).find((k) => k !== kind)}'`);
      const inner = raw[kind];
      if (kind === 'not') return { kind: 'not', rule: this.rule(inner, `${where}.not`, depth + 1) };
      if (!Array.isArray(inner)) fail(`${where}.${kind}`, `must be a list of rules, got ${describe(inner)}`);
      return { kind: kind as 'and' | 'or', rules: inner.map((r, i) => this.rule(r, `${where}.${kind}[${i}]`, depth + 1)) };
    }
    return this.leaf(raw, where);
  }

  private leaf(raw: Record<string, unknown>, where: string): LeafRule {
    rejectUnknownKeys(raw, LEAF_KEYS, where);
    const propertyKey = oneOf(raw, ['property', 'query'], where);
    if (!propertyKey) fail(where, `a property rule needs 'property' (or 'query')`);
    const property = this.property(raw[propertyKey], `${where}.${propertyKey}`);

    const operatorKey = oneOf(raw, ['operator', 'operation'], where);
    if (!operatorKey) fail(where, `a property rule needs 'operator' (or 'operation')`);
    const rawOperator = raw[operatorKey];
    const operator = typeof rawOperator === 'string' ? (rawOperator.toLowerCase() as Operator) : null;
    if (!operator || !OPERATORS.includes(operator)) {
      fail(`${where}.${operatorKey}`, `unknown operator ${describe(rawOperator)}; expected one of ${OPERATORS.join(', ')}`);
    }

    const valuesKey = oneOf(raw, ['values', 'value', 'params'], where);
    const values = valuesKey ? this.values(raw[valuesKey], `${where}.${valuesKey}`) : [];
    const valuesWhere = `${where}.${valuesKey ?? 'values'}`;

    if (raw.negate !== undefined && typeof raw.negate !== 'boolean') fail(`${where}.negate`, `must be true or false, got ${describe(raw.negate)}`);
    const leaf: LeafRule = { kind: 'leaf', property, operator, values, negate: raw.negate === true };

    if (UNARY.has(operator)) {
      if (values.length > 0) fail(valuesWhere, `operator '${operator}' takes no values`);
    } else if (NUMERIC.has(operator)) {
      const bound = values.length === 1 ? toNumber(values[0]) : null;
      if (bound === null) fail(valuesWhere, `operator '${operator}' needs exactly one number, got ${describe(values)}`);
      leaf.bound = bound;
    } else if (values.length === 0) {
      fail(valuesWhere, `operator '${operator}' needs at least one value`);
    }
    if (operator === 'regex_match') {
      leaf.patterns = values.map((v, i) => {
        const source = String(v);
        if (source.length > MAX_PATTERN_LENGTH) fail(`${valuesWhere}[${i}]`, `pattern longer than ${MAX_PATTERN_LENGTH} characters`);
        try {
          return new RegExp(`^(?:${source})$`);
        } catch {
          return fail(`${valuesWhere}[${i}]`, `invalid regular expression ${describe(source)}`);
        }
      });
    }
    return leaf;
  }

  private property(raw: unknown, where: string): PropertyPath {
    if (typeof raw !== 'string' || raw === '') fail(where, `must be a path like "globalTags.tags.tag", got ${describe(raw)}`);
    const [aspect, ...fields] = raw.split('.');
    if (!ASPECT_SEGMENT.test(aspect) || !fields.every((f) => FIELD_SEGMENT.test(f))) {
      fail(where, `'${raw}' is not a path like "globalTags.tags.tag" (an aspect name, then field names separated by dots)`);
    }
    if (this.catalog) {
      const carriers = this.types.filter((t) => this.catalog!.entityTypes.get(t)?.has(aspect));
      if (carriers.length === 0) fail(where, `'${aspect}' is not a versioned aspect of ${this.types.join(' or ')}`);
    }
    this.aspects.add(aspect);
    return { raw, aspect, fields };
  }

  /** `values` is a list (a lone scalar is taken as a list of one); legacy `params` may also be `{values|value: …}`. */
  private values(raw: unknown, where: string): Scalar[] {
    let list = raw;
    if (isObject(raw)) {
      rejectUnknownKeys(raw, ['values', 'value'], where);
      const key = oneOf(raw, ['values', 'value'], where);
      list = key ? raw[key] : [];
      where = key ? `${where}.${key}` : where;
    }
    const items = Array.isArray(list) ? list : [list];
    return items.map((v, i) => {
      if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return v;
      return fail(Array.isArray(list) ? `${where}[${i}]` : where, `values must be strings, numbers or booleans, got ${describe(v)}`);
    });
  }
}

/** A finite number from a number or a numeric string; null otherwise. */
export function toNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

function parseOn(raw: unknown, catalog: DefinitionCatalog | undefined): string[] {
  if (!isObject(raw)) fail('on', `must be an object {"types": […], "conditions"?: rule}, got ${describe(raw)}`);
  rejectUnknownKeys(raw, ON_KEYS, 'on');
  const types = raw.types;
  if (!Array.isArray(types) || types.length === 0) fail('on.types', `must be a non-empty list of entity types, got ${describe(types)}`);
  types.forEach((t, i) => {
    if (typeof t !== 'string' || t === '') fail(`on.types[${i}]`, `must be an entity type name, got ${describe(t)}`);
    if (catalog && !catalog.entityTypes.has(t)) fail(`on.types[${i}]`, `unknown entity type '${t}'`);
  });
  return [...new Set(types as string[])];
}

/**
 * Parses a definition (the JSON text of testInfo.definition.json, or its parsed value).
 * Throws TestDefinitionError naming the offending place. With a catalog, entity types and aspect names are checked too.
 */
export function parseTestDefinition(input: unknown, catalog?: DefinitionCatalog): TestDefinition {
  let raw = input;
  if (typeof input === 'string') {
    try {
      raw = JSON.parse(input);
    } catch (err) {
      fail('definition', `not valid JSON (${(err as Error).message})`);
    }
  }
  if (nestsDeeperThan(raw)) fail('definition', `nests deeper than ${MAX_NESTING} levels`);
  if (!isObject(raw)) fail('definition', `must be an object {"on": …, "rules": …}, got ${describe(raw)}`);
  // `actions` (what to do with passing/failing entities) is accepted for compatibility and not executed.
  rejectUnknownKeys(raw, TOP_KEYS, 'definition');
  if (raw.on === undefined) fail('definition', `missing 'on' (which entities the test applies to)`);
  if (raw.rules === undefined) fail('definition', `missing 'rules'`);
  const types = parseOn(raw.on, catalog);
  const parser = new Parser(catalog, types);
  const on = raw.on as Record<string, unknown>;
  const selectionKey = oneOf(on, ['conditions', 'match'], 'on');
  const selection = selectionKey ? parser.rule(on[selectionKey], `on.${selectionKey}`, 1) : null;
  const rules = parser.rule(raw.rules, 'rules', 1);
  return { types, selection, rules, aspects: [...parser.aspects].sort() };
}

/** The catalog a registry-like source describes, leaving out time-series aspects (they are not stored as versions). */
export function catalogOf(
  entities: Iterable<{ name: string; aspects: Iterable<string> }>,
  isTimeseries: (aspect: string) => boolean,
): DefinitionCatalog {
  const entityTypes = new Map<string, Set<string>>();
  for (const e of entities) entityTypes.set(e.name, new Set([...e.aspects].filter((a) => !isTimeseries(a))));
  return { entityTypes };
}
