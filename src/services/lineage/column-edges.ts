import { ASPECT_BEHAVIOURS } from '../../model/aspects';

/** Aspects whose values imply column-level lineage (their behaviour has columnEdges). */
export const COLUMN_LINEAGE_ASPECTS: ReadonlySet<string> = new Set([...ASPECT_BEHAVIOURS.values()].filter((b) => b.columnEdges).map((b) => b.name));
