import { join } from 'node:path';
import { InvalidInputError } from '../../src/model/errors';
import { Registry } from '../../src/model/registry';

const registry = Registry.load(join(__dirname, '..', '..', 'schema'));

describe('entity URNs', () => {
  const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';

  it('answers a URN checked before as the first time: same parsed URN, same entity type', () => {
    const first = registry.parseEntityUrn(dataset);
    const again = registry.parseEntityUrn(dataset);
    expect(again.entity.name).toBe('dataset');
    expect(again).toEqual(first);
    // The key aspect built from it is still whole and the caller's own.
    const a = registry.keyAspectFor(first.urn, first.entity).value;
    const b = registry.keyAspectFor(first.urn, first.entity).value;
    expect(a).toEqual({ platform: 'urn:li:dataPlatform:hive', name: 'db.t', origin: 'PROD' });
    expect(a).not.toBe(b);
  });

  it("lists an entity's default aspects: its key from the urn, then those with a default value", () => {
    const { urn, entity } = registry.parseEntityUrn(dataset);
    const defaults = registry.defaultAspects(urn, entity);
    expect(defaults.map((d) => d.name)).toEqual(['datasetKey', 'browsePaths', 'browsePathsV2']);
    expect(defaults[0].value()).toEqual({ platform: 'urn:li:dataPlatform:hive', name: 'db.t', origin: 'PROD' });
    expect(defaults[1].value()).toEqual({ paths: ['/prod/hive/db/t'] });
    // An entity type without those aspects gets its key alone.
    const tag = registry.parseEntityUrn('urn:li:tag:pii');
    expect(registry.defaultAspects(tag.urn, tag.entity).map((d) => d.name)).toEqual(['tagKey']);
  });

  it('refuses an invalid URN every time it is asked, also between valid ones', () => {
    const wrongParts = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t)';
    for (let i = 0; i < 3; i++) {
      expect(() => registry.parseEntityUrn(wrongParts)).toThrow(InvalidInputError);
      expect(registry.parseEntityUrn(dataset).entity.name).toBe('dataset');
      expect(() => registry.parseEntityUrn('urn:li:dataset:(not a platform,db.t,PROD)')).toThrow(/platform/);
    }
  });
});
