import { join } from 'node:path';
import { InvalidInputError } from '../../src/model/errors';
import { Registry } from '../../src/model/registry';
import { parseTaskReference } from '../../src/services/operations';
import { urnPattern } from '../../src/services/restore';
import { truncationMessage } from '../../src/services/timeseries';
import { timeseriesIndexDefinition } from '../../src/stores/search/mappings';

const registry = Registry.load(join(__dirname, '..', '..', 'schema'));

describe('truncation message', () => {
  it('is the documented sentence, to the letter', () => {
    expect(truncationMessage(100, 365, false, true)).toBe(
      'Delete 100 out of 365 rows (27.40%). Issuing a delete by query request. This was a dry run. Run with dryRun = false to execute.',
    );
    expect(truncationMessage(300, 365, true, true)).toBe(
      'Delete 300 out of 365 rows (82.19%). Reindexing the aspect without the deleted records. This was a dry run. Run with dryRun = false to execute.',
    );
    expect(truncationMessage(1, 3, false, false)).toBe('Delete 1 out of 3 rows (33.33%). Issuing a delete by query request. ');
    expect(truncationMessage(0, 0, false, true)).toMatch(/^Delete 0 out of 0 rows \(0\.00%\)\. /);
  });
});

describe('task references', () => {
  it('accepts task or nodeId + taskId', () => {
    expect(parseTaskReference({ task: 'abc-DEF_1:42' })).toBe('abc-DEF_1:42');
    expect(parseTaskReference({ nodeId: 'abc', taskId: 42 })).toBe('abc:42');
  });
  it.each([[{}], [{ nodeId: 'abc' }], [{ taskId: 1 }], [{ task: 'abc:1', taskId: 1 }], [{ task: 'abc' }], [{ task: 'abc:x' }], [{ nodeId: 'a:b', taskId: 1 }]])(
    'rejects %j saying what to send',
    (body) => {
      expect(() => parseTaskReference(body)).toThrow(InvalidInputError);
      expect(() => parseTaskReference(body)).toThrow(/task \("<node_id>:<task_number>"\) or both nodeId and taskId/);
    },
  );
});

describe('urnLike patterns', () => {
  it('has % as the only wildcard and a literal prefix for the index', () => {
    expect(urnPattern('urn:li:dataset:(urn:li:dataPlatform:hive,%')).toEqual({
      prefix: 'urn:li:dataset:(urn:li:dataPlatform:hive,',
      regex: 'urn:li:dataset:\\(urn:li:dataPlatform:hive,.*',
    });
    expect(urnPattern('%_x.y%')).toEqual({ prefix: '', regex: '.*_x\\.y.*' });
    expect(urnPattern('urn:li:tag:a')).toEqual({ prefix: 'urn:li:tag:a', regex: 'urn:li:tag:a' });
  });
});

describe('time-series mappings', () => {
  it('derives typed fields from the JSON schema', () => {
    const { mappings } = timeseriesIndexDefinition(registry.aspects.get('datasetProfile')!);
    const p = mappings.properties as Record<string, any>;
    expect(mappings.dynamic).toBe(false);
    expect(p.rowCount).toEqual({ type: 'long' });
    expect(p.timestampMillis).toEqual({ type: 'date', format: 'epoch_millis' });
    expect(p['@timestamp']).toEqual({ type: 'date', format: 'epoch_millis' });
    expect(p.fieldProfiles.properties.uniqueProportion).toEqual({ type: 'double' });
    expect(p.fieldProfiles.properties.fieldPath).toMatchObject({ type: 'keyword' });
    expect(p.fieldProfiles.properties.histogram.properties.heights).toEqual({ type: 'double' });
    expect(p.partitionSpec.properties.partition).toMatchObject({ type: 'keyword' });
    expect(p.eventGranularity.properties.multiple).toEqual({ type: 'long' });
    expect(p.messageId).toMatchObject({ type: 'keyword' });
    expect(p.event).toEqual({ type: 'object', enabled: false });
    expect(p.systemMetadata).toEqual({ type: 'object', enabled: false });
    expect(p.urn).toEqual({ type: 'keyword' });
  });
});
