import { ASPECT_BEHAVIOURS, browsePathsV2 } from '../model/aspects';
import type { BrowsePathContext, BrowsePathEntry } from '../model/browse-paths';
import { tryParseUrn } from '../model/urn';
import type { Projected, WriteItem } from './write-path/plan';

type UpsertItem = Extract<WriteItem, { kind: 'upsert' }>;

/** Reads the stored `browsePathsV2` paths of containers (null for one that has none). */
export type ContainerPaths = (containerUrns: string[]) => Promise<Map<string, BrowsePathEntry[] | null>>;

/** What the request's writes of an entity tell its default browse paths (the last write of each aspect wins). */
function browseContextOf(own: UpsertItem[]): BrowsePathContext {
  const context: BrowsePathContext = {};
  const last = new Map(own.map((i) => [i.name, i.projected?.parsed ?? null]));
  for (const [name, value] of last) if (value) ASPECT_BEHAVIOURS.get(name)?.browseContext?.(value, context);
  return context;
}

/**
 * Completes the default aspects of one request's writes with what the request itself says of each entity, as DataHub
 * does for a batch: an aspect the request writes gets no default (it would only become a version before the real
 * one), and the default `browsePathsV2` follows the container the request puts the entity in (with that container's
 * own path, read once per request) and its platform instance.
 */
export async function completeDefaultBrowsePaths(
  items: WriteItem[],
  containerPaths: ContainerPaths,
  project: (aspectName: string, value: Record<string, unknown>) => Projected,
): Promise<void> {
  const upserts = items.filter((i): i is UpsertItem => i.kind === 'upsert');
  const byUrn = new Map<string, UpsertItem[]>();
  for (const item of upserts) byUrn.set(item.urn, [...(byUrn.get(item.urn) ?? []), item]);

  const contexts = new Map<string, BrowsePathContext>();
  const parents = new Set<string>();
  for (const [urn, own] of byUrn) {
    const names = new Set(own.map((i) => i.name));
    if (names.has(browsePathsV2.name) || !own.some((i) => i.defaults.some((d) => d.name === browsePathsV2.name))) continue;
    const context = browseContextOf(own);
    if (context.container) parents.add(context.container.urn);
    if (context.container || context.platformInstance) contexts.set(urn, context);
  }
  const paths = parents.size > 0 ? await containerPaths([...parents]) : new Map<string, BrowsePathEntry[] | null>();

  for (const [urn, own] of byUrn) {
    const names = new Set(own.map((i) => i.name));
    const context = contexts.get(urn);
    if (context?.container) context.container.path = paths.get(context.container.urn) ?? null;
    const parsed = tryParseUrn(urn);
    for (const item of own) {
      item.defaults = item.defaults
        .filter((d) => !names.has(d.name))
        .map((d) => {
          const defaultValue = ASPECT_BEHAVIOURS.get(d.name)?.defaultValue;
          if (d.name !== browsePathsV2.name || !defaultValue || !context || !parsed) return d;
          const value = defaultValue(parsed, context);
          return { name: d.name, value: () => project(d.name, value) };
        });
    }
  }
}
