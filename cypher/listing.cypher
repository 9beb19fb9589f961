// Listings and counts over the catalog: listUrns and getCount. Each walks the entities it counts, found through an index.

// @name listUrns
// Entities of one type that exist (hold their key aspect), ordered by urn: the total and the page [$start, $start + $count).
MATCH (e:Entity {type: $entityType})
USING INDEX e:Entity(type)
WHERE EXISTS { (e)-[:ASPECT]->(:Aspect {name: $keyAspect}) }
WITH e.urn AS urn
ORDER BY urn
WITH collect(urn) AS urns
RETURN size(urns) AS total, urns[$start..($start + $count)] AS page

// @name countAspect
// Entities of $entityTypes (those that carry the aspect) whose latest aspects include $aspect.
UNWIND $entityTypes AS entityType
MATCH (e:Entity {type: entityType})
USING INDEX e:Entity(type)
WHERE EXISTS { (e)-[:ASPECT]->(:Aspect {name: $aspect}) }
RETURN count(e) AS count

// @name countAspectLike
// The same among urns in [$from, $to) (the literal prefix of a urnLike pattern) that match $urnRegex, the pattern itself.
MATCH (e:Entity)
USING INDEX SEEK e:Entity(urn)
WHERE e.urn >= $from AND e.urn < $to AND e.urn =~ $urnRegex AND e.type IN $entityTypes
  AND EXISTS { (e)-[:ASPECT]->(:Aspect {name: $aspect}) }
RETURN count(e) AS count

// @name latestOfType
// The latest value of $aspect of every entity of $entityType: for types with few entities (retention policies), read
// whole.
MATCH (e:Entity {type: $entityType})
USING INDEX e:Entity(type)
MATCH (e)-[:ASPECT]->(a:Aspect {name: $aspect})
RETURN e.urn AS urn, a.value AS value
ORDER BY urn
