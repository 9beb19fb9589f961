/** One-time data migrations of databases written by earlier versions, each recorded as a :Migration node once done (cypher/migrations.cypher). */
export const MIGRATIONS = {
  /** Latest aspects carry runId and lastObserved (run-store). */
  runIndex: 'aspectRunIndex',
  /** Every entity carries the soft-delete flag `removed` on its node (lineage-store flags those written before). */
  softDeleteFlag: 'entitySoftDeleteFlag',
} as const;
