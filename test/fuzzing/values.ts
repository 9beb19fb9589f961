import fc from 'fast-check';

/**
 * Hostile values for the fuzzer. Every URN it can send in a write carries the run's marker, so whatever a write
 * creates is recognizable (and removable) afterwards; generic hostile strings never look like a real URN.
 */

/** Draws values from fast-check arbitraries; one per request, seeded from (seed, index), so requests are reproducible. */
export type Gen = fc.GeneratorValue;

// Choices are unbiased (fast-check otherwise favours small integers); generated strings keep their bias to edge cases.
const uniform = (min: number, max: number) => fc.noBias(fc.integer({ min, max }));
export const int = (g: Gen, min: number, max: number): number => g(uniform, min, max);
export const pick = <T>(g: Gen, items: readonly T[]): T => items[int(g, 0, items.length - 1)];
export const chance = (g: Gen, p: number): boolean => int(g, 0, 999_999) < p * 1_000_000;

/** Any UTF-16 code unit, so lone surrogates and NUL come up too. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

/** Random text: full unicode, raw code units (lone surrogates), or mostly ASCII punctuation. */
export function randomText(g: Gen, maxLength = 40): string {
  switch (int(g, 0, 2)) {
    case 0:
      return g(fc.string, { unit: 'binary', maxLength });
    case 1:
      return g(fc.string, { unit: codeUnit, maxLength });
    default:
      return g(fc.string, { unit: fc.constantFrom(...'\'"\\`$(){}[]:,;*?~^!&|/<>%=+-_. \t\n\r\u0000'), maxLength });
  }
}

export const CYPHER = [
  "' OR 1=1 //",
  '" OR 1=1 //',
  "x'}) MATCH (n) DETACH DELETE n //",
  'x"}) MATCH (n) DETACH DELETE n RETURN 1 //',
  "x`]->(m) DETACH DELETE m //",
  "'; CALL db.labels() YIELD label RETURN label //",
  '$urn',
  '{urn: $urn}',
  "\\' RETURN 1 //",
  "x' UNION MATCH (n) RETURN n.password //",
  'MATCH (n) SET n.hacked = true',
  "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l",
];

export const LUCENE = [
  '*',
  '?',
  '*:*',
  'a AND OR b',
  '(((',
  ')',
  '"unterminated',
  '/regex/',
  '/[/',
  '/(.*){1000}/',
  'a~',
  'a~99',
  'a^1000000',
  '[a TO',
  '{* TO *}',
  '\\',
  '!',
  '&&',
  '||',
  'name:',
  ':',
  '_exists_:name',
  'name:(a OR b) AND NOT description:c',
  'urn:li:dataset:(x',
  '*a*b*c*d*e*f*g*h*i*j*k*l*m*n*o*p*',
  'a'.repeat(300) + '*',
  Array.from({ length: 2000 }, (_, i) => `t${i}`).join(' OR '),
  '+-&&||!(){}[]^"~*?:\\/',
  'tags:',
  'platform:urn:li:dataPlatform:hive AND (',
  'description:/.{0,100000}/',
];

export const UNICODE = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83dy',
  '\u202eevil\u202c',
  '\u200b\u200c\u200d',
  '\ufeff',
  '\u2028\u2029',
  '\u0085',
  'e\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301',
  '\u0645\u0631\u062d\u0628\u0627',
  'ｆｕｌｌｗｉｄｔｈ',
  '🦄🏳️‍🌈',
  '\uffff\ufffe',
  '\u001b[31mred\u001b[0m',
];

export const MISC = [
  '',
  ' ',
  "'",
  '"',
  '\\',
  "\\'",
  '\'"`',
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '%s%s%s%n',
  '../../../../etc/passwd',
  '%2e%2e%2f',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '{"a":1}',
  '[1,2]',
  'true',
  'List(a,b)',
  'List(',
  'urn:',
  'urn:li:',
];

/** A generic hostile string (never a well-formed URN of a known entity type). */
export function hostileString(g: Gen): string {
  switch (int(g, 0, 6)) {
    case 0:
      return pick(g, CYPHER);
    case 1:
      return pick(g, LUCENE);
    case 2:
      return pick(g, UNICODE);
    case 3:
      return pick(g, MISC);
    case 4:
      return pick(g, MISC) + pick(g, UNICODE) + pick(g, CYPHER);
    case 5:
      return 'x'.repeat(pick(g, [256, 1000, 10_001, 100_000]));
    default:
      return randomText(g);
  }
}

const ENTITY_TYPES = ['dataset', 'chart', 'dashboard', 'tag', 'corpuser', 'corpGroup', 'glossaryTerm', 'test', 'dataPlatform'];

/** A hostile URN that still names the run (`marker`): quotes, Cypher, Lucene, unicode, broken tuples, huge ids. */
export function hostileUrn(g: Gen, marker: string): string {
  const m = marker;
  const type = pick(g, ENTITY_TYPES.filter((t) => t !== 'dataPlatform'));
  const simple = (id: string) => `urn:li:${type === 'dataset' || type === 'chart' || type === 'dashboard' ? 'tag' : type}:${m}${id}`;
  switch (int(g, 0, 9)) {
    case 0:
      return simple(pick(g, ["'", '"', '\\', "\\'", '`', "' OR '1'='1", '"}) DETACH DELETE n //', '`) MATCH (n) DETACH DELETE n //']));
    case 1:
      return simple(pick(g, ['*', '?', ' AND *:*', ') OR (*', '/.*/', '~', '^9', '[* TO *]', ' OR urn:li:tag:*', '\\*']));
    case 2:
      return simple(pick(g, UNICODE));
    case 3:
      return pick(g, [
        `urn:li:dataset:(urn:li:dataPlatform:hive,${m}x`,
        `urn:li:dataset:(urn:li:dataPlatform:hive,${m}x,PROD))`,
        `urn:li:dataset:((urn:li:dataPlatform:hive,${m}x,PROD)`,
        `urn:li:dataset:(urn:li:dataPlatform:hive,${m}a,b,PROD)`,
        `urn:li:dataset:(urn:li:dataPlatform:hi ve,${m}x,PROD)`,
        `urn:li:dataset:(urn:li:dataPlatform:hive,${m}x,MARS)`,
        `urn:li:dataset:(urn:li:dataPlatform:hive,${m}x,PROD` + ')'.repeat(1000),
        `urn:li:dataset:` + '('.repeat(500) + m + ')'.repeat(500),
        `urn:li:dataset:(urn:li:dataPlatform:hive,${m}(nested,x),PROD)`,
        `urn:li:dataset:(urn:li:dataPlatform:${m}'x,y,PROD)`,
        `urn:li:chart:(looker,${m}x`,
        `urn:li:chart:(${m}x)`,
        `urn:li:dashboard:(looker,${m}x,extra)`,
        `urn:li:dataset:(,${m},)`,
      ]);
    case 4:
      return pick(g, [
        `URN:LI:TAG:${m}x`,
        `urn:li:TAG:${m}x`,
        `urn:li:tag:${m}x:extra:parts`,
        ` urn:li:tag:${m}x`,
        `urn:li:tag:${m}x `,
        `urn:li:tag:${m}x\n`,
        `urn:li::${m}x`,
        `urn::tag:${m}x`,
        `urn:xx:tag:${m}x`,
        `urn:li:${m}:x`,
        `urn:li:spaceship:${m}x`,
        `urn:li:tag:${m}%00`,
        `urn:li:corpuser:${m}%2F..%2F`,
        `urn:li:corpuser:${m}/../../etc/passwd`,
        `urn:li:glossaryTerm:${m}a.b.c`,
        `urn:li:dataPlatform:${m}x`,
        `${m}urn:li:tag:x`,
      ]);
    case 5:
      return simple('x'.repeat(pick(g, [1000, 10_000, 100_000])));
    case 6:
      return simple(pick(g, CYPHER));
    case 7:
      return simple(pick(g, LUCENE));
    default:
      return simple(randomText(g));
  }
}

/** Integers and numbers at the edges, and things that only look like numbers. */
export function edgeNumber(g: Gen): unknown {
  return pick(g, [-1, 0, 1, 1.5, -0.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e308, 5e-324, '12', '1e3', '0x10', ' 5', 'abc', '', true, null, [], {}, RAW('1e400'), RAW('-0'), RAW('00012'), RAW('1.0')]);
}

/**
 * A literal inserted verbatim into the serialized JSON (numbers JSON.stringify cannot express, like 1e400).
 * Marked by a unique string that `serialize` replaces.
 */
const RAW_PREFIX = '\u0001raw\u0001';
export function RAW(literal: string): string {
  return `${RAW_PREFIX}${literal}${RAW_PREFIX}`;
}

/** JSON.stringify plus RAW literals. */
export function serialize(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  if (!text.includes('\\u0001raw\\u0001')) return text;
  return text.replace(/"\\u0001raw\\u0001(.*?)\\u0001raw\\u0001"/g, (_, literal: string) => JSON.parse(`"${literal}"`));
}

/** Nested arrays or objects `depth` levels deep, as text (built iteratively: no recursion). */
export function deepNesting(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/**
 * Adds the run marker to a URN's id (dataset name, chart/dashboard id, or the whole id), so writes made from
 * documentation examples land on entities of this run. Platform URNs are references and stay as they are.
 */
export function markUrn(urn: string, marker: string): string {
  const m = /^urn:li:([A-Za-z]+):(.*)$/s.exec(urn);
  if (!m || urn.includes(marker)) return urn;
  const [, type, id] = m;
  if (type === 'dataPlatform') return urn;
  if (id.startsWith('(') && id.endsWith(')')) {
    const parts = splitTopLevel(id.slice(1, -1));
    const i = type === 'dataset' ? Math.min(1, parts.length - 1) : parts.length - 1;
    parts[i] = marker + parts[i];
    return `urn:li:${type}:(${parts.join(',')})`;
  }
  return `urn:li:${type}:${marker}${id}`;
}

function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/** Marks every URN in a value, also inside strings that hold JSON (an aspect's serialized value). */
export function markUrns(value: unknown, marker: string): unknown {
  if (typeof value === 'string') {
    if (value.startsWith('urn:li:')) return markUrn(value, marker);
    const embedded = parseEmbeddedJson(value);
    return embedded === undefined ? value : JSON.stringify(markUrns(embedded, marker));
  }
  if (Array.isArray(value)) return value.map((v) => markUrns(v, marker));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, markUrns(v, marker)]));
  return value;
}

/** The parsed value of a string that holds a JSON object or array, else undefined. */
export function parseEmbeddedJson(s: string): unknown {
  if (!/^\s*[[{]/.test(s)) return undefined;
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** Every string in a value that starts with `urn:` (also inside embedded JSON), for attributing writes. */
export function urnsIn(value: unknown, out: Set<string> = new Set()): Set<string> {
  // Iterative: fuzzed values nest tens of thousands of levels deep.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.startsWith('urn:')) out.add(v);
      else {
        const embedded = parseEmbeddedJson(v);
        if (embedded !== undefined) stack.push(embedded);
      }
    } else if (Array.isArray(v)) stack.push(...v.slice(0, 100_000));
    else if (v && typeof v === 'object') stack.push(...Object.values(v));
  }
  return out;
}
