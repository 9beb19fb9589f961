import { descriptionEvents } from '../../services/history/change-events';
import type { AspectBehaviour } from './behaviour';

export const datasetProperties: AspectBehaviour = {
  name: 'datasetProperties',
  patch: { initial: () => ({ customProperties: {} }) },
  entityProperties: { nameField: 'name' },
  timeline: { categories: { dataset: ['DOCUMENTATION'] }, changes: (base, target, urn) => descriptionEvents(base, target, urn) },
};
