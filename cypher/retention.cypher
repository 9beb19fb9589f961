// Applying retention policies to history already stored (entities?action=applyRetention), outside any write of the
// aspects: a policy tightened after they were written otherwise trims them only at their next write.

// @name historyPage
// A page of entities in urn order, [$start, $start + $count) (one urn when $urn is set), each latest aspect with history
// (one name when $aspect is set) and its number of history versions. Paged by entity, so the urn index gives the order.
MATCH (e:Entity)
WHERE ($urn IS NULL OR e.urn = $urn)
WITH e ORDER BY e.urn SKIP $start LIMIT $count
OPTIONAL MATCH (e)-[:ASPECT]->(l:Aspect)
WHERE $aspect IS NULL OR l.name = $aspect
WITH e, l, CASE WHEN l IS NULL THEN 0 ELSE COUNT { MATCH (h:Aspect {urn: e.urn, name: l.name}) WHERE h.version > 0 } END AS history
RETURN e.urn AS urn, e.type AS type, collect(CASE WHEN history > 0 THEN {name: l.name, history: history} END) AS aspects
ORDER BY urn

// @name trim
// Per target, history versions beyond the `keep` newest go, and with a `horizon` those superseded before it except the
// one current then (as the write path trims: cypher/writes.cypher `cuts`, `horizons`). The entity's rev is bumped
// first: it takes the entity's write lock, and a write planned from a state this process kept is planned again. The
// latest node then says its history was trimmed (as-of reads before what is left are refused).
UNWIND $targets AS t
MATCH (e:Entity {urn: t.urn})
SET e.rev = coalesce(e.rev, 0) + 1
WITH e, t
CALL (e, t) {
  MATCH (old:Aspect {urn: t.urn, name: t.name})
  WHERE old.version > 0
  WITH old ORDER BY old.version DESC
  WITH collect(old) AS history
  WITH history,
       CASE WHEN t.keep IS NULL THEN [] ELSE history[toInteger(t.keep)..] END AS beyond,
       CASE WHEN t.horizon IS NULL THEN [] ELSE [h IN history WHERE h.createdTime <= t.horizon] END AS aged
  WITH beyond, CASE WHEN size(aged) > 1 THEN aged[1..] ELSE [] END AS superseded
  WITH superseded + [x IN beyond WHERE NOT x IN superseded] AS gone
  FOREACH (g IN gone | DETACH DELETE g)
  RETURN size(gone) AS deleted
}
WITH e, t, deleted
CALL (e, t, deleted) {
  WITH e WHERE deleted > 0
  MATCH (e)-[:ASPECT]->(l:Aspect {name: t.name})
  WHERE l.historyTrimmed IS NULL
  SET l.historyTrimmed = true
}
RETURN sum(deleted) AS deleted
