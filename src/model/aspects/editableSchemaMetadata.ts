import { editableSchemaEvents } from '../../services/history/change-events';
import { unknownStamp } from './audit-stamp';
import type { AspectBehaviour } from './behaviour';

export const editableSchemaMetadata: AspectBehaviour = {
  name: 'editableSchemaMetadata',
  // Fields by fieldPath, and within each its tags and terms (DatasetPatchBuilder.for_field(...).add_tag / add_term).
  patch: {
    arrayKeys: { editableSchemaFieldInfo: ['fieldPath'] },
    inner: {
      editableSchemaFieldInfo: {
        inner: {
          globalTags: { arrayKeys: { tags: ['tag'] } },
          glossaryTerms: { arrayKeys: { terms: ['urn'] }, complete: (terms, ns) => void (terms.auditStamp ??= unknownStamp(ns)) },
        },
      },
    },
    initial: (ns) => ({ editableSchemaFieldInfo: [], created: unknownStamp(ns) }),
  },
  timeline: { categories: { dataset: ['TAG', 'DOCUMENTATION', 'GLOSSARY_TERM'] }, changes: editableSchemaEvents },
};
