import type { AspectBehaviour } from './behaviour';

type Json = Record<string, unknown>;
type FormAssociation = Json & { urn: string };

/** The forms assigned to an entity: incomplete ones and completed ones. */
export const forms: AspectBehaviour = { name: 'forms' };

/**
 * The forms aspect with `formUrn` among its incomplete forms, as DataHub's batchAssignForm leaves it; null when the form
 * is assigned already, complete or not (nothing to write).
 */
export function withFormAssigned(current: Json | null, formUrn: string): Json | null {
  const incomplete = (current?.incompleteForms as FormAssociation[] | undefined) ?? [];
  const completed = (current?.completedForms as FormAssociation[] | undefined) ?? [];
  if ([...incomplete, ...completed].some((f) => f.urn === formUrn)) return null;
  return { ...current, incompleteForms: [...incomplete, { urn: formUrn, incompletePrompts: [], completedPrompts: [] }], completedForms: completed };
}
