/**
 * Column-level lineage as edges between schemaField entities: `fineGrainedLineages[*]` of upstreamLineage (and of
 * dataJobInputOutput) name downstream and upstream schemaField URNs; each (downstream, upstream) pair becomes a
 * DownstreamOf edge from the downstream field, as dataset-level lineage points from the downstream dataset.
 */
export const COLUMN_LINEAGE_ASPECTS = new Set(['upstreamLineage', 'dataJobInputOutput']);

const SCHEMA_FIELD = /^urn:li:schemaField:\(.+,.+\)$/s;

export function columnEdgesOf(aspectName: string, value: Record<string, unknown>): { source: string; target: string }[] {
  if (!COLUMN_LINEAGE_ASPECTS.has(aspectName) || !Array.isArray(value.fineGrainedLineages)) return [];
  const seen = new Set<string>();
  const out: { source: string; target: string }[] = [];
  for (const fgl of value.fineGrainedLineages as Record<string, unknown>[]) {
    const downstreams = Array.isArray(fgl?.downstreams) ? fgl.downstreams : [];
    const upstreams = Array.isArray(fgl?.upstreams) ? fgl.upstreams : [];
    for (const d of downstreams) {
      for (const u of upstreams) {
        if (typeof d !== 'string' || typeof u !== 'string' || !SCHEMA_FIELD.test(d) || !SCHEMA_FIELD.test(u) || d === u) continue;
        const key = `${d}|${u}`;
        if (!seen.has(key)) {
          seen.add(key);
          out.push({ source: d, target: u });
        }
      }
    }
  }
  return out;
}
