import { join } from 'node:path';
import { ValidationError } from '../../src/model/errors';
import { Registry } from '../../src/model/registry';
import { catalogOf, parseTestDefinition, TestDefinitionError, type LeafRule, type Rule } from '../../src/services/metadata-tests/definition';
import { evaluateRule, evaluateTest, isEligible, resolveProperty, type EntityView } from '../../src/services/metadata-tests/evaluate';
import { registryCatalog } from '../../src/services/metadata-tests/test-service';

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';

/** A dataset as evaluation sees it: aspect name → latest value. */
function dataset(aspects: Record<string, unknown> = {}): EntityView {
  return {
    urn: DATASET,
    entityType: 'dataset',
    aspects: new Map(
      Object.entries({
        datasetKey: { platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD' },
        datasetProperties: { name: 'orders', description: 'All orders', customProperties: { rows: '1200', tier: 'gold' } },
        globalTags: { tags: [{ tag: 'urn:li:tag:pii' }, { tag: 'urn:li:tag:finance' }] },
        ownership: { owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER' }] },
        status: { removed: false },
        schemaMetadata: {
          fields: [
            { fieldPath: 'id', nullable: false, isPartOfKey: true, globalTags: { tags: [{ tag: 'urn:li:tag:key' }] } },
            { fieldPath: 'amount', nullable: true, globalTags: { tags: [{ tag: 'urn:li:tag:money' }] } },
          ],
        },
        ...aspects,
      }),
    ),
  };
}

function leaf(property: string, operator: string, values?: unknown, negate?: boolean): Record<string, unknown> {
  return { property, operator, ...(values === undefined ? {} : { values }), ...(negate === undefined ? {} : { negate }) };
}

function rule(raw: unknown): Rule {
  return parseTestDefinition({ on: { types: ['dataset'] }, rules: raw }).rules;
}

/** The parsed path of a property. */
function path(property: string) {
  return (rule(leaf(property, 'exists')) as LeafRule).property;
}

function holds(raw: unknown, entity = dataset()): boolean {
  return evaluateRule(rule(raw), entity);
}

describe('metadata test operators (one passing and one failing case each)', () => {
  it.each([
    ['equals', leaf('datasetProperties.name', 'equals', ['orders']), leaf('datasetProperties.name', 'equals', ['order'])],
    ['equals (any of several values)', leaf('datasetProperties.name', 'equals', ['x', 'orders']), leaf('datasetProperties.name', 'equals', ['x', 'y'])],
    ['starts_with', leaf('datasetProperties.name', 'starts_with', ['ord']), leaf('datasetProperties.name', 'starts_with', ['ders'])],
    ['contains_str', leaf('datasetProperties.description', 'contains_str', ['orders']), leaf('datasetProperties.description', 'contains_str', ['Orders'])],
    ['contains_any', leaf('globalTags.tags.tag', 'contains_any', ['urn:li:tag:x', 'urn:li:tag:pii']), leaf('globalTags.tags.tag', 'contains_any', ['urn:li:tag:x'])],
    ['regex_match (whole value)', leaf('datasetProperties.name', 'regex_match', ['ord[a-z]+']), leaf('datasetProperties.name', 'regex_match', ['ord'])],
    ['greater_than', leaf('datasetProperties.customProperties.rows', 'greater_than', [1000]), leaf('datasetProperties.customProperties.rows', 'greater_than', [1200])],
    ['less_than', leaf('datasetProperties.customProperties.rows', 'less_than', ['1201']), leaf('datasetProperties.customProperties.rows', 'less_than', [5])],
    ['exists', leaf('ownership.owners.owner', 'exists'), leaf('glossaryTerms.terms.urn', 'exists')],
    ['is_true', leaf('schemaMetadata.fields.isPartOfKey', 'is_true'), leaf('status.removed', 'is_true')],
    ['is_false', leaf('status.removed', 'is_false'), leaf('schemaMetadata.fields.nullable', 'is_false')],
  ])('%s', (_name, passing, failing) => {
    expect(holds(passing)).toBe(true);
    expect(holds(failing)).toBe(false);
  });

  it('is_true holds only when every value is true, and never for a missing property', () => {
    const e = dataset({ status: { removed: true } });
    expect(holds(leaf('status.removed', 'is_true'), e)).toBe(true);
    expect(holds(leaf('deprecation.deprecated', 'is_true'), e)).toBe(false);
    expect(holds(leaf('deprecation.deprecated', 'is_false'), e)).toBe(false);
  });

  it('compares scalars by their text, so numbers and booleans match their string forms', () => {
    expect(holds(leaf('status.removed', 'equals', ['false']))).toBe(true);
    expect(holds(leaf('datasetProperties.customProperties.rows', 'equals', [1200]))).toBe(true);
  });

  it('ignores values that are not numbers for greater_than / less_than', () => {
    expect(holds(leaf('datasetProperties.name', 'greater_than', [0]))).toBe(false);
    expect(holds(leaf('datasetProperties.name', 'less_than', [0]))).toBe(false);
  });

  it('never lets an object value match a string operator', () => {
    expect(holds(leaf('globalTags.tags', 'equals', ['[object Object]']))).toBe(false);
    expect(holds(leaf('globalTags.tags', 'exists'))).toBe(true);
  });

  it('accepts upper-case operator names', () => {
    expect(holds(leaf('datasetProperties.name', 'EQUALS', ['orders']))).toBe(true);
  });
});

describe('negate and composition', () => {
  it('negate inverts a leaf', () => {
    expect(holds(leaf('globalTags.tags.tag', 'contains_any', ['urn:li:tag:pii'], true))).toBe(false);
    expect(holds(leaf('glossaryTerms.terms.urn', 'exists', undefined, true))).toBe(true);
  });

  const yes = leaf('datasetProperties.name', 'equals', ['orders']);
  const no = leaf('datasetProperties.name', 'equals', ['nope']);

  it.each([
    ['a list is an AND (all true)', [yes, yes], true],
    ['a list is an AND (one false)', [yes, no], false],
    ['an empty list holds', [], true],
    ['and: all true', { and: [yes, yes] }, true],
    ['and: one false', { and: [yes, no] }, false],
    ['or: one true', { or: [no, yes] }, true],
    ['or: none true', { or: [no, no] }, false],
    ['or: empty never holds', { or: [] }, false],
    ['not: of false', { not: no }, true],
    ['not: of true', { not: yes }, false],
    ['not: of a list', { not: [yes, no] }, true],
    ['nested', { or: [{ and: [yes, { not: yes }] }, [{ not: no }, { or: [no, yes] }]] }, true],
    ['nested, failing', { and: [{ or: [no, { not: yes }] }, yes] }, false],
  ])('%s', (_name, raw, expected) => {
    expect(holds(raw)).toBe(expected);
  });
});

describe('property paths', () => {
  const e = dataset();

  it('flattens arrays at every step', () => {
    expect(resolveProperty(path('schemaMetadata.fields.globalTags.tags.tag'), e.aspects)).toEqual(['urn:li:tag:key', 'urn:li:tag:money']);
  });

  it('yields the values of a list field, and nothing for missing aspects or fields', () => {
    expect(resolveProperty(path('globalTags.tags.tag'), e.aspects)).toEqual(['urn:li:tag:pii', 'urn:li:tag:finance']);
    expect(resolveProperty(path('ownership.owners.owner'), e.aspects)).toEqual(['urn:li:corpuser:jdoe']);
    expect(resolveProperty(path('glossaryTerms.terms.urn'), e.aspects)).toEqual([]);
    expect(resolveProperty(path('datasetProperties.nothing.deeper'), e.aspects)).toEqual([]);
    expect(resolveProperty(path('datasetProperties.name.length'), e.aspects)).toEqual([]);
  });

  it('treats an empty list as absent', () => {
    expect(holds(leaf('globalTags.tags.tag', 'exists'), dataset({ globalTags: { tags: [] } }))).toBe(false);
  });

  it('matches a field inside any array element', () => {
    expect(holds(leaf('schemaMetadata.fields.fieldPath', 'equals', ['amount']))).toBe(true);
  });
});

describe('legacy key spellings', () => {
  it('accepts query / operation / params {values} and on.match', () => {
    const definition = parseTestDefinition({
      on: { types: ['dataset'], match: { and: [{ query: 'datasetKey.platform', operation: 'equals', params: { values: ['urn:li:dataPlatform:hive'] } }] } },
      rules: { or: [{ query: 'globalTags.tags.tag', operation: 'contains_any', params: { values: ['urn:li:tag:pii'] } }] },
    });
    expect(evaluateTest(definition, dataset())).toBe('SUCCESS');
  });

  it('accepts a single value, params as a list, and params {value}', () => {
    expect(holds({ property: 'datasetProperties.name', operator: 'equals', value: 'orders' })).toBe(true);
    expect(holds({ query: 'datasetProperties.name', operation: 'equals', params: ['orders'] })).toBe(true);
    expect(holds({ query: 'datasetProperties.name', operation: 'equals', params: { value: 'orders' } })).toBe(true);
    expect(holds({ query: 'datasetProperties.name', operation: 'exists', params: {} })).toBe(true);
  });

  it('reports which aspects a definition reads', () => {
    const definition = parseTestDefinition({
      on: { types: ['dataset'], conditions: leaf('datasetKey.platform', 'exists') },
      rules: [leaf('ownership.owners.owner', 'exists'), { not: leaf('globalTags.tags.tag', 'exists') }],
    });
    expect(definition.aspects).toEqual(['datasetKey', 'globalTags', 'ownership']);
  });
});

describe('eligibility', () => {
  const hive = leaf('datasetKey.platform', 'equals', ['urn:li:dataPlatform:hive']);
  const hasOwner = leaf('ownership.owners.owner', 'exists');

  it('selects by entity type and conditions', () => {
    const definition = parseTestDefinition({ on: { types: ['dataset'], conditions: hive }, rules: hasOwner });
    expect(isEligible(definition, dataset())).toBe(true);
    expect(evaluateTest(definition, dataset())).toBe('SUCCESS');
    expect(evaluateTest(definition, dataset({ ownership: { owners: [] } }))).toBe('FAILURE');
  });

  it('leaves out an entity whose conditions do not hold', () => {
    const definition = parseTestDefinition({ on: { types: ['dataset'], conditions: { not: hive } }, rules: hasOwner });
    expect(evaluateTest(definition, dataset())).toBeNull();
  });

  it('leaves out an entity of another type', () => {
    const definition = parseTestDefinition({ on: { types: ['chart', 'dashboard'] }, rules: [] });
    expect(evaluateTest(definition, dataset())).toBeNull();
  });

  it('selects every entity of a listed type when there are no conditions', () => {
    expect(evaluateTest(parseTestDefinition({ on: { types: ['dataset'] }, rules: [] }), dataset())).toBe('SUCCESS');
  });

  it('parses the JSON text form', () => {
    const definition = parseTestDefinition(JSON.stringify({ on: { types: ['dataset'] }, rules: hasOwner }));
    expect(evaluateTest(definition, dataset())).toBe('SUCCESS');
  });
});

describe('invalid definitions', () => {
  const ok = leaf('datasetProperties.name', 'exists');
  const catalog = catalogOf(
    [
      { name: 'dataset', aspects: ['datasetKey', 'datasetProperties', 'globalTags', 'datasetProfile'] },
      { name: 'chart', aspects: ['chartKey', 'chartInfo'] },
    ],
    (a) => a === 'datasetProfile',
  );

  it.each([
    ['not JSON', '{"on":', /^definition: not valid JSON/],
    ['not an object', '[1]', /^definition: must be an object/],
    ['missing on', { rules: ok }, /^definition: missing 'on'/],
    ['missing rules', { on: { types: ['dataset'] } }, /^definition: missing 'rules'/],
    ['unknown top-level key', { on: { types: ['dataset'] }, rules: ok, rule: ok }, /^definition: unknown key 'rule'/],
    ['on not an object', { on: ['dataset'], rules: ok }, /^on: must be an object/],
    ['empty types', { on: { types: [] }, rules: ok }, /^on\.types: must be a non-empty list/],
    ['non-string type', { on: { types: [3] }, rules: ok }, /^on\.types\[0\]: must be an entity type name/],
    ['both conditions and match', { on: { types: ['dataset'], conditions: ok, match: ok }, rules: ok }, /^on: give only one of 'conditions', 'match'/],
    ['rule is a string', { on: { types: ['dataset'] }, rules: 'x' }, /^rules: a rule must be/],
    ['and not a list', { on: { types: ['dataset'] }, rules: { and: ok } }, /^rules\.and: must be a list of rules/],
    ['composite with extra key', { on: { types: ['dataset'] }, rules: { and: [ok], or: [ok] } }, /^rules: 'and' must be the only key/],
    ['missing property', { on: { types: ['dataset'] }, rules: [{ operator: 'exists' }] }, /^rules\[0\]: a property rule needs 'property'/],
    ['both property and query', { on: { types: ['dataset'] }, rules: [{ ...ok, query: 'status.removed' }] }, /^rules\[0\]: give only one of 'property', 'query'/],
    ['missing operator', { on: { types: ['dataset'] }, rules: [{ property: 'status.removed' }] }, /^rules\[0\]: a property rule needs 'operator'/],
    ['unknown operator', { on: { types: ['dataset'] }, rules: { or: [ok, leaf('status.removed', 'equal', ['x'])] } }, /^rules\.or\[1\]\.operator: unknown operator "equal"/],
    ['unknown leaf key', { on: { types: ['dataset'] }, rules: [{ ...ok, negated: true }] }, /^rules\[0\]: unknown key 'negated'/],
    ['negate not boolean', { on: { types: ['dataset'] }, rules: [{ ...ok, negate: 'yes' }] }, /^rules\[0\]\.negate: must be true or false/],
    ['values and params', { on: { types: ['dataset'] }, rules: [{ ...leaf('status.removed', 'equals', ['x']), params: { values: ['y'] } }] }, /give only one of 'values', 'params'/],
    ['equals without values', { on: { types: ['dataset'] }, rules: leaf('status.removed', 'equals', []) }, /^rules\.values: operator 'equals' needs at least one value/],
    ['exists with values', { on: { types: ['dataset'] }, rules: leaf('status.removed', 'exists', ['x']) }, /^rules\.values: operator 'exists' takes no values/],
    ['greater_than with text', { on: { types: ['dataset'] }, rules: leaf('status.removed', 'greater_than', ['big']) }, /operator 'greater_than' needs exactly one number/],
    ['less_than with two bounds', { on: { types: ['dataset'] }, rules: leaf('status.removed', 'less_than', [1, 2]) }, /operator 'less_than' needs exactly one number/],
    ['object value', { on: { types: ['dataset'] }, rules: leaf('status.removed', 'equals', [{ a: 1 }]) }, /^rules\.values\[0\]: values must be strings, numbers or booleans/],
    ['null value', { on: { types: ['dataset'] }, rules: leaf('status.removed', 'equals', null) }, /^rules\.values: values must be strings/],
    ['invalid regex', { on: { types: ['dataset'] }, rules: leaf('status.removed', 'regex_match', ['(unclosed']) }, /^rules\.values\[0\]: invalid regular expression/],
    ['empty property', { on: { types: ['dataset'] }, rules: leaf('', 'exists') }, /^rules\.property: must be a path/],
    ['property with empty segment', { on: { types: ['dataset'] }, rules: leaf('globalTags..tag', 'exists') }, /is not a path like/],
    ['bad condition', { on: { types: ['dataset'], conditions: { not: { property: 'status.removed', operator: 'nope' } } }, rules: ok }, /^on\.conditions\.not\.operator: unknown operator/],
  ])('rejects %s', (_name, raw, message) => {
    expect(() => parseTestDefinition(raw)).toThrow(TestDefinitionError);
    expect(() => parseTestDefinition(raw)).toThrow(message);
  });

  it('rejects nesting beyond the limit', () => {
    let deep: unknown = ok;
    for (let i = 0; i < 40; i++) deep = { not: deep };
    expect(() => parseTestDefinition({ on: { types: ['dataset'] }, rules: deep })).toThrow(/nest deeper than 32/);
  });

  it('is a 422 validation error naming the place', () => {
    try {
      parseTestDefinition({ on: { types: ['dataset'] }, rules: { or: [ok, leaf('status.removed', 'bogus')] } });
      throw new Error('expected a failure');
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).status).toBe(422);
      expect((err as ValidationError).details[0].path).toBe('rules.or[1].operator');
    }
  });

  it.each([
    ['unknown entity type', { on: { types: ['datset'] }, rules: ok }, /^on\.types\[0\]: unknown entity type 'datset'/],
    ['aspect of no selected type', { on: { types: ['chart'] }, rules: ok }, /^rules\.property: 'datasetProperties' is not a versioned aspect of chart/],
    ['unknown aspect', { on: { types: ['dataset'] }, rules: leaf('globalTag.tags.tag', 'exists') }, /'globalTag' is not a versioned aspect of dataset/],
    ['time-series aspect', { on: { types: ['dataset'] }, rules: leaf('datasetProfile.rowCount', 'exists') }, /'datasetProfile' is not a versioned aspect/],
  ])('with a catalog, rejects %s', (_name, raw, message) => {
    expect(() => parseTestDefinition(raw, catalog)).toThrow(message);
  });

  it('with a catalog, accepts an aspect carried by any one of the selected types', () => {
    expect(() => parseTestDefinition({ on: { types: ['chart', 'dataset'] }, rules: [ok, leaf('chartInfo.title', 'exists')] }, catalog)).not.toThrow();
  });
});

describe('testInfo ingest validator', () => {
  const registry = Registry.load(join(__dirname, '../../schema'));
  const validate = (value: Record<string, unknown>) => registry.aspects.get('testInfo')!.behaviour!.validate!(value, registry);
  const info = (json: string) => ({ name: 'n', category: 'c', definition: { type: 'JSON', json } });

  it('accepts a valid definition against the registry', () => {
    expect(registryCatalog(registry).entityTypes.get('dataset')?.has('globalTags')).toBe(true);
    expect(() => validate(info(JSON.stringify({ on: { types: ['dataset'] }, rules: leaf('globalTags.tags.tag', 'exists') })))).not.toThrow();
  });

  it('rejects an invalid one with a 422 naming /definition/json and the problem', () => {
    const bad = info(JSON.stringify({ on: { types: ['dataset'] }, rules: leaf('globalTags.tags.tag', 'sometimes') }));
    expect(() => validate(bad)).toThrow(ValidationError);
    expect(() => validate(bad)).toThrow(/^Invalid testInfo: \/definition\/json rules\.operator: unknown operator "sometimes"/);
  });
});
