import { defaultBrowsePathsV2, type BrowsePathContext, type BrowsePathEntry } from '../model/browse-paths';
import { tryParseUrn } from '../model/urn';
import type { Projected, WriteItem } from './write-path/plan';

type UpsertItem = Extract<WriteItem, { kind: 'upsert' }>;

/** Reads the stored `browsePathsV2` paths of containers (null for one that has none). */
export type ContainerPaths = (containerUrns: string[]) => Promise<Map<string, BrowsePathEntry[] | null>>;

/** The value the request's last write of an aspect carries (null for none, or a patch computed later). */
function written(own: UpsertItem[], name: string): Record<string, unknown> | null {
  const last = own.filter((i) => i.name === name).pop();
  return last?.projected?.parsed ?? null;
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
    if (names.has('browsePathsV2') || !own.some((i) => i.defaults.some((d) => d.name === 'browsePathsV2'))) continue;
    const context: BrowsePathContext = {};
    const parent = written(own, 'container')?.container;
    if (typeof parent === 'string') {
      context.container = { urn: parent, path: null };
      parents.add(parent);
    }
    const instance = written(own, 'dataPlatformInstance')?.instance;
    if (typeof instance === 'string') context.platformInstance = instance;
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
          if (d.name !== 'browsePathsV2' || !context || !parsed) return d;
          const value = defaultBrowsePathsV2(parsed, context) as unknown as Record<string, unknown>;
          return { name: d.name, value: () => project(d.name, value) };
        });
    }
  }
}
