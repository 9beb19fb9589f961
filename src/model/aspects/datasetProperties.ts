import { descriptionEvents } from '../../services/history/change-events';
import type { AspectBehaviour } from './behaviour';

export const datasetProperties: AspectBehaviour = {
  name: 'datasetProperties',
  // As DataHub's DatasetPropertiesTemplate: a patch of a missing aspect starts from empty properties and tags.
  patch: { initial: () => ({ customProperties: {}, tags: [] }) },
  entityProperties: { nameField: 'name' },
  timeline: { categories: { dataset: ['DOCUMENTATION'] }, changes: (base, target, urn) => descriptionEvents(base, target, urn) },
};
