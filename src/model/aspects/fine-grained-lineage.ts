/**
 * Column-level lineage as edges between schemaField entities: `fineGrainedLineages[*]` name downstream and upstream
 * schemaField URNs; each (downstream, upstream) pair becomes a DownstreamOf edge from the downstream field, as
 * dataset-level lineage points from the downstream dataset. A dataset's entry may name the query it comes from: its
 * edges pass through it (`via`, the first one named when a pair repeats), as DataHub's graph index keeps them.
 */
export function fineGrainedColumnEdges(value: Record<string, unknown>, namespace: string): { source: string; target: string; via?: string }[] {
  return columnEdgesOf(value, namespace, true);
}

/**
 * A data job's column lineage: its edges pass through the job itself, which owns them (the lineage walk reads the
 * owner; DataHub's graph index ignores a job's query there too).
 */
export function jobColumnEdges(value: Record<string, unknown>, namespace: string): { source: string; target: string }[] {
  return columnEdgesOf(value, namespace, false);
}

function columnEdgesOf(value: Record<string, unknown>, namespace: string, viaQuery: boolean): { source: string; target: string; via?: string }[] {
  if (!Array.isArray(value.fineGrainedLineages)) return [];
  // A namespace is alphanumeric (see tryParseUrn): nothing in it to escape.
  const field = new RegExp(`^urn:${namespace}:schemaField:\\(.+,.+\\)$`, 's');
  const isField = (u: unknown): u is string => typeof u === 'string' && field.test(u);
  const seen = new Set<string>();
  const out: { source: string; target: string; via?: string }[] = [];
  for (const fgl of value.fineGrainedLineages as Record<string, unknown>[]) {
    const via = viaQuery && typeof fgl?.query === 'string' ? fgl.query : undefined;
    const downstreams = Array.isArray(fgl?.downstreams) ? fgl.downstreams : [];
    const upstreams = Array.isArray(fgl?.upstreams) ? fgl.upstreams : [];
    for (const d of downstreams) {
      for (const u of upstreams) {
        if (!isField(d) || !isField(u) || d === u) continue;
        const key = `${d}|${u}`;
        if (!seen.has(key)) {
          seen.add(key);
          out.push(via ? { source: d, target: u, via } : { source: d, target: u });
        }
      }
    }
  }
  return out;
}
