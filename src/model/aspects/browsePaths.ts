import { defaultBrowsePaths } from '../browse-paths';
import type { AspectBehaviour } from './behaviour';

export const browsePaths: AspectBehaviour = {
  name: 'browsePaths',
  defaultValue: (urn) => ({ paths: defaultBrowsePaths(urn) }),
  browsePaths: (value) => (value.paths as string[] | undefined) ?? [],
};
