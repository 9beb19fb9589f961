import type { AspectBehaviour } from './behaviour';

export const glossaryTermInfo: AspectBehaviour = {
  name: 'glossaryTermInfo',
  // Glossary term snapshots also carry their ownership and glossaryTermInfo as direct members.
  snapshotMembers: ['ownership', 'glossaryTermInfo'],
};
