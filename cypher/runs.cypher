// Ingestion runs, read from the latest aspect nodes: each carries the runId and lastObserved of the system metadata it
// was last written or observed with (set by cypher/writes.cypher, indexed by schema/aspectRunIndex), unless that run id
// was the default one (proposals sent without a run id: no run). An entity is
// soft-deleted when its status aspect says removed.

// @fragment latestRunAspects
// Latest aspects carrying a run id other than the default one (proposals sent without one: no run), grouped per (run,
// entity) as the run index answers them, in runId and urn order.
MATCH (a:Aspect)
WHERE a.runId IS NOT NULL AND a.urn >= '' AND a.runId <> $defaultRunId AND a.version = 0
WITH a.runId AS runId, a.urn AS urn, count(*) AS rows, max(a.lastObserved) AS timestamp

// @fragment newestRunsPage
WITH runId, sum(rows) AS rows, max(timestamp) AS timestamp
RETURN runId, rows, timestamp
ORDER BY timestamp DESC, runId
SKIP $offset LIMIT $limit

// @name list
// Runs with how many latest aspects they hold and when they last wrote, newest first, leaving out the aspects of
// soft-deleted entities. Each entity's status is looked up once per run (one index seek), not once per aspect through
// its entity (which also missed the status aspect itself: a pattern cannot traverse the aspect's own relationship twice).
// For a database whose entities all carry the soft-delete flag, `listByFlag`.
{{> latestRunAspects}}
WHERE NOT EXISTS {
  MATCH (s:Aspect {urn: urn, name: $statusAspect, version: 0}) WHERE s.value CONTAINS '"removed":true'
}
{{> newestRunsPage}}

// @name listByFlag
// `list` once every entity carries the soft-delete flag (writes keep it; lineage-store flags entities of databases
// written before): the entity's flag is one unique-index seek and a property, where its status aspect's value is a
// string read from the property store and searched.
{{> latestRunAspects}}
MATCH (e:Entity {urn: urn})
WHERE e.removed IS NULL
{{> newestRunsPage}}

// @name listIncludingSoftDeleted
// Runs as `list` counts them, soft-deleted entities included: grouped per run straight from the run index.
MATCH (a:Aspect)
WHERE a.runId IS NOT NULL AND a.urn >= '' AND a.runId <> $defaultRunId AND a.version = 0
WITH a.runId AS runId, count(*) AS rows, max(a.lastObserved) AS timestamp
RETURN runId, rows, timestamp
ORDER BY timestamp DESC, runId
SKIP $offset LIMIT $limit

// @name describe
// One page of a run's latest aspects in (urn, name) order.
MATCH (a:Aspect)
WHERE a.runId = $runId AND a.urn >= '' AND a.version = 0
  AND ($includeSoft OR NOT EXISTS {
    MATCH (s:Aspect {urn: a.urn, name: $statusAspect, version: 0}) WHERE s.value CONTAINS '"removed":true'
  })
RETURN a.urn AS urn, a.name AS name, a.lastObserved AS lastObserved, CASE WHEN $includeAspect THEN a.value END AS value
ORDER BY urn, name
SKIP $start LIMIT $count

// @name entities
// The next entities (urn order, after $after) holding latest aspects of the run, each with every latest aspect it has
// (name, runId, hash, lastObserved): the rollback needs to know which of them other runs wrote; and whether the entity
// is soft-deleted (a safe rollback leaves those alone, as DataHub's).
MATCH (a:Aspect)
WHERE a.runId = $runId AND a.urn > $after AND a.version = 0
WITH DISTINCT a.urn AS urn
ORDER BY urn
LIMIT $limit
MATCH (e:Entity {urn: urn})-[:ASPECT]->(l:Aspect)
WITH urn, e, collect({name: l.name, runId: l.runId, hash: l.hash, lastObserved: l.lastObserved}) AS aspects
RETURN urn, e.type AS entityType, aspects,
       EXISTS { MATCH (s:Aspect {urn: urn, name: $statusAspect, version: 0}) WHERE s.value CONTAINS '"removed":true' } AS removed
ORDER BY urn

// @name history
// History versions of aspects, newest first.
UNWIND $aspects AS x
MATCH (h:Aspect {urn: x.urn, name: x.name})
WHERE h.version > 0
RETURN x.urn AS urn, x.name AS name, h.version AS version, h.value AS value, h.hash AS hash,
       h.createdTime AS createdTime, h.createdActor AS createdActor, h.systemMetadata AS systemMetadata
ORDER BY urn, name, version DESC

// @name unindexedPage
// Backfill of runId/lastObserved on latest aspects written before they were kept (databases of earlier versions):
// the latest aspects without runId of the next entities in urn order.
MATCH (e:Entity)
WHERE e.urn > $after
WITH e ORDER BY e.urn LIMIT $limit
OPTIONAL MATCH (e)-[:ASPECT]->(a:Aspect)
WHERE a.runId IS NULL
RETURN e.urn AS urn, collect({id: elementId(a), systemMetadata: a.systemMetadata}) AS aspects
ORDER BY urn

// @name indexRuns
UNWIND $rows AS x
MATCH (a:Aspect) WHERE elementId(a) = x.id
SET a.runId = coalesce(a.runId, x.runId), a.lastObserved = coalesce(a.lastObserved, x.lastObserved)
