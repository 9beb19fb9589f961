// Reads behind search hits: the deleted-hit guard (src/services/search/deleted-hit-guard.ts).

// @name deletions
// Hard deletes the index may still show: outbox entries (pending, or applied and kept for the grace period) whose entity
// has no aspect left. At most $limit entries are looked at; `scanned` = $limit means there may be more.
MATCH (o:Outbox)
WHERE o.ns = $ns
WITH o LIMIT $limit
WITH collect(o.urn) AS urns
RETURN size(urns) AS scanned, [urn IN urns WHERE NOT EXISTS { (:Entity {urn: urn})-[:ASPECT]->() }] AS deleted

// @name existing
// Which of these URNs are entities with at least one stored aspect (the guard's fallback, checked after the engine).
UNWIND $urns AS urn
MATCH (e:Entity {urn: urn})-[:ASPECT]->()
RETURN DISTINCT urn
