import { ASPECT_BEHAVIOURS } from '../../src/model/aspects';
import { ValidationError } from '../../src/model/errors';

const sync = ASPECT_BEHAVIOURS.get('domains')!.mutate!;
const A = 'urn:li:domain:a';
const B = 'urn:li:domain:b';
const attributed = (domain: string, propagated = false) => ({ domain, attribution: { time: 1, actor: 'urn:li:corpuser:x', sourceDetail: propagated ? { propagated: 'true' } : {} } });

describe("domains: DataHub's sync of domains and domainAssociations", () => {
  it('a legacy write of domains gets associations, keeping the attribution of the domains it keeps', () => {
    expect(sync({ domains: [A] }, null)).toEqual({ domains: [A], domainAssociations: [{ domain: A }] });
    expect(sync({ domains: [A, B] }, { domains: [A], domainAssociations: [attributed(A)] })).toEqual({ domains: [A, B], domainAssociations: [attributed(A), { domain: B }] });
    // A read-modify-write that changed only domains, carrying the old associations along.
    expect(sync({ domains: [B], domainAssociations: [attributed(A)] }, { domains: [A], domainAssociations: [attributed(A)] })).toEqual({ domains: [B], domainAssociations: [{ domain: B }] });
  });

  it('a write of associations (the patch builders\' add_domain) sets domains, manual before propagated', () => {
    expect(sync({ domains: [], domainAssociations: [attributed(B, true), { domain: A }] }, null)).toEqual({ domains: [A, B], domainAssociations: [{ domain: A }, attributed(B, true)] });
    expect(sync({ domains: [A], domainAssociations: [] }, { domains: [A], domainAssociations: [{ domain: A }] })).toEqual({ domains: [], domainAssociations: [] });
  });

  it('refuses a write that changes both to disagree', () => {
    expect(() => sync({ domains: [A], domainAssociations: [{ domain: B }] }, null)).toThrow(ValidationError);
    expect(sync({ domains: [A], domainAssociations: [{ domain: A }] }, null)).toEqual({ domains: [A], domainAssociations: [{ domain: A }] });
  });
});
