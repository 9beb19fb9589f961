import { InvalidInputError } from './errors';

/** How deeply objects and arrays may nest in input (JSON.stringify, structuredClone and Ajv recurse once per level). */
export const MAX_NESTING = 100;

/** Whether a parsed JSON value nests deeper than `limit` levels. Iterative, so it cannot overflow the stack itself. */
export function nestsDeeperThan(value: unknown, limit = MAX_NESTING): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node as object)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** 400 when a parsed JSON value nests deeper than `limit` levels. */
export function assertNesting(value: unknown, what: string, limit = MAX_NESTING): void {
  if (nestsDeeperThan(value, limit)) throw new InvalidInputError(`${what} nests deeper than ${limit} levels`);
}
