import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';

/** Key-order independent JSON, so equal values hash equally whatever order their fields arrived in. */
export function canonicalJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url');
}
