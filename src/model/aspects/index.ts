import type { AspectBehaviour } from './behaviour';
import { applications } from './applications';
import { browsePaths } from './browsePaths';
import { browsePathsV2 } from './browsePathsV2';
import { chartInfo } from './chartInfo';
import { container } from './container';
import { containerProperties } from './containerProperties';
import { corpGroupInfo } from './corpGroupInfo';
import { corpUserInfo } from './corpUserInfo';
import { dashboardInfo } from './dashboardInfo';
import { dataFlowInfo } from './dataFlowInfo';
import { dataJobInfo } from './dataJobInfo';
import { dataJobInputOutput } from './dataJobInputOutput';
import { dataPlatformInfo } from './dataPlatformInfo';
import { dataPlatformInstance } from './dataPlatformInstance';
import { datasetProperties } from './datasetProperties';
import { datasetUsageStatistics } from './datasetUsageStatistics';
import { deprecation } from './deprecation';
import { domainProperties } from './domainProperties';
import { domains } from './domains';
import { editableDatasetProperties } from './editableDatasetProperties';
import { editableSchemaMetadata } from './editableSchemaMetadata';
import { globalTags } from './globalTags';
import { glossaryTermInfo } from './glossaryTermInfo';
import { glossaryTerms } from './glossaryTerms';
import { institutionalMemory } from './institutionalMemory';
import { mlFeatureProperties } from './mlFeatureProperties';
import { mlFeatureTableProperties } from './mlFeatureTableProperties';
import { mlModelGroupProperties } from './mlModelGroupProperties';
import { mlModelProperties } from './mlModelProperties';
import { mlPrimaryKeyProperties } from './mlPrimaryKeyProperties';
import { ownership } from './ownership';
import { schemaMetadata } from './schemaMetadata';
import { status } from './status';
import { structuredProperties } from './structuredProperties';
import { subTypes } from './subTypes';
import { tagProperties } from './tagProperties';
import { testInfo } from './testInfo';
import { testResults } from './testResults';
import { upstreamLineage } from './upstreamLineage';

export type { AspectBehaviour, PatchTemplate } from './behaviour';
export {
  applications,
  browsePaths,
  browsePathsV2,
  chartInfo,
  container,
  containerProperties,
  corpGroupInfo,
  corpUserInfo,
  dashboardInfo,
  dataFlowInfo,
  dataJobInfo,
  dataJobInputOutput,
  dataPlatformInfo,
  dataPlatformInstance,
  datasetProperties,
  datasetUsageStatistics,
  deprecation,
  domainProperties,
  domains,
  editableDatasetProperties,
  editableSchemaMetadata,
  globalTags,
  glossaryTermInfo,
  glossaryTerms,
  institutionalMemory,
  mlFeatureProperties,
  mlFeatureTableProperties,
  mlModelGroupProperties,
  mlModelProperties,
  mlPrimaryKeyProperties,
  ownership,
  schemaMetadata,
  status,
  structuredProperties,
  subTypes,
  tagProperties,
  testInfo,
  testResults,
  upstreamLineage,
};

/** Every aspect with behaviour beyond its schema, by name; the registry attaches each to its spec. */
export const ASPECT_BEHAVIOURS: ReadonlyMap<string, AspectBehaviour> = new Map(
  [
    applications,
    browsePaths,
    browsePathsV2,
    chartInfo,
    container,
    containerProperties,
    corpGroupInfo,
    corpUserInfo,
    dashboardInfo,
    dataFlowInfo,
    dataJobInfo,
    dataJobInputOutput,
    dataPlatformInfo,
    dataPlatformInstance,
    datasetProperties,
    datasetUsageStatistics,
    deprecation,
    domainProperties,
    domains,
    editableDatasetProperties,
    editableSchemaMetadata,
    globalTags,
    glossaryTermInfo,
    glossaryTerms,
    institutionalMemory,
    mlFeatureProperties,
    mlFeatureTableProperties,
    mlModelGroupProperties,
    mlModelProperties,
    mlPrimaryKeyProperties,
    ownership,
    schemaMetadata,
    status,
    structuredProperties,
    subTypes,
    tagProperties,
    testInfo,
    testResults,
    upstreamLineage,
  ].map((b) => [b.name, b]),
);
