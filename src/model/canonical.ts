import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';

/** Key-order independent JSON, so equal values hash equally whatever order their fields arrived in. */
export function canonicalJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

export function contentHash(value: unknown): string {
  return hashOfCanonicalJson(canonicalJson(value));
}

/** contentHash of a value whose canonicalJson is at hand. */
export function hashOfCanonicalJson(json: string): string {
  return createHash('sha256').update(json).digest('base64url');
}
