import { sourceInfo, type IngestionSourceInput } from '../../src/services/ingestion-sources';

const input = (over: Partial<IngestionSourceInput> = {}): IngestionSourceInput => ({ name: 'nightly', type: 'file', config: { recipe: '{"source": {"type": "file"}}' }, ...over });

describe('an ingestion source as stored', () => {
  it('keeps the recipe, the default executor, the schedule and extra arguments as a map', () => {
    expect(
      sourceInfo(input({ schedule: { interval: '*/15 * * * *', timezone: 'UTC' }, config: { recipe: '{}', version: '1.2.0', debugMode: false, extraArgs: [{ key: 'extra_pip_requirements', value: 'x==1' }] } })),
    ).toEqual({
      name: 'nightly',
      type: 'file',
      schedule: { interval: '*/15 * * * *', timezone: 'UTC' },
      config: { recipe: '{}', executorId: 'default', version: '1.2.0', debugMode: false, extraArgs: { extra_pip_requirements: 'x==1' } },
    });
  });

  it.each([
    [{ schedule: { interval: '0 5 * * *', timezone: 'Mars/Olympus' } }, /not a time zone/],
    [{ schedule: { interval: '0 0 5 * * *', timezone: 'UTC' } }, /5 fields expected, got 6/],
    [{ schedule: { interval: '0 5 * * mon-xyz', timezone: 'UTC' } }, /not a cron schedule/],
    [{ config: { recipe: 'source: {type: file}' } }, /must be a JSON document/],
    [{ name: ' ' }, /name must not be empty/],
  ])('refuses %j', (over, error) => {
    expect(() => sourceInfo(input(over as Partial<IngestionSourceInput>))).toThrow(error);
  });
});
