import { schemaEvents } from '../../services/history/change-events';
import type { AspectBehaviour } from './behaviour';

export const schemaMetadata = {
  name: 'schemaMetadata',
  /** The field paths the schema declares (a field's deprecation must name one). */
  fieldPaths: (value: Record<string, unknown>): string[] =>
    ((value.fields as { fieldPath?: unknown }[] | undefined) ?? []).flatMap((f) => (typeof f?.fieldPath === 'string' ? [f.fieldPath] : [])),
  timeline: { categories: { dataset: ['TAG', 'DOCUMENTATION', 'TECHNICAL_SCHEMA'] }, changes: schemaEvents },
} satisfies AspectBehaviour;
