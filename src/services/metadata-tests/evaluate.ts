import { toNumber, type LeafRule, type PropertyPath, type Rule, type TestDefinition } from './definition';

/** What a test is evaluated against: one entity and its latest aspect values. */
export interface EntityView {
  urn: string;
  entityType: string;
  aspects: ReadonlyMap<string, unknown>;
}

export type TestOutcome = 'SUCCESS' | 'FAILURE';

function flatten(values: unknown[]): unknown[] {
  return values.flatMap((v) => (Array.isArray(v) ? flatten(v) : v === null || v === undefined ? [] : [v]));
}

/** Every value at `<aspect>.<field>…`; arrays met on the way (and at the end) are flattened, missing steps yield nothing. */
export function resolveProperty(path: PropertyPath, aspects: ReadonlyMap<string, unknown>): unknown[] {
  let current = flatten([aspects.get(path.aspect)]);
  for (const field of path.fields) {
    current = flatten(current.map((v) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[field] : undefined)));
  }
  return current;
}

/** Scalars compare by their text, so 3 equals "3" and true equals "true"; objects never match a value. */
function asText(v: unknown): string | null {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
}

function texts(values: unknown[]): string[] {
  return values.map(asText).filter((t): t is string => t !== null);
}

function isBoolean(v: unknown, wanted: boolean): boolean {
  return v === wanted || v === String(wanted);
}

/** A leaf before `negate`: the string operators hold when some value matches some parameter. */
function holds(rule: LeafRule, found: unknown[]): boolean {
  const params = rule.values.map(String);
  switch (rule.operator) {
    case 'exists':
      return found.length > 0;
    case 'is_true':
      return found.length > 0 && found.every((v) => isBoolean(v, true));
    case 'is_false':
      return found.length > 0 && found.every((v) => isBoolean(v, false));
    case 'equals':
    case 'contains_any':
      return texts(found).some((t) => params.includes(t));
    case 'starts_with':
      return texts(found).some((t) => params.some((p) => t.startsWith(p)));
    case 'contains_str':
      return texts(found).some((t) => params.some((p) => t.includes(p)));
    case 'regex_match':
      return texts(found).some((t) => rule.patterns!.some((re) => re.test(t)));
    case 'greater_than':
      return found.some((v) => {
        const n = toNumber(v);
        return n !== null && n > rule.bound!;
      });
    case 'less_than':
      return found.some((v) => {
        const n = toNumber(v);
        return n !== null && n < rule.bound!;
      });
  }
}

export function evaluateRule(rule: Rule, entity: EntityView): boolean {
  switch (rule.kind) {
    case 'and':
      return rule.rules.every((r) => evaluateRule(r, entity));
    case 'or':
      return rule.rules.some((r) => evaluateRule(r, entity));
    case 'not':
      return !evaluateRule(rule.rule, entity);
    case 'leaf':
      return holds(rule, resolveProperty(rule.property, entity.aspects)) !== rule.negate;
  }
}

/** Whether the test's `on` selects the entity: its type is listed and the conditions (if any) hold. */
export function isEligible(definition: TestDefinition, entity: EntityView): boolean {
  return definition.types.includes(entity.entityType) && (definition.selection === null || evaluateRule(definition.selection, entity));
}

/** SUCCESS or FAILURE for an eligible entity; null when the test does not apply to it. */
export function evaluateTest(definition: TestDefinition, entity: EntityView): TestOutcome | null {
  if (!isEligible(definition, entity)) return null;
  return evaluateRule(definition.rules, entity) ? 'SUCCESS' : 'FAILURE';
}
