// Multi-hop lineage. {{left}}/{{right}} (arrow ends: directed when every lineage type is stored one way, which lets
// Neo4j prune while it walks), {{types}} (every lineage relationship name of the model), {{back}}/{{fwd}} (those stored against
// / along the traversal direction) and {{hops}} (a validated integer) are filled in by the store: relationship types and
// quantifier bounds cannot be parameters. Everything a caller sends is a parameter.

// @name traverse
// Breadth-first (ANY SHORTEST = one shortest path per reached node, so cycles terminate and degree = hops). A node with
// more than $fanOut lineage edges onward is reached but not expanded (the start always is); $visitCap bounds the nodes
// visited. Filters ($groups: OR of {degrees, types, platforms, includeRemoved}) apply to the reached nodes; the page is
// hydrated with the aspects the clients read.
MATCH (s:Entity {urn: $urn})
CALL (s) {
  MATCH p = ANY SHORTEST (s) ((a:Entity WHERE a = s OR COUNT { (a)<-[:{{back}}]-() } + COUNT { (a)-[:{{fwd}}]->() } <= $fanOut)
                             {{left}}[r:{{types}}]{{right}}(b:Entity WHERE (b.type = 'schemaField') = $columns)
                             WHERE (startNode(r) = a) = (type(r) IN $forward)){1,{{hops}}} (x:Entity)
  WHERE x <> s
  RETURN x, length(p) AS degree, p
  LIMIT $visitCap + 1
}
WITH x, degree, p, COUNT { (x)<-[:{{back}}]-() } + COUNT { (x)-[:{{fwd}}]->() } AS onward,
     EXISTS { (x)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' } AS removed
WITH x, degree, p, onward, removed ORDER BY degree, x.urn
WITH collect({x: x, degree: degree, p: p, onward: onward, removed: removed}) AS visited
// One node past the cap tells a cut traversal from one that just fits.
WITH visited[0..$visitCap] AS visited, size(visited) > $visitCap AS visitCut
WITH visited, visitCut,
     any(v IN visited WHERE v.degree < $maxHops AND v.onward > $fanOut) AS fanOutCut,
     any(v IN visited WHERE v.degree = $maxHops AND v.onward > 0) AS hopsCut
WITH visitCut, fanOutCut, hopsCut,
     [v IN visited WHERE any(g IN $groups WHERE
        (g.degrees IS NULL OR v.degree IN g.degrees) AND
        (g.types IS NULL OR v.x.type IN g.types) AND
        (g.platforms IS NULL OR any(pl IN g.platforms WHERE v.x.urn CONTAINS ('(' + pl + ','))) AND
        (g.includeRemoved OR NOT v.removed))
     ] AS matched
CALL (matched) {
  UNWIND matched[$start..($start + $count)] AS v
  WITH v, v.x AS n
  RETURN collect({
    urn: n.urn, type: n.type, degree: v.degree,
    path: [m IN nodes(v.p) | {urn: m.urn, type: m.type}],
    aspects: [(n)-[:ASPECT]->(a:Aspect) WHERE a.name IN $aspects | {name: a.name, value: a.value}]
  }) AS page
}
RETURN size(matched) AS total, visitCut, fanOutCut, hopsCut, page
