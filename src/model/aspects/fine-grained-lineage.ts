/**
 * Column-level lineage as edges between schemaField entities: `fineGrainedLineages[*]` name downstream and upstream
 * schemaField URNs; each (downstream, upstream) pair becomes a DownstreamOf edge from the downstream field, as
 * dataset-level lineage points from the downstream dataset.
 */
export function fineGrainedColumnEdges(value: Record<string, unknown>, namespace: string): { source: string; target: string }[] {
  if (!Array.isArray(value.fineGrainedLineages)) return [];
  // A namespace is alphanumeric (see tryParseUrn): nothing in it to escape.
  const field = new RegExp(`^urn:${namespace}:schemaField:\\(.+,.+\\)$`, 's');
  const isField = (u: unknown): u is string => typeof u === 'string' && field.test(u);
  const seen = new Set<string>();
  const out: { source: string; target: string }[] = [];
  for (const fgl of value.fineGrainedLineages as Record<string, unknown>[]) {
    const downstreams = Array.isArray(fgl?.downstreams) ? fgl.downstreams : [];
    const upstreams = Array.isArray(fgl?.upstreams) ? fgl.upstreams : [];
    for (const d of downstreams) {
      for (const u of upstreams) {
        if (!isField(d) || !isField(u) || d === u) continue;
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
