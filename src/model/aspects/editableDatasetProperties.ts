import { descriptionEvents } from '../../services/history/change-events';
import type { AspectBehaviour } from './behaviour';

export const editableDatasetProperties: AspectBehaviour = {
  name: 'editableDatasetProperties',
  timeline: { categories: { dataset: ['DOCUMENTATION'] }, changes: (base, target, urn) => descriptionEvents(base, target, urn) },
};
