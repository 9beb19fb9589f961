// Multi-hop lineage, walked breadth-first by LineageStore one hop (one statement) at a time: the visited set, parents
// (one shortest path each), bounds, filters, order and page are kept in the service. {{fwd}}/{{back}} (the lineage
// relationship names stored along / against the walk direction; a name no edge has when there are none) are filled
// in by the store: relationship types cannot be parameters. Everything a caller sends is a parameter.

// @name hop
// One hop from $frontier (urns): every lineage neighbour in the walk direction of the kind walked ($columns:
// schemaField nodes only, else every node but schemaFields), once, with the index in $frontier of one parent (the
// first), how many lineage edges lead on from it (the fan-out and max-hops rules) and whether it is soft-deleted.
// Neighbours already visited come back too (the caller skips them): sending the visited set would cost more.
UNWIND range(0, size($frontier) - 1) AS i
MATCH (a:Entity {urn: $frontier[i]})
CALL (a) {
  MATCH (a)-[:{{fwd}}]->(b:Entity)
  RETURN b
  UNION ALL
  MATCH (a)<-[:{{back}}]-(b:Entity)
  RETURN b
}
WITH b, min(i) AS parent
WHERE (b.type = 'schemaField') = $columns
RETURN b.urn AS urn, b.type AS type, parent,
       COUNT { (b)<-[:{{back}}]-() } + COUNT { (b)-[:{{fwd}}]->() } AS onward,
       EXISTS { (b)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' } AS removed

// @name page
// The page's entities with the aspects the clients read ($urns, in page order), and the start's type (for the paths).
MATCH (s:Entity {urn: $urn})
CALL () {
  UNWIND $urns AS u
  MATCH (n:Entity {urn: u})
  RETURN collect({urn: u, aspects: [(n)-[:ASPECT]->(a:Aspect) WHERE a.name IN $aspects | {name: a.name, value: a.value}]}) AS page
}
RETURN s.type AS startType, page
