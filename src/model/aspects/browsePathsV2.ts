import { defaultBrowsePathsV2 } from '../browse-paths';
import type { AspectBehaviour } from './behaviour';

export const browsePathsV2: AspectBehaviour = {
  name: 'browsePathsV2',
  defaultValue: (urn, context) => ({ ...defaultBrowsePathsV2(urn, context) }),
};
