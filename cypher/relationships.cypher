// Edges between entities projected from aspects. Edge type = relationship name; property `aspect` = the aspect that projected it.

// @name outgoing
MATCH (s:Entity {urn: $urn})-[r]->(t:Entity)
WHERE size($types) = 0 OR type(r) IN $types
WITH DISTINCT type(r) AS type, t.urn AS entity
ORDER BY type, entity
WITH collect({type: type, entity: entity}) AS rows
RETURN size(rows) AS total, rows[$start..($start + $count)] AS page

// @name incoming
MATCH (s:Entity {urn: $urn})<-[r]-(t:Entity)
WHERE size($types) = 0 OR type(r) IN $types
WITH DISTINCT type(r) AS type, t.urn AS entity
ORDER BY type, entity
WITH collect({type: type, entity: entity}) AS rows
RETURN size(rows) AS total, rows[$start..($start + $count)] AS page
