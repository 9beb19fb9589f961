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

// @name outgoingMany
// `outgoing` for several requests that arrived together: one row per item with edges (none for the others).
UNWIND $items AS item
CALL (item) {
  MATCH (s:Entity {urn: item.urn})-[r]->(t:Entity)
  WHERE size(item.types) = 0 OR type(r) IN item.types
  WITH DISTINCT type(r) AS type, t.urn AS entity
  ORDER BY type, entity
  RETURN collect({type: type, entity: entity}) AS rows
}
RETURN item.key AS key, size(rows) AS total, rows[item.start..(item.start + item.count)] AS page

// @name incomingMany
// `incoming` for several requests that arrived together.
UNWIND $items AS item
CALL (item) {
  MATCH (s:Entity {urn: item.urn})<-[r]-(t:Entity)
  WHERE size(item.types) = 0 OR type(r) IN item.types
  WITH DISTINCT type(r) AS type, t.urn AS entity
  ORDER BY type, entity
  RETURN collect({type: type, entity: entity}) AS rows
}
RETURN item.key AS key, size(rows) AS total, rows[item.start..(item.start + item.count)] AS page
