import { join } from 'node:path';
import { Registry } from '../../src/model/registry';
import { isRemovable, removeReferences } from '../../src/services/reference-removal';

const registry = Registry.load(join(__dirname, '..', '..', 'schema'));
const aspect = (name: string) => registry.aspects.get(name)!;
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const TAG = 'urn:li:tag:gone';
const OTHER_TAG = 'urn:li:tag:kept';

describe('removing a reference from an aspect value', () => {
  test('a list member holding the urn goes; the others and the rest of the aspect stay', () => {
    const value = { tags: [{ tag: OTHER_TAG }, { tag: TAG, context: 'x' }, { tag: 'urn:li:tag:third' }] };
    const out = removeReferences(aspect('globalTags'), value, TAG);
    expect(out.value).toEqual({ tags: [{ tag: OTHER_TAG }, { tag: 'urn:li:tag:third' }] });
    expect([...out.removed]).toEqual(['TaggedWith']);
    expect(out.blocked.size).toBe(0);
    // The input is not mutated.
    expect(value.tags).toHaveLength(3);
  });

  test('owners: the owner goes with its type; an ownership type urn (optional) is only unset', () => {
    const owner = 'urn:li:corpuser:gone';
    const typeUrn = 'urn:li:ownershipType:steward';
    const value = {
      owners: [
        { owner, type: 'DATAOWNER' },
        { owner: 'urn:li:corpuser:kept', type: 'CUSTOM', typeUrn },
      ],
      lastModified: { time: 1, actor: 'urn:li:corpuser:x' },
    };
    expect(removeReferences(aspect('ownership'), value, owner).value).toEqual({ owners: [value.owners[1]], lastModified: value.lastModified });
    const withoutType = removeReferences(aspect('ownership'), value, typeUrn);
    expect(withoutType.value).toEqual({ owners: [value.owners[0], { owner: 'urn:li:corpuser:kept', type: 'CUSTOM' }], lastModified: value.lastModified });
  });

  test('nested lists: tags of schema fields and glossary terms of editable field infos', () => {
    const term = 'urn:li:glossaryTerm:gone';
    const schema = {
      schemaName: 's',
      platform: 'urn:li:dataPlatform:hive',
      version: 0,
      hash: '',
      platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
      fields: [
        { fieldPath: 'a', type: { type: { 'com.linkedin.schema.StringType': {} } }, nativeDataType: 'string', globalTags: { tags: [{ tag: TAG }, { tag: OTHER_TAG }] } },
        { fieldPath: 'b', type: { type: { 'com.linkedin.schema.StringType': {} } }, nativeDataType: 'string', globalTags: { tags: [{ tag: TAG }] } },
      ],
    };
    const out = removeReferences(aspect('schemaMetadata'), schema, TAG).value as typeof schema;
    expect(out.fields.map((f) => f.globalTags.tags)).toEqual([[{ tag: OTHER_TAG }], []]);
    expect(out.fields.map((f) => f.fieldPath)).toEqual(['a', 'b']);

    const editable = {
      editableSchemaFieldInfo: [{ fieldPath: 'a', glossaryTerms: { terms: [{ urn: term }, { urn: 'urn:li:glossaryTerm:kept' }], auditStamp: { time: 0, actor: 'urn:li:corpuser:x' } } }],
    };
    const e = removeReferences(aspect('editableSchemaMetadata'), editable, term).value as typeof editable;
    expect(e.editableSchemaFieldInfo[0].glossaryTerms.terms).toEqual([{ urn: 'urn:li:glossaryTerm:kept' }]);
  });

  test('lineage: the upstream goes; a plain urn list member goes; a union member takes its wrapper with it', () => {
    const lineage = { upstreams: [{ dataset: ds('gone'), type: 'COPY' }, { dataset: ds('kept'), type: 'COPY' }] };
    expect(removeReferences(aspect('upstreamLineage'), lineage, ds('gone')).value).toEqual({ upstreams: [{ dataset: ds('kept'), type: 'COPY' }] });
    const io = { inputDatasets: [ds('gone'), ds('kept')], outputDatasets: [ds('gone')] };
    expect(removeReferences(aspect('dataJobInputOutput'), io, ds('gone')).value).toEqual({ inputDatasets: [ds('kept')], outputDatasets: [] });
    const chart = { title: 't', description: '', lastModified: { created: { time: 0, actor: 'urn:li:corpuser:x' }, lastModified: { time: 0, actor: 'urn:li:corpuser:x' } }, inputs: [{ string: ds('gone') }, { string: ds('kept') }] };
    expect((removeReferences(aspect('chartInfo'), chart, ds('gone')).value as typeof chart).inputs).toEqual([{ string: ds('kept') }]);
  });

  test('an optional single-valued field is unset', () => {
    const domain = 'urn:li:domain:gone';
    expect(removeReferences(aspect('domainProperties'), { name: 'child', parentDomain: domain }, domain).value).toEqual({ name: 'child' });
  });

  test('a required single-valued field stays and is reported blocked', () => {
    const container = 'urn:li:container:gone';
    const out = removeReferences(aspect('container'), { container }, container);
    expect(out.value).toEqual({ container });
    expect([...out.blocked]).toEqual(['IsPartOf']);
    expect(out.removed.size).toBe(0);
    expect(isRemovable(aspect('container'), aspect('container').relationships[0])).toBe(false);
    expect(aspect('globalTags').relationships.every((f) => isRemovable(aspect('globalTags'), f))).toBe(true);
  });

  test('a value without the urn comes back as it was', () => {
    const value = { tags: [{ tag: OTHER_TAG }] };
    const out = removeReferences(aspect('globalTags'), value, TAG);
    expect(out.value).toBe(value);
    expect(out.removed.size + out.blocked.size).toBe(0);
  });
});
