import { tryParseUrn, type Urn } from './urn';

/** "prod/kafka1/", "//prod//kafka1" → "/prod/kafka1"; "" → "/". */
export function normalizeBrowsePath(raw: string): string {
  const segments = raw.split('/').filter((s) => s.trim() !== '');
  return '/' + segments.join('/');
}

/**
 * Default `browsePaths` of an entity ingested without any, as DataHub makes them (BrowsePathUtils). Dataset, chart and
 * dashboard keep the legacy form the conformance notes fix, which ends with the entity's own name: dataset
 * `/<origin>/<platform name>/<name with . as />`, chart `/<tool>/<chartId>`, dashboard `/<tool>/<dashboardId>`, lower
 * case. Data flow `/<orchestrator>/<cluster>`, data job the same of its flow. Every other type gets `[""]` as in
 * DataHub (its root): never a missing list, which the official client refuses to read.
 */
export function defaultBrowsePaths(urn: Urn): string[] {
  switch (urn.entityType) {
    case 'dataset': {
      const [platform, name, origin] = urn.parts;
      const platformName = platform.split(':').pop() ?? platform;
      return [`/${origin}/${platformName}/${name.replace(/\./g, '/')}`.toLowerCase()];
    }
    case 'chart':
    case 'dashboard':
      return [`/${urn.parts[0]}/${urn.parts[1]}`.toLowerCase()];
    case 'dataFlow': {
      const [orchestrator, , cluster] = urn.parts;
      return [`/${orchestrator}/${cluster}`.toLowerCase()];
    }
    case 'dataJob': {
      const flow = tryParseUrn(urn.parts[0]);
      return flow?.entityType === 'dataFlow' && flow.parts.length === 3 ? defaultBrowsePaths(flow) : [''];
    }
    default:
      return [''];
  }
}

/**
 * Where an entity is listed for one of its browse paths, and under what name. A path is a folder: the entity is listed
 * at exactly it, named by its urn (DataHub). The legacy default paths of datasets, charts and dashboards (the
 * conformance notes' form) end with the entity's own name instead: for those the entity is listed in the parent folder
 * under that last segment, as the notes list it.
 */
export function browseListing(urn: Urn, path: string): { folder: string; name: string | null } {
  const normalized = normalizeBrowsePath(path);
  const legacy = ['dataset', 'chart', 'dashboard'].includes(urn.entityType) ? defaultBrowsePaths(urn).map(normalizeBrowsePath) : [];
  if (!legacy.includes(normalized) || normalized === '/') return { folder: normalized, name: null };
  const cut = normalized.lastIndexOf('/');
  return { folder: cut === 0 ? '/' : normalized.slice(0, cut), name: normalized.slice(cut + 1) };
}

export interface BrowsePathEntry {
  id: string;
  urn?: string;
}

/** What a request knows of an entity beside its urn: the container it puts it in and its platform instance. */
export interface BrowsePathContext {
  /** The parent container's urn and its own browse path (null when it has none). */
  container?: { urn: string; path: BrowsePathEntry[] | null };
  /** urn of the entity's dataPlatformInstance. */
  platformInstance?: string;
}

const DEFAULT_FOLDER: BrowsePathEntry = { id: 'Default' };

/**
 * Default `browsePathsV2` (DataHub's BrowsePathV2Utils, and the client's auto_browse_path_v2 for the platform
 * instance): the platform instance, then the container chain when the entity's container is known; else a dataset's
 * name folders (its name split at dots, lower case, without the last part), a data job's flow, or the "Default"
 * folder.
 */
export function defaultBrowsePathsV2(urn: Urn, context: BrowsePathContext = {}): { path: BrowsePathEntry[] } {
  const instance: BrowsePathEntry[] = context.platformInstance ? [{ id: context.platformInstance, urn: context.platformInstance }] : [];
  if (context.container) {
    const parent = context.container.path?.filter((e) => e.id !== DEFAULT_FOLDER.id) ?? [];
    // The parent's path holds the instance already when it has one.
    const head = parent.length > 0 && parent[0].urn === context.platformInstance ? [] : instance;
    return { path: [...head, ...parent, { id: context.container.urn, urn: context.container.urn }] };
  }
  switch (urn.entityType) {
    case 'dataset': {
      const parts = urn.parts[1].toLowerCase().split('.').filter((p) => p !== '');
      const folders = parts.slice(0, -1).map((id) => ({ id }));
      return { path: [...instance, ...(folders.length > 0 ? folders : instance.length > 0 ? [] : [DEFAULT_FOLDER])] };
    }
    case 'dataJob':
      return { path: [...instance, { id: urn.parts[0], urn: urn.parts[0] }] };
    default:
      return { path: instance.length > 0 ? instance : [DEFAULT_FOLDER] };
  }
}
