import type { AspectBehaviour } from './behaviour';
import * as modules from './modules';

export type { AspectBehaviour, PatchTemplate } from './behaviour';
export * from './modules';

/** Every aspect with behaviour beyond its schema, by name; the registry attaches each to its spec. */
export const ASPECT_BEHAVIOURS: ReadonlyMap<string, AspectBehaviour> = new Map(Object.values(modules).map((b: AspectBehaviour) => [b.name, b]));
