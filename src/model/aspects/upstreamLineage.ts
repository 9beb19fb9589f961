import { upstreamEvents } from '../../services/history/change-events';
import type { AspectBehaviour } from './behaviour';
import { fineGrainedColumnEdges } from './fine-grained-lineage';

export const upstreamLineage: AspectBehaviour = {
  name: 'upstreamLineage',
  patch: { arrayKeys: { upstreams: ['dataset'] }, initial: () => ({ upstreams: [] }), fineGrainedLineages: true },
  columnEdges: fineGrainedColumnEdges,
  timeline: { categories: { dataset: ['LINEAGE'] }, changes: (base, target, urn) => upstreamEvents(base, target, urn) },
};
