import type { AspectBehaviour } from './behaviour';

/** Written by metadata-test evaluation with push: the passing and failing tests of an entity. */
export const testResults: AspectBehaviour = { name: 'testResults' };
