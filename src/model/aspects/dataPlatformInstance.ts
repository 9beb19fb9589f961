import type { AspectBehaviour } from './behaviour';

export const dataPlatformInstance: AspectBehaviour = {
  name: 'dataPlatformInstance',
  browseContext(value, context) {
    if (typeof value.instance === 'string') context.platformInstance = value.instance;
  },
};
