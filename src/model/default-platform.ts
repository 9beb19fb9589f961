import { makeUrn, tryParseUrn, type Urn } from './urn';

/**
 * The data platform DataHub gives an entity that has no `dataPlatformInstance` of its own: DataHub writes that aspect as
 * a default at the entity's first write, from its key (DataPlatformInstanceUtils), so a `platform` filter or facet finds
 * charts, jobs and ML models by their tool, orchestrator or platform. This service keeps the aspects written (and the
 * default browse paths the conformance notes give), and puts the same platform in the search document instead.
 * By entity type, the key part that names it: a platform urn, or a tool's name (lower-cased, as DataHub does).
 */
const PLATFORM_FROM_KEY: Record<string, (urn: Urn) => string | null> = {
  dataset: (u) => u.parts[0],
  mlModel: (u) => u.parts[0],
  mlModelGroup: (u) => u.parts[0],
  mlModelDeployment: (u) => u.parts[0],
  mlFeatureTable: (u) => u.parts[0],
  chart: (u) => platformNamed(u, u.parts[0]),
  dashboard: (u) => platformNamed(u, u.parts[0]),
  dataFlow: (u) => platformNamed(u, u.parts[0]),
  // A job's platform is its flow's orchestrator.
  dataJob: (u) => {
    const flow = tryParseUrn(u.parts[0]);
    return flow && flow.entityType === 'dataFlow' ? platformNamed(u, flow.parts[0]) : null;
  },
};

function platformNamed(urn: Urn, name: string | undefined): string | null {
  return name ? makeUrn(urn.namespace, 'dataPlatform', [name.toLowerCase()]) : null;
}

/** The platform urn DataHub's default `dataPlatformInstance` would name for this entity, or null when it makes none. */
export function defaultPlatform(urn: Urn): string | null {
  const platform = PLATFORM_FROM_KEY[urn.entityType]?.(urn) ?? null;
  return platform && tryParseUrn(platform)?.entityType === 'dataPlatform' ? platform : null;
}
