import { applyPatch, parsePatch } from '../../src/services/patch/json-patch';
import { ASPECT_BEHAVIOURS } from '../../src/model/aspects';
import { InvalidInputError } from '../../src/model/errors';

const up = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const field = (ds: string, f: string) => `urn:li:schemaField:(${up(ds)},${f})`;
const patch = (aspect: string, current: Record<string, unknown> | null, body: unknown) => applyPatch(ASPECT_BEHAVIOURS.get(aspect)?.patch, current, parsePatch(body), 'li');
const columnEdgesOf = (aspect: string, value: Record<string, unknown>) => ASPECT_BEHAVIOURS.get(aspect)?.columnEdges?.(value, 'li') ?? [];
const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

describe('DataHub PATCH semantics', () => {
  test('editableSchemaMetadata: fields by fieldPath, their tags and terms by urn; a field created by a patch gets its fieldPath', () => {
    const tag = (t: string) => ({ tag: `urn:li:tag:${t}` });
    const a = patch('editableSchemaMetadata', null, [
      { op: 'add', path: '/editableSchemaFieldInfo/email/globalTags/tags/urn:li:tag:pii', value: tag('pii') },
      { op: 'add', path: '/editableSchemaFieldInfo/email/glossaryTerms/terms/urn:li:glossaryTerm:Email', value: { urn: 'urn:li:glossaryTerm:Email' } },
      { op: 'add', path: '/editableSchemaFieldInfo/a~1b/description', value: 'nested path' },
    ]);
    expect(a).toEqual({
      created: { time: 0, actor: 'urn:li:corpuser:unknown' },
      editableSchemaFieldInfo: [
        { fieldPath: 'email', globalTags: { tags: [tag('pii')] }, glossaryTerms: { terms: [{ urn: 'urn:li:glossaryTerm:Email' }], auditStamp: { time: 0, actor: 'urn:li:corpuser:unknown' } } },
        { fieldPath: 'a/b', description: 'nested path' },
      ],
    });
    const b = patch('editableSchemaMetadata', a, [
      { op: 'add', path: '/editableSchemaFieldInfo/email/globalTags/tags/urn:li:tag:gdpr', value: tag('gdpr') },
      { op: 'remove', path: '/editableSchemaFieldInfo/email/globalTags/tags/urn:li:tag:pii', value: {} },
    ]);
    expect(b.editableSchemaFieldInfo).toEqual([{ ...(a.editableSchemaFieldInfo as object[])[0], globalTags: { tags: [tag('gdpr')] } }, (a.editableSchemaFieldInfo as object[])[1]]);
    // A field added whole keeps its arrays as sent.
    const c = patch('editableSchemaMetadata', b, [{ op: 'add', path: '/editableSchemaFieldInfo/id', value: { fieldPath: 'id', globalTags: { tags: [tag('key')] } } }]);
    expect((c.editableSchemaFieldInfo as object[])[2]).toEqual({ fieldPath: 'id', globalTags: { tags: [tag('key')] } });
  });

  test('arrays DataHub keys by a field or by value: assets, prompts, entity types, domains, siblings, a form\'s actors', () => {
    const ds = up('asset');
    expect(patch('dataProductProperties', null, [{ op: 'add', path: `/assets/${ds}`, value: { destinationUrn: ds } }])).toEqual({ assets: [{ destinationUrn: ds }] });
    expect(patch('dataProductProperties', { assets: [{ destinationUrn: ds }], name: 'p' }, [{ op: 'remove', path: `/assets/${ds}`, value: {} }])).toEqual({ assets: [], name: 'p' });
    const type = 'urn:li:entityType:datahub.dataset';
    expect(patch('propertyDefinition', { qualifiedName: 'q', valueType: 'v', entityTypes: ['urn:li:entityType:datahub.chart'] }, [{ op: 'add', path: `/entityTypes/${type}`, value: type }]).entityTypes).toEqual([
      'urn:li:entityType:datahub.chart',
      type,
    ]);
    const form = patch('formInfo', { name: 'f', type: 'COMPLETION', prompts: [{ id: 'p1', title: 'one' }] }, [
      { op: 'add', path: '/prompts/p2', value: { id: 'p2', title: 'two' } },
      { op: 'add', path: '/actors/users/urn:li:corpuser:u', value: 'urn:li:corpuser:u' },
    ]);
    expect(form).toEqual({ name: 'f', type: 'COMPLETION', prompts: [{ id: 'p1', title: 'one' }, { id: 'p2', title: 'two' }], actors: { users: ['urn:li:corpuser:u'] } });
    expect(patch('formInfo', form, [{ op: 'remove', path: '/actors/users/urn:li:corpuser:u', value: 'urn:li:corpuser:u' }]).actors).toEqual({ users: [] });
    expect(patch('domains', null, [{ op: 'add', path: '/domains/urn:li:domain:d', value: 'urn:li:domain:d' }])).toEqual({ domains: ['urn:li:domain:d'] });
    expect(patch('siblings', null, [{ op: 'add', path: `/siblings/${ds}`, value: ds }])).toEqual({ siblings: [ds], primary: false });
    expect(patch('institutionalMemory', null, [{ op: 'add', path: '/elements/http:~1~1docs', value: { url: 'http://docs', description: 'd' } }])).toEqual({ elements: [{ url: 'http://docs', description: 'd' }] });
  });

  test('upstreamLineage: add keyed by upstream dataset (JSON-pointer escaped), replace same key, remove', () => {
    const a = patch('upstreamLineage', null, [{ op: 'add', path: `/upstreams/${esc(up('a/x'))}`, value: { dataset: up('a/x'), type: 'COPY' } }]);
    expect(a).toEqual({ upstreams: [{ dataset: up('a/x'), type: 'COPY' }] });
    const b = patch('upstreamLineage', a, [
      { op: 'add', path: `/upstreams/${esc(up('a/x'))}`, value: { dataset: up('a/x'), type: 'TRANSFORMED' } },
      { op: 'add', path: `/upstreams/${up('b')}`, value: { dataset: up('b'), type: 'COPY' } },
    ]);
    expect(b.upstreams).toEqual([{ dataset: up('a/x'), type: 'TRANSFORMED' }, { dataset: up('b'), type: 'COPY' }]);
    const c = patch('upstreamLineage', b, [{ op: 'remove', path: `/upstreams/${esc(up('a/x'))}`, value: {} }]);
    expect(c.upstreams).toEqual([{ dataset: up('b'), type: 'COPY' }]);
    // Removing what is not there changes nothing.
    expect(patch('upstreamLineage', c, [{ op: 'remove', path: `/upstreams/${up('zzz')}` }])).toEqual(c);
  });

  test('fineGrainedLineages: /fineGrainedLineages/<op>/<downstream>/<query>/<upstream> merges upstreams per downstream', () => {
    const d = field('d', 'c1');
    const a = patch('upstreamLineage', { upstreams: [] }, [
      { op: 'add', path: `/fineGrainedLineages/NONE/${d}/NONE/${field('u', 'c1')}`, value: { confidenceScore: 1 } },
      { op: 'add', path: `/fineGrainedLineages/NONE/${d}/NONE/${field('u', 'c2')}`, value: { confidenceScore: 0.5 } },
    ]);
    expect(a.fineGrainedLineages).toEqual([
      { upstreamType: 'FIELD_SET', upstreams: [field('u', 'c1'), field('u', 'c2')], downstreamType: 'FIELD', downstreams: [d], confidenceScore: 1 },
    ]);
    const b = patch('upstreamLineage', a, [{ op: 'remove', path: `/fineGrainedLineages/NONE/${d}/NONE/${field('u', 'c1')}` }]);
    expect((b.fineGrainedLineages as { upstreams: string[] }[])[0].upstreams).toEqual([field('u', 'c2')]);
    const c = patch('upstreamLineage', b, [{ op: 'remove', path: `/fineGrainedLineages/NONE/${d}` }]);
    expect(c.fineGrainedLineages).toBeUndefined();
    expect(columnEdgesOf('upstreamLineage', a)).toEqual([
      { source: d, target: field('u', 'c1') },
      { source: d, target: field('u', 'c2') },
    ]);
  });

  test('globalTags with arrayPrimaryKeys (attribution␟source, tag) and plain form', () => {
    const a = patch('globalTags', null, { arrayPrimaryKeys: { tags: ['attribution\u241fsource', 'tag'] }, patch: [{ op: 'add', path: '/tags//urn:li:tag:t1', value: { tag: 'urn:li:tag:t1' } }] });
    expect(a).toEqual({ tags: [{ tag: 'urn:li:tag:t1' }] });
    const b = patch('globalTags', a, [{ op: 'add', path: '/tags/urn:li:tag:t2', value: { tag: 'urn:li:tag:t2' } }]);
    expect(b.tags).toEqual([{ tag: 'urn:li:tag:t1' }, { tag: 'urn:li:tag:t2' }]);
    const c = patch('globalTags', b, { arrayPrimaryKeys: { tags: ['tag', 'attribution\u241fsource'] }, patch: [{ op: 'remove', path: '/tags/urn:li:tag:t1', value: {} }] });
    expect(c.tags).toEqual([{ tag: 'urn:li:tag:t2' }]);
  });

  test('ownership keyed by owner + type: remove by owner drops every type; by owner/type only that one', () => {
    const keys = { arrayPrimaryKeys: { owners: ['owner', 'type', 'typeUrn', 'attribution\u241fsource'] } };
    let v = patch('ownership', null, { ...keys, patch: [{ op: 'add', path: '/owners/urn:li:corpuser:u1/DATAOWNER//', value: { owner: 'urn:li:corpuser:u1', type: 'DATAOWNER' } }] });
    v = patch('ownership', v, { ...keys, patch: [{ op: 'add', path: '/owners/urn:li:corpuser:u1/TECHNICAL_OWNER//', value: { owner: 'urn:li:corpuser:u1', type: 'TECHNICAL_OWNER' } }] });
    v = patch('ownership', v, [{ op: 'add', path: '/owners/urn:li:corpuser:u2/DATAOWNER', value: { owner: 'urn:li:corpuser:u2', type: 'DATAOWNER' } }]);
    expect((v.owners as unknown[]).length).toBe(3);
    expect(v.lastModified).toEqual({ time: 0, actor: 'urn:li:corpuser:unknown' });
    const onlyType = patch('ownership', v, [{ op: 'remove', path: '/owners/urn:li:corpuser:u1/TECHNICAL_OWNER' }]);
    expect(onlyType.owners).toEqual([{ owner: 'urn:li:corpuser:u1', type: 'DATAOWNER' }, { owner: 'urn:li:corpuser:u2', type: 'DATAOWNER' }]);
    const allTypes = patch('ownership', v, [{ op: 'remove', path: '/owners/urn:li:corpuser:u1' }]);
    expect(allTypes.owners).toEqual([{ owner: 'urn:li:corpuser:u2', type: 'DATAOWNER' }]);
  });

  test('glossaryTerms by term; customProperties by key; plain fields', () => {
    const t = patch('glossaryTerms', null, { arrayPrimaryKeys: { terms: ['urn', 'attribution\u241fsource'] }, patch: [{ op: 'add', path: '/terms/urn:li:glossaryTerm:g/', value: { urn: 'urn:li:glossaryTerm:g' } }] });
    expect(t).toEqual({ terms: [{ urn: 'urn:li:glossaryTerm:g' }], auditStamp: { time: 0, actor: 'urn:li:corpuser:unknown' } });
    expect(patch('glossaryTerms', t, [{ op: 'remove', path: '/terms/urn:li:glossaryTerm:g' }]).terms).toEqual([]);
    const p = patch('datasetProperties', { name: 'n', customProperties: { a: '1', b: '2' } }, [
      { op: 'add', path: '/customProperties/c', value: '3' },
      { op: 'remove', path: '/customProperties/a', value: {} },
      { op: 'add', path: '/description', value: 'd' },
    ]);
    expect(p).toEqual({ name: 'n', customProperties: { b: '2', c: '3' }, description: 'd' });
  });

  test('dataJobInputOutput, chartInfo, dashboardInfo edges keyed by destinationUrn; string arrays by value', () => {
    const j = patch('dataJobInputOutput', null, [
      { op: 'add', path: `/inputDatasetEdges/${up('a')}`, value: { destinationUrn: up('a') } },
      { op: 'add', path: `/outputDatasetEdges/${up('b')}`, value: { destinationUrn: up('b') } },
      { op: 'add', path: `/inputDatasets/${up('c')}`, value: up('c') },
    ]);
    expect(j).toEqual({ inputDatasets: [up('c')], outputDatasets: [], inputDatasetEdges: [{ destinationUrn: up('a') }], outputDatasetEdges: [{ destinationUrn: up('b') }] });
    const c = patch('chartInfo', null, [{ op: 'add', path: `/inputEdges/${up('a')}`, value: { destinationUrn: up('a') } }]);
    expect(c.inputEdges).toEqual([{ destinationUrn: up('a') }]);
    expect(c.title).toBe('');
    const d = patch('dashboardInfo', { title: 't', description: '', lastModified: {}, chartEdges: [{ destinationUrn: 'urn:li:chart:(l,c)' }] }, [
      { op: 'remove', path: '/chartEdges/urn:li:chart:(l,c)' },
    ]);
    expect(d.chartEdges).toEqual([]);
  });

  test("a run's inputs and outputs keyed as DataHub's DataProcessInstance templates key them; repeated adds are idempotent", () => {
    const i = patch('dataProcessInstanceInput', null, [
      { op: 'add', path: `/inputs/${up('a')}`, value: up('a') },
      { op: 'add', path: `/inputEdges/${up('b')}`, value: { destinationUrn: up('b') } },
      { op: 'add', path: `/inputEdges/${up('b')}`, value: { destinationUrn: up('b') } },
    ]);
    expect(i).toEqual({ inputs: [up('a')], inputEdges: [{ destinationUrn: up('b') }] });
    expect(patch('dataProcessInstanceInput', i, [{ op: 'remove', path: `/inputs/${up('a')}` }]).inputs).toEqual([]);
    const o = patch('dataProcessInstanceOutput', null, [{ op: 'add', path: `/outputEdges/${up('c')}`, value: { destinationUrn: up('c') } }]);
    expect(o).toEqual({ outputs: [], outputEdges: [{ destinationUrn: up('c') }] });
  });

  test('a keyed array removed whole is left empty, as DataHub leaves it (a required one stays valid)', () => {
    const docs = { documentations: [{ documentation: 'a', attribution: { source: 's', time: 0, actor: 'urn:li:corpuser:x' } }] };
    expect(applyPatch(undefined, docs, parsePatch({ patch: [{ op: 'remove', path: '/documentations', value: {} }], arrayPrimaryKeys: { documentations: ['attribution\u241fsource'] } }), 'li')).toEqual({ documentations: [] });
    expect(patch('globalTags', { tags: [{ tag: 'urn:li:tag:a' }] }, [{ op: 'remove', path: '/tags' }])).toEqual({ tags: [] });
  });

  test('whole-array add replaces it; unkeyed arrays take RFC 6902 indexes', () => {
    expect(patch('globalTags', { tags: [{ tag: 'urn:li:tag:a' }] }, [{ op: 'add', path: '/tags', value: [{ tag: 'urn:li:tag:b' }] }]).tags).toEqual([{ tag: 'urn:li:tag:b' }]);
    expect(patch('subTypes', { typeNames: ['a'] }, [{ op: 'add', path: '/typeNames/-', value: 'b' }])).toEqual({ typeNames: ['a', 'b'] });
  });

  test('malformed patches are InvalidInputError', () => {
    expect(() => parsePatch({ nope: 1 })).toThrow(InvalidInputError);
    expect(() => parsePatch([{ op: 'move', path: '/a' }])).toThrow(InvalidInputError);
    expect(() => parsePatch([{ op: 'add', path: 'a', value: 1 }])).toThrow(InvalidInputError);
    expect(() => parsePatch([{ op: 'add', path: '/a' }])).toThrow(InvalidInputError);
    expect(() => patch('subTypes', { typeNames: ['a'] }, [{ op: 'add', path: '/typeNames/9', value: 'b' }])).toThrow(InvalidInputError);
  });

  test('in another urn namespace: templates stamp its actor, dataset upstreams and column edges use its urns', () => {
    const acme = (urn: string) => urn.replace(/urn:li:/g, 'urn:acme:');
    const inAcme = (aspect: string, current: Record<string, unknown> | null, body: unknown) => applyPatch(ASPECT_BEHAVIOURS.get(aspect)?.patch, current, parsePatch(body), 'acme');
    expect(inAcme('ownership', null, []).lastModified).toEqual({ time: 0, actor: 'urn:acme:corpuser:unknown' });
    const d = acme(field('d', 'c1'));
    const v = inAcme('upstreamLineage', null, [{ op: 'add', path: `/fineGrainedLineages/NONE/${d}/NONE/${acme(up('u'))}`, value: { confidenceScore: 1 } }]);
    expect(v.fineGrainedLineages).toEqual([{ upstreamType: 'DATASET', upstreams: [acme(up('u'))], downstreamType: 'FIELD', downstreams: [d], confidenceScore: 1 }]);
    const fine = { fineGrainedLineages: [{ upstreams: [acme(field('u', 'c1'))], downstreams: [d] }] };
    expect(ASPECT_BEHAVIOURS.get('dataJobInputOutput')?.columnEdges?.(fine, 'acme')).toEqual([{ source: d, target: acme(field('u', 'c1')) }]);
    expect(ASPECT_BEHAVIOURS.get('dataJobInputOutput')?.columnEdges?.(fine, 'li')).toEqual([]);
  });
});
