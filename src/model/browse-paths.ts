import type { Urn } from './urn';

/**
 * Default browse paths for entities ingested without any (DataHub's conventions): dataset
 * `/<origin>/<platform name>/<name with . as />`, chart `/<tool>/<chartId>`, dashboard `/<tool>/<dashboardId>`; lower case.
 */
export function defaultBrowsePaths(urn: Urn): string[] | null {
  switch (urn.entityType) {
    case 'dataset': {
      const [platform, name, origin] = urn.parts;
      const platformName = platform.split(':').pop() ?? platform;
      return [`/${origin}/${platformName}/${name.replace(/\./g, '/')}`.toLowerCase()];
    }
    case 'chart':
    case 'dashboard':
      return [`/${urn.parts[0]}/${urn.parts[1]}`.toLowerCase()];
    default:
      return null;
  }
}
