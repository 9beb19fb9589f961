// Versioned aspects. Latest value = version 0, linked from its entity by :ASPECT; history = versions 1..N (oldest first).
// Every write bumps Entity.rev (never below $revFloor = now in µs, so it keeps growing across a hard delete and re-create): it
// serializes writers of one entity (write lock) and is the external version of its search document.

// @name upsert
// One proposal in one statement. $defaults = aspects created only when missing (key aspect, default browsePaths).
// $edges = [{type, target, targetType, isLineage}] projected from the new value; $edgeKeys = ["<type>|<target>", …].
MERGE (e:Entity {urn: $urn})
  ON CREATE SET e.type = $entityType, e.createdAt = $now
SET e.rev = CASE WHEN coalesce(e.rev, 0) >= $revFloor THEN e.rev + 1 ELSE $revFloor END, e.placeholder = null
WITH e
OPTIONAL MATCH (e)-[:ASPECT]->(latest:Aspect {name: $name})
WITH e, latest, (latest IS NOT NULL AND latest.hash = $hash) AS unchanged
CALL (latest, unchanged) {
  WITH latest WHERE unchanged
  SET latest.systemMetadata = $systemMetadata
}
CALL (latest, unchanged) {
  WITH latest WHERE latest IS NOT NULL AND NOT unchanged
  OPTIONAL MATCH (h:Aspect {urn: $urn, name: $name}) WHERE h.version > 0
  WITH latest, coalesce(max(h.version), 0) + 1 AS next
  CREATE (:Aspect {urn: $urn, name: $name, version: next, value: latest.value, hash: latest.hash,
                   createdTime: latest.createdTime, createdActor: latest.createdActor, systemMetadata: latest.systemMetadata})
  SET latest.value = $value, latest.hash = $hash, latest.createdTime = $now, latest.createdActor = $actor,
      latest.systemMetadata = $systemMetadata
  WITH next
  MATCH (old:Aspect {urn: $urn, name: $name}) WHERE old.version > 0 AND old.version <= next - $retention
  DETACH DELETE old
}
CALL (e, latest) {
  WITH e WHERE latest IS NULL
  CREATE (e)-[:ASPECT]->(:Aspect {urn: $urn, name: $name, version: 0, value: $value, hash: $hash, createdTime: $now,
                                  createdActor: $actor, systemMetadata: $systemMetadata})
}
CALL (e, unchanged) {
  WITH e WHERE NOT unchanged
  MATCH (e)-[r]->(t:Entity) WHERE r.aspect = $name AND NOT (type(r) + '|' + t.urn) IN $edgeKeys
  DELETE r
}
CALL (e, unchanged) {
  WITH e WHERE NOT unchanged
  UNWIND $edges AS edge
  MERGE (t:Entity {urn: edge.target})
    ON CREATE SET t.type = edge.targetType, t.createdAt = $now, t.placeholder = true
  MERGE (e)-[r:$(edge.type) {aspect: $name}]->(t)
  SET r.isLineage = edge.isLineage
}
CALL (e, unchanged) {
  WITH e WHERE NOT unchanged
  MATCH (:Entity)-[r:DownstreamOf {owner: $urn}]->(:Entity)
  WHERE r.aspect = $name AND NOT (startNode(r).urn + '|' + endNode(r).urn) IN $columnEdgeKeys
  DELETE r
}
CALL (e, unchanged) {
  WITH e WHERE NOT unchanged
  UNWIND $columnEdges AS c
  MERGE (f:Entity {urn: c.source})
    ON CREATE SET f.type = 'schemaField', f.createdAt = $now, f.placeholder = true
  MERGE (u:Entity {urn: c.target})
    ON CREATE SET u.type = 'schemaField', u.createdAt = $now, u.placeholder = true
  MERGE (f)-[r:DownstreamOf {aspect: $name, owner: $urn}]->(u)
  SET r.isLineage = true
}
CALL (e) {
  UNWIND $defaults AS d
  OPTIONAL MATCH (e)-[:ASPECT]->(existing:Aspect {name: d.name})
  WITH e, d WHERE existing IS NULL
  CREATE (e)-[:ASPECT]->(:Aspect {urn: $urn, name: d.name, version: 0, value: d.value, hash: d.hash, createdTime: $now,
                                  createdActor: $actor, systemMetadata: $systemMetadata})
}
CALL (e, unchanged) {
  WITH e WHERE NOT unchanged
  MERGE (o:Outbox {urn: $urn, ns: $ns})
  SET o.rev = e.rev, o.updatedAt = $now, o.claimUntil = 0
}
RETURN unchanged, e.rev AS rev

// @name deleteAspect
// Removes one aspect (all versions) and the edges it projected (column-level ones included).
MATCH (e:Entity {urn: $urn})
SET e.rev = CASE WHEN coalesce(e.rev, 0) >= $revFloor THEN e.rev + 1 ELSE $revFloor END
WITH e
OPTIONAL MATCH (a:Aspect {urn: $urn, name: $name})
WITH e, collect(a) AS versions
CALL (e) {
  MATCH (e)-[r]->(:Entity) WHERE r.aspect = $name
  DELETE r
}
CALL () {
  MATCH (:Entity)-[r:DownstreamOf {owner: $urn}]->(:Entity) WHERE r.aspect = $name
  DELETE r
}
FOREACH (a IN versions | DETACH DELETE a)
MERGE (o:Outbox {urn: $urn, ns: $ns})
SET o.rev = e.rev, o.updatedAt = $now, o.claimUntil = 0
RETURN size(versions) AS rows

// @name lockForPatch
// A PATCH's read: write-locks the entity first (the SET), so the value read stays current until the write commits.
MERGE (e:Entity {urn: $urn})
  ON CREATE SET e.type = $entityType, e.createdAt = $now, e.placeholder = true
SET e.patchLock = true
REMOVE e.patchLock
WITH e
OPTIONAL MATCH (e)-[:ASPECT]->(a:Aspect {name: $name})
RETURN a.value AS value

// @name deleteEntity
// Hard delete: every aspect version and outgoing edge. The node stays as a placeholder while others still point at it.
MATCH (e:Entity {urn: $urn})
SET e.rev = CASE WHEN coalesce(e.rev, 0) >= $revFloor THEN e.rev + 1 ELSE $revFloor END
WITH e
OPTIONAL MATCH (a:Aspect {urn: $urn})
WITH e, collect(a) AS versions
FOREACH (a IN versions | DETACH DELETE a)
WITH e, size(versions) AS rows
CALL (e) {
  MATCH (e)-[r]->(:Entity)
  DELETE r
}
CALL () {
  MATCH (:Entity)-[r:DownstreamOf {owner: $urn}]->(:Entity)
  DELETE r
}
MERGE (o:Outbox {urn: $urn, ns: $ns})
SET o.rev = e.rev, o.updatedAt = $now, o.claimUntil = 0
WITH e, rows, COUNT { (e)<--(:Entity) } AS incoming
CALL (e, incoming) {
  WITH e WHERE incoming = 0
  DELETE e
}
CALL (e, incoming) {
  WITH e WHERE incoming > 0
  SET e.placeholder = true
}
RETURN rows

// @name latest
// Latest aspects of one entity; $names null = all.
MATCH (e:Entity {urn: $urn})-[:ASPECT]->(a:Aspect)
WHERE $names IS NULL OR a.name IN $names
RETURN a.name AS name, a.value AS value, a.createdTime AS createdTime, a.createdActor AS createdActor,
       a.systemMetadata AS systemMetadata

// @name latestMany
// Latest aspects of many entities in one round trip.
UNWIND $urns AS urn
MATCH (e:Entity {urn: urn})-[:ASPECT]->(a:Aspect)
WHERE $names IS NULL OR a.name IN $names
RETURN urn, e.rev AS rev, e.type AS entityType, collect({name: a.name, value: a.value}) AS aspects

// @name exactVersion
MATCH (a:Aspect {urn: $urn, name: $name, version: $version})
RETURN a.version AS version, a.value AS value, a.createdTime AS createdTime, a.createdActor AS createdActor,
       a.systemMetadata AS systemMetadata

// @name maxHistoryVersion
MATCH (a:Aspect {urn: $urn, name: $name})
WHERE a.version > 0
RETURN max(a.version) AS top

// @name historyVersions
MATCH (a:Aspect {urn: $urn, name: $name})
WHERE a.version > 0
RETURN a.version AS version, a.value AS value
ORDER BY version

// @name existing
// Which of these URNs are entities with at least one stored aspect (search hits are checked against it).
UNWIND $urns AS urn
MATCH (e:Entity {urn: urn})-[:ASPECT]->()
RETURN DISTINCT urn
