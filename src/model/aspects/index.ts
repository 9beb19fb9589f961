import type { AspectBehaviour } from './behaviour';
import { applications } from './applications';
import { browsePaths } from './browsePaths';
import { browsePathsV2 } from './browsePathsV2';
import { chartInfo } from './chartInfo';
import { container } from './container';
import { dashboardInfo } from './dashboardInfo';
import { dataFlowInfo } from './dataFlowInfo';
import { dataJobInputOutput } from './dataJobInputOutput';
import { dataPlatformInstance } from './dataPlatformInstance';
import { datasetProperties } from './datasetProperties';
import { datasetUsageStatistics } from './datasetUsageStatistics';
import { deprecation } from './deprecation';
import { domains } from './domains';
import { editableDatasetProperties } from './editableDatasetProperties';
import { editableSchemaMetadata } from './editableSchemaMetadata';
import { globalTags } from './globalTags';
import { glossaryTermInfo } from './glossaryTermInfo';
import { glossaryTerms } from './glossaryTerms';
import { institutionalMemory } from './institutionalMemory';
import { ownership } from './ownership';
import { schemaMetadata } from './schemaMetadata';
import { status } from './status';
import { structuredProperties } from './structuredProperties';
import { testInfo } from './testInfo';
import { testResults } from './testResults';
import { upstreamLineage } from './upstreamLineage';

export type { AspectBehaviour, PatchTemplate } from './behaviour';
export { browsePathsV2, datasetUsageStatistics, deprecation, schemaMetadata, status, testInfo, testResults };

/** Every aspect with behaviour beyond its schema, by name; the registry attaches each to its spec. */
export const ASPECT_BEHAVIOURS: ReadonlyMap<string, AspectBehaviour> = new Map(
  [
    applications,
    browsePaths,
    browsePathsV2,
    chartInfo,
    container,
    dashboardInfo,
    dataFlowInfo,
    dataJobInputOutput,
    dataPlatformInstance,
    datasetProperties,
    datasetUsageStatistics,
    deprecation,
    domains,
    editableDatasetProperties,
    editableSchemaMetadata,
    globalTags,
    glossaryTermInfo,
    glossaryTerms,
    institutionalMemory,
    ownership,
    schemaMetadata,
    status,
    structuredProperties,
    testInfo,
    testResults,
    upstreamLineage,
  ].map((b) => [b.name, b]),
);
