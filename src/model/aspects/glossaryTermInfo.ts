import type { AspectBehaviour } from './behaviour';

export const glossaryTermInfo: AspectBehaviour = {
  name: 'glossaryTermInfo',
  entityProperties: { nameField: 'name' },
  // Glossary term snapshots also carry their ownership and glossaryTermInfo as direct members.
  snapshotMembers: ['ownership', 'glossaryTermInfo'],
};
