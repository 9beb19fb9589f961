import { RECENT_KEYS_PER_GENERATION, RecentAnswers } from './recent-answers';
import { InvalidInputError } from './errors';

/** A parsed URN: `urn:<namespace>:<entityType>:<id>`, where id may be a tuple `(a,b,c)` whose members may be URNs. */
export interface Urn {
  readonly raw: string;
  readonly namespace: string;
  readonly entityType: string;
  readonly id: string;
  /** The tuple members when id is `(…)`, else `[id]`. */
  readonly parts: readonly string[];
}

/**
 * The search engine's limit on a document id (the urn is the id): a longer urn could be stored but never indexed.
 * DataHub refuses urns over 512 bytes too.
 */
export const MAX_URN_BYTES = 512;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const ENTITY_TYPE = /^[a-zA-Z][a-zA-Z0-9]*$/;

/** Splits `a,(b,c),urn:li:x:(d,e)` on commas at nesting depth 0; returns null when parentheses are unbalanced. */
function splitTuple(inner: string): string[] | null {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const ch = inner.charCodeAt(i);
    if (ch === 40 /* ( */) depth++;
    else if (ch === 41 /* ) */ && --depth < 0) return null;
    else if (ch === 44 /* , */ && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) return null;
  parts.push(inner.slice(start));
  return parts;
}

/**
 * Parsed URNs of recent strings: the same URNs (an entity's, its tags', owners' and
 * platform's) are parsed again at every stage of a write and by the indexer. A parsed URN is immutable.
 */
const parsed = new RecentAnswers<{ urn: Urn | null }>(RECENT_KEYS_PER_GENERATION);

export function tryParseUrn(raw: unknown): Urn | null {
  if (typeof raw !== 'string' || raw.length > MAX_URN_BYTES) return null;
  return parsed.get(raw, (key) => ({ urn: parseUncached(key) })).urn;
}

function parseUncached(raw: string): Urn | null {
  if (raw.length === 0 || Buffer.byteLength(raw) > MAX_URN_BYTES) return null;
  // Control characters, and lone surrogates (no UTF-8 for them: the engine would store another id than Neo4j).
  if (/[\u0000-\u001f]/.test(raw) || LONE_SURROGATE.test(raw)) return null;
  const m = /^urn:([a-zA-Z0-9]+):([^:]+):(.+)$/s.exec(raw);
  if (!m) return null;
  const [, namespace, entityType, id] = m;
  if (!ENTITY_TYPE.test(entityType) || id.trim() === '') return null;
  let parts: string[];
  if (id.startsWith('(')) {
    if (!id.endsWith(')')) return null;
    const split = splitTuple(id.slice(1, -1));
    if (!split || split.some((p) => p === '')) return null;
    parts = split;
  } else {
    parts = [id];
  }
  return { raw, namespace, entityType, id, parts };
}

export function parseUrn(raw: unknown, what = 'urn'): Urn {
  const urn = tryParseUrn(raw);
  if (!urn) {
    const shown = typeof raw === 'string' ? JSON.stringify(raw.slice(0, 200)) : typeof raw;
    const tooLong = typeof raw === 'string' && Buffer.byteLength(raw) > MAX_URN_BYTES;
    throw new InvalidInputError(`Invalid ${what} ${shown}: ${tooLong ? `longer than ${MAX_URN_BYTES} bytes` : 'expected urn:<namespace>:<entityType>:<id>'}`);
  }
  return urn;
}

/** Builds `urn:li:<type>:<id>` or a tuple URN from its parts. */
export function makeUrn(namespace: string, entityType: string, parts: readonly string[]): string {
  const id = parts.length === 1 ? parts[0] : `(${parts.join(',')})`;
  return `urn:${namespace}:${entityType}:${id}`;
}

/** A platform urn of the namespace for a platform's name (`hive` → `urn:<ns>:dataPlatform:hive`); a urn as it is. */
export function platformUrn(namespace: string, nameOrUrn: string): string {
  return nameOrUrn.startsWith('urn:') ? nameOrUrn : makeUrn(namespace, 'dataPlatform', [nameOrUrn]);
}

/** The platform's name in a platform urn of the namespace (`urn:<ns>:dataPlatform:hive` → `hive`); anything else as it is. */
export function platformName(namespace: string, urn: string): string {
  const prefix = `urn:${namespace}:dataPlatform:`;
  return urn.startsWith(prefix) ? urn.slice(prefix.length) : urn;
}
