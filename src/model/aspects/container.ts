import type { AspectBehaviour } from './behaviour';

export const container: AspectBehaviour = {
  name: 'container',
  browseContext(value, context) {
    if (typeof value.container === 'string') context.container = { urn: value.container, path: null };
  },
};
