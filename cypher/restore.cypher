// restoreIndices: reads the latest aspects of a page of entities (their edges are rewritten through the write path).

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
// The edges the entity's aspects own now (`aspect|type|target`) and its column edges (`aspect|source|target`), each
// with the node it passes through after a NUL as the write path keys them: an aspect whose edges are already exactly
// what its value projects needs no write.
CALL (e) {
  // Hinted for the reason given in writes.cypher `lock`.
  OPTIONAL MATCH (f:Entity)-[c:DownstreamOf {owner: e.urn}]->(u:Entity)
  USING INDEX SEEK c:DownstreamOf(owner)
  RETURN collect(c.aspect + '|' + f.urn + '|' + u.urn + coalesce('\u0000' + c.via, '')) AS columnEdges
}
RETURN e.urn AS urn, e.rev AS rev, e.type AS entityType, aspects, columnEdges,
       [(e)-[r]->(t:Entity) WHERE r.aspect IS NOT NULL | r.aspect + '|' + type(r) + '|' + t.urn + coalesce('\u0000' + r.via, '')] AS edges
