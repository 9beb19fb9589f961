import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
// Also matches IPv4-mapped loopback (::ffff:127.0.0.1) and the long form of ::1.
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Whether a listen address is reachable only from this machine: `localhost`, 127.0.0.0/8 and ::1. Wildcards
 * (`0.0.0.0`, `::`), other addresses and other host names are not: a name is not resolved, so it counts as exposed.
 */
export function isLoopbackHost(host: string): boolean {
  const address = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (address === 'localhost') return true;
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Why endpoints open by default do or do not need a token:
 * - `set`: AUTH_REQUIRED_EVERYWHERE=true;
 * - `exposed`: unset, and HOST is not a loopback address;
 * - `loopback`: unset or false, and HOST is a loopback address (only local callers reach the service);
 * - `opted-out`: AUTH_REQUIRED_EVERYWHERE=false although HOST is not a loopback address (warned about at start).
 */
export type AuthRequirementReason = 'set' | 'exposed' | 'loopback' | 'opted-out';

export interface AuthRequirement {
  requiredEverywhere: boolean;
  reason: AuthRequirementReason;
}

/** AUTH_REQUIRED_EVERYWHERE is tri-state: unset means required whenever the service listens beyond loopback. */
export function authRequirement(config: { HOST: string; AUTH_REQUIRED_EVERYWHERE?: boolean }): AuthRequirement {
  if (config.AUTH_REQUIRED_EVERYWHERE === true) return { requiredEverywhere: true, reason: 'set' };
  const loopback = isLoopbackHost(config.HOST);
  if (config.AUTH_REQUIRED_EVERYWHERE === false) return { requiredEverywhere: false, reason: loopback ? 'loopback' : 'opted-out' };
  return loopback ? { requiredEverywhere: false, reason: 'loopback' } : { requiredEverywhere: true, reason: 'exposed' };
}
