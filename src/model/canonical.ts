import * as crypto from 'node:crypto';
import { stringify } from 'safe-stable-stringify';

/** Key-order independent JSON, so equal values hash equally whatever order their fields arrived in. */
export function canonicalJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

export function contentHash(value: unknown): string {
  return hashOfCanonicalJson(canonicalJson(value));
}

// The one-shot hash (Node 20.12+) takes half the CPU of a Hash object for a few KB; the engines field allows any Node 20.
const oneShotHash = (crypto as Partial<Pick<typeof crypto, 'hash'>>).hash;

/** contentHash of a value whose canonicalJson is at hand. */
export function hashOfCanonicalJson(json: string): string {
  return oneShotHash ? oneShotHash('sha256', json, 'base64url') : crypto.createHash('sha256').update(json).digest('base64url');
}
