import { editableSchemaEvents } from '../../services/history/change-events';
import type { AspectBehaviour } from './behaviour';

export const editableSchemaMetadata: AspectBehaviour = {
  name: 'editableSchemaMetadata',
  timeline: { categories: { dataset: ['TAG', 'DOCUMENTATION', 'GLOSSARY_TERM'] }, changes: editableSchemaEvents },
};
