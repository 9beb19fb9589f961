import type { AspectBehaviour } from './behaviour';

/** A data product's properties: its assets keyed by urn when patched (`datahub dataproduct add_asset`). */
export const dataProductProperties: AspectBehaviour = {
  name: 'dataProductProperties',
  patch: { arrayKeys: { assets: ['destinationUrn'] }, initial: () => ({ assets: [] }) },
  entityProperties: { nameField: 'name' },
};
