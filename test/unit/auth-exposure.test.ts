import { authRequirement, isLoopbackHost } from '../../src/auth/exposure';
import { loadConfig } from '../../src/config';

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', '127.255.255.254', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(['0.0.0.0', '::', '[::]', '10.0.0.5', '192.168.1.1', '128.0.0.1', '::ffff:10.0.0.1', 'fe80::1', 'metadata.example.com', 'localhost.example.com', 'my-host'])(
    '%s is not loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );
});

describe('AUTH_REQUIRED_EVERYWHERE', () => {
  const requirement = (env: Record<string, string>) => authRequirement(loadConfig(env));

  it('is off on the default loopback HOST when unset, as `npm start` runs', () => {
    expect(requirement({})).toEqual({ requiredEverywhere: false, reason: 'loopback' });
    expect(requirement({ HOST: '::1' })).toEqual({ requiredEverywhere: false, reason: 'loopback' });
  });

  it.each(['0.0.0.0', '::', '10.1.2.3', 'catalog.internal'])('is on when unset and HOST=%s', (HOST) => {
    expect(requirement({ HOST })).toEqual({ requiredEverywhere: true, reason: 'exposed' });
  });

  it('true requires tokens on any HOST', () => {
    expect(requirement({ HOST: '127.0.0.1', AUTH_REQUIRED_EVERYWHERE: 'true' })).toEqual({ requiredEverywhere: true, reason: 'set' });
    expect(requirement({ HOST: '0.0.0.0', AUTH_REQUIRED_EVERYWHERE: 'true' })).toEqual({ requiredEverywhere: true, reason: 'set' });
  });

  it('false beyond loopback is an explicit opt-out; on loopback it is the default', () => {
    expect(requirement({ HOST: '0.0.0.0', AUTH_REQUIRED_EVERYWHERE: 'false' })).toEqual({ requiredEverywhere: false, reason: 'opted-out' });
    expect(requirement({ HOST: '127.0.0.1', AUTH_REQUIRED_EVERYWHERE: 'false' })).toEqual({ requiredEverywhere: false, reason: 'loopback' });
  });

  it('an empty value counts as unset, a bad one stops the service', () => {
    expect(requirement({ HOST: '0.0.0.0', AUTH_REQUIRED_EVERYWHERE: '' })).toEqual({ requiredEverywhere: true, reason: 'exposed' });
    expect(() => loadConfig({ AUTH_REQUIRED_EVERYWHERE: 'maybe' })).toThrow(/AUTH_REQUIRED_EVERYWHERE="maybe"/);
  });
});
