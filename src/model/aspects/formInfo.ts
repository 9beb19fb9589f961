import type { AspectBehaviour } from './behaviour';

/** A form: prompts keyed by id, assigned users and groups one by one (FormPatchBuilder). */
export const formInfo: AspectBehaviour = {
  name: 'formInfo',
  patch: { arrayKeys: { prompts: ['id'] }, inner: { actors: { arrayKeys: { users: [], groups: [] } } }, initial: () => ({ name: '' }) },
};
