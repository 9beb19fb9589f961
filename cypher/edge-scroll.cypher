// Pages of projected edges in (source urn, type, destination urn) order, for the OpenAPI relationship and lineage
// scrolls. $after is the last row of the previous page [source, type, destination] or null; $types, $sourceTypes,
// $destinationTypes, $sourceUrns, $destinationUrns: null = any; $includeRemoved false hides edges with a soft-deleted
// end. An edge projected by several aspects is one row.

// @name fromSources
// Edges leaving the given entities (an index seek per source).
UNWIND $sourceUrns AS sourceUrn
MATCH (s:Entity {urn: sourceUrn})-[r]->(t:Entity)
WHERE ($types IS NULL OR type(r) IN $types)
  AND ($sourceTypes IS NULL OR s.type IN $sourceTypes)
  AND ($destinationTypes IS NULL OR t.type IN $destinationTypes)
  AND ($destinationUrns IS NULL OR t.urn IN $destinationUrns)
WITH DISTINCT s, type(r) AS type, t
WHERE ($after IS NULL OR s.urn > $after[0] OR (s.urn = $after[0] AND (type > $after[1] OR (type = $after[1] AND t.urn > $after[2]))))
  AND ($includeRemoved OR NOT (
        EXISTS { (s)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' } OR
        EXISTS { (t)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' }))
RETURN s.urn AS source, s.type AS sourceType, type, t.urn AS destination, t.type AS destinationType
ORDER BY source, type, destination
LIMIT $count

// @name toDestinations
// Edges reaching the given entities (an index seek per destination).
UNWIND $destinationUrns AS destinationUrn
MATCH (s:Entity)-[r]->(t:Entity {urn: destinationUrn})
WHERE ($types IS NULL OR type(r) IN $types)
  AND ($sourceTypes IS NULL OR s.type IN $sourceTypes)
  AND ($destinationTypes IS NULL OR t.type IN $destinationTypes)
WITH DISTINCT s, type(r) AS type, t
WHERE ($after IS NULL OR s.urn > $after[0] OR (s.urn = $after[0] AND (type > $after[1] OR (type = $after[1] AND t.urn > $after[2]))))
  AND ($includeRemoved OR NOT (
        EXISTS { (s)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' } OR
        EXISTS { (t)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' }))
RETURN s.urn AS source, s.type AS sourceType, type, t.urn AS destination, t.type AS destinationType
ORDER BY source, type, destination
LIMIT $count

// @name all
// Every edge (a scan: the scroll walks the whole graph).
MATCH (s:Entity)-[r]->(t:Entity)
WHERE ($types IS NULL OR type(r) IN $types)
  AND ($sourceTypes IS NULL OR s.type IN $sourceTypes)
  AND ($destinationTypes IS NULL OR t.type IN $destinationTypes)
WITH DISTINCT s, type(r) AS type, t
WHERE ($after IS NULL OR s.urn > $after[0] OR (s.urn = $after[0] AND (type > $after[1] OR (type = $after[1] AND t.urn > $after[2]))))
  AND ($includeRemoved OR NOT (
        EXISTS { (s)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' } OR
        EXISTS { (t)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' }))
RETURN s.urn AS source, s.type AS sourceType, type, t.urn AS destination, t.type AS destinationType
ORDER BY source, type, destination
LIMIT $count

// @name lineageAround
// Lineage edges with either end among $urns. $upstreamTypes: the types whose destination is the upstream end;
// $direction UPSTREAM keeps edges whose downstream end is one of $urns, DOWNSTREAM those whose upstream end is, null both.
UNWIND $urns AS anchorUrn
MATCH (a:Entity {urn: anchorUrn})-[r]-(:Entity)
WHERE type(r) IN $types
WITH DISTINCT startNode(r) AS s, type(r) AS type, endNode(r) AS t
WITH s, type, t, CASE WHEN type IN $upstreamTypes THEN t ELSE s END AS up, CASE WHEN type IN $upstreamTypes THEN s ELSE t END AS down
WHERE ($direction IS NULL OR ($direction = 'UPSTREAM' AND down.urn IN $urns) OR ($direction = 'DOWNSTREAM' AND up.urn IN $urns))
  AND ($after IS NULL OR s.urn > $after[0] OR (s.urn = $after[0] AND (type > $after[1] OR (type = $after[1] AND t.urn > $after[2]))))
  AND ($includeRemoved OR NOT (
        EXISTS { (s)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' } OR
        EXISTS { (t)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' }))
RETURN s.urn AS source, s.type AS sourceType, type, t.urn AS destination, t.type AS destinationType, up.urn AS upstream, down.urn AS downstream
ORDER BY source, type, destination
LIMIT $count

// @name lineageAll
// Every lineage edge.
MATCH (s:Entity)-[r]->(t:Entity)
WHERE type(r) IN $types
WITH DISTINCT s, type(r) AS type, t
WITH s, type, t, CASE WHEN type IN $upstreamTypes THEN t ELSE s END AS up, CASE WHEN type IN $upstreamTypes THEN s ELSE t END AS down
WHERE ($after IS NULL OR s.urn > $after[0] OR (s.urn = $after[0] AND (type > $after[1] OR (type = $after[1] AND t.urn > $after[2]))))
  AND ($includeRemoved OR NOT (
        EXISTS { (s)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' } OR
        EXISTS { (t)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' }))
RETURN s.urn AS source, s.type AS sourceType, type, t.urn AS destination, t.type AS destinationType, up.urn AS upstream, down.urn AS downstream
ORDER BY source, type, destination
LIMIT $count
