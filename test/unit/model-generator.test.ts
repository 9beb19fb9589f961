import { convertAspect } from '../../tools/model/avro-to-json-schema';
import { drift, generateModel, pinnedModelDir } from '../../tools/model/generate';

/** The registry in schema/ is generated from the pinned acryl-datahub model; these tests keep it so. */

const record = (name: string, fields: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 'record',
  name,
  namespace: 'com.linkedin.pegasus2avro.test',
  Aspect: { name: name.charAt(0).toLowerCase() + name.slice(1) },
  fields,
  ...extra,
});

describe('Avro to JSON Schema conversion', () => {
  it('optional fields, defaults, enums and maps', () => {
    const a = convertAspect(
      record('Shape', [
        { name: 'req', type: 'string' },
        { name: 'opt', type: ['null', 'long'], default: null },
        { name: 'withDefault', type: 'boolean', default: false },
        { name: 'kind', type: { type: 'enum', name: 'Kind', symbols: ['A', 'B'] } },
        { name: 'props', type: { type: 'map', values: 'string' }, default: {} },
      ]),
    )!;
    const s = a.schema as any;
    expect(s.required).toEqual(['req', 'kind']);
    expect(s.properties.opt).toEqual({ type: 'integer' });
    expect(s.properties.withDefault).toEqual({ type: 'boolean', default: false });
    expect(s.properties.kind).toEqual({ type: 'string', enum: ['A', 'B'] });
    expect(s.properties.props).toEqual({ type: 'object', additionalProperties: { type: 'string' }, default: {} });
    expect(s.additionalProperties).toBe(false);
    expect(a.recordName).toBe('com.linkedin.test.Shape');
  });

  it('unions are objects keyed by member name, records by their com.linkedin name', () => {
    const a = convertAspect(
      record('U', [
        {
          name: 'value',
          type: ['null', 'string', { type: 'record', name: 'Inner', namespace: 'com.linkedin.pegasus2avro.x', fields: [{ name: 'n', type: 'int' }] }],
          default: null,
        },
      ]),
    )!;
    const u = (a.schema as any).properties.value;
    expect(u.minProperties).toBe(1);
    expect(u.maxProperties).toBe(1);
    expect(Object.keys(u.properties)).toEqual(['string', 'com.linkedin.x.Inner']);
    expect(u.properties['com.linkedin.x.Inner'].required).toEqual(['n']);
  });

  it('a recursive record is emitted once under definitions and referenced', () => {
    const a = convertAspect(
      record('Tree', [
        { name: 'node', type: { type: 'record', name: 'Node', fields: [{ name: 'children', type: { type: 'array', items: 'Node' } }] } },
      ]),
    )!;
    const s = a.schema as any;
    expect(s.properties.node).toEqual({ $ref: '#/definitions/com_linkedin_test_Node' });
    expect(s.definitions.com_linkedin_test_Node.properties.children.items).toEqual({ $ref: '#/definitions/com_linkedin_test_Node' });
  });

  it('places path-form annotations and lets an outer one override the inner record', () => {
    const tag = { type: 'record', name: 'TagAssociation', fields: [{ name: 'tag', type: 'string', Relationship: { name: 'TaggedWith', entityTypes: ['tag'] }, Searchable: { fieldName: 'tags', fieldType: 'URN' } }] };
    const a = convertAspect(
      record('Holder', [
        { name: 'own', type: { type: 'array', items: tag } },
        {
          name: 'field',
          type: { type: 'array', items: 'TagAssociation' },
          Relationship: { '/*/tag': { name: 'FieldTaggedWith', entityTypes: ['tag'], isLineage: true } },
          Searchable: { '/*/tag': { fieldName: 'fieldTags' } },
        },
      ]),
    )!;
    const s = a.schema as any;
    expect(s.properties.own.items.properties.tag['x-relationship']).toEqual({ name: 'TaggedWith', entityTypes: ['tag'] });
    expect(s.properties.field.items.properties.tag['x-relationship']).toEqual({ name: 'FieldTaggedWith', entityTypes: ['tag'], isLineage: true });
    expect(s.properties.field.items.properties.tag['x-searchable']).toMatchObject({ fieldName: 'fieldTags', fieldType: 'URN', queryByDefault: true });
  });

  it('key aspects carry x-key with every field as a URN part', () => {
    const a = convertAspect({
      ...record('ThingKey', [{ name: 'a', type: 'string' }, { name: 'b', type: ['null', 'string'], default: null }]),
      Aspect: { name: 'thingKey', keyForEntity: 'thing', entityAspects: ['status'] },
    })!;
    expect((a.schema as any)['x-key']).toEqual({ entity: 'thing', parts: ['a', 'b'] });
    expect((a.schema as any).required).toEqual(['a', 'b']);
  });
});

describe('generated registry', () => {
  it('schema/ matches what the generator makes of the pinned acryl-datahub model (npm run schema:generate)', () => {
    const model = generateModel(pinnedModelDir());
    expect(drift(model)).toEqual([]);
    expect(model.stats.entities).toBe(72);
    expect(model.stats.aspects).toBeGreaterThanOrEqual(270);
  }, 300_000);
});
