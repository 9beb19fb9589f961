// restoreIndices: reads the latest aspects of a page of entities and rewrites the edges projected from them.

// @name page
// A page of entities ordered by urn, each with its latest aspects. Filters: $urn (exact), $aspect (entities holding it),
// $urnRegex (a urnLike pattern, null for none). [$from, $to) bounds the urns (the literal prefix of the pattern, or
// everything) so the urn index seeks the range; $after is a keyset cursor ('' = none) and $skip/$limit page by offset.
MATCH (e:Entity)
WHERE e.urn >= $from AND e.urn < $to AND e.urn <> $after
  AND ($urn IS NULL OR e.urn = $urn)
  AND ($urnRegex IS NULL OR e.urn =~ $urnRegex)
  AND EXISTS { (e)-[:ASPECT]->(:Aspect) }
  AND ($aspect IS NULL OR EXISTS { (e)-[:ASPECT]->(:Aspect {name: $aspect}) })
WITH e
ORDER BY e.urn
SKIP $skip
LIMIT $limit
CALL (e) {
  MATCH (e)-[:ASPECT]->(a:Aspect)
  RETURN collect({name: a.name, value: a.value, hash: a.hash}) AS aspects
}
RETURN e.urn AS urn, e.rev AS rev, e.type AS entityType, aspects

// @name rewriteEdges
// $rows = [{urn, aspects: [{aspect, hash, edges: [{type, target, targetType, isLineage}], edgeKeys: ["<type>|<target>", …]}]}]: per
// entity, the edges each of its aspects projects, rewritten as the upsert does. The entity is locked first (as writers
// lock it), and an aspect that changed since it was read is skipped: the newer write already projected its own edges.
UNWIND $rows AS row
MATCH (e:Entity {urn: row.urn})
SET e.restoredAt = $now
WITH e, row
UNWIND row.aspects AS item
MATCH (e)-[:ASPECT]->(a:Aspect {name: item.aspect})
WHERE a.hash = item.hash
CALL (e, item) {
  MATCH (e)-[r]->(t:Entity)
  WHERE r.aspect = item.aspect AND NOT (type(r) + '|' + t.urn) IN item.edgeKeys
  DELETE r
}
CALL (e, item) {
  // A missing edge is CREATEd (e is locked, so the check is exact), not MERGEd: planned on a small graph, the MERGE of
  // a relationship with a dynamic type scanned every relationship in the database for each edge.
  UNWIND item.edges AS edge
  MERGE (t:Entity {urn: edge.target})
    ON CREATE SET t.type = edge.targetType, t.createdAt = $now, t.placeholder = true
  WITH e, item, edge, t, [(e)-[x]->(other:Entity) WHERE other.urn = edge.target AND type(x) = edge.type AND x.aspect = item.aspect | x] AS existing
  FOREACH (x IN existing | SET x.isLineage = edge.isLineage)
  WITH e, item, edge, t WHERE size(existing) = 0
  CREATE (e)-[r:$(edge.type)]->(t)
  SET r.aspect = item.aspect, r.isLineage = edge.isLineage
}
RETURN count(item) AS applied, sum(size(item.edges)) AS edges
