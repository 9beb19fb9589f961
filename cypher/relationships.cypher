// Edges between entities projected from aspects. Edge type = relationship name; property `aspect` = the aspect that projected it.

// @name outgoingMany
// One page of outgoing edges (distinct type + target, ordered) for each of several requests that arrived together:
// `total` counts them all, `page` is rows [start, start + count), each `type|target` (a type has no `|`): one string
// per row decodes in the driver at two thirds of the CPU of a {type, entity} map. Items with no edges come back with
// an empty page.
UNWIND $items AS item
CALL (item) {
  MATCH (s:Entity {urn: item.urn})-[r]->(t:Entity)
  WHERE size(item.types) = 0 OR type(r) IN item.types
  WITH DISTINCT type(r) AS type, t.urn AS entity
  ORDER BY type, entity
  RETURN collect(type + '|' + entity) AS rows
}
RETURN item.key AS key, size(rows) AS total, rows[item.start..(item.start + item.count)] AS page

// @name incomingMany
// The same page of incoming edges.
UNWIND $items AS item
CALL (item) {
  MATCH (s:Entity {urn: item.urn})<-[r]-(t:Entity)
  WHERE size(item.types) = 0 OR type(r) IN item.types
  WITH DISTINCT type(r) AS type, t.urn AS entity
  ORDER BY type, entity
  RETURN collect(type + '|' + entity) AS rows
}
RETURN item.key AS key, size(rows) AS total, rows[item.start..(item.start + item.count)] AS page
