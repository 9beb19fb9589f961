// Versioned aspects. Latest value = version 0, linked from its entity by :ASPECT; history = versions 1..N (oldest first).
// Reads only: every write goes through cypher/writes.cypher, which bumps Entity.rev (never below now in µs, so it keeps
// growing across a hard delete and re-create): that serializes writers of one entity and versions its search document.

// @name latestUnlessRev
// Latest aspects of several entities (requests that arrived together), each unless its rev is still item.knownRev: a
// cached copy is current, and aspects come back empty. rev is read before the aspects, so a write committing in between
// makes the copy stale, never the rev. An entity that does not exist has no row.
UNWIND $items AS item
MATCH (e:Entity {urn: item.urn})
WITH item, e, e.rev AS rev
RETURN item.key AS key, rev,
       [(e)-[:ASPECT]->(a:Aspect) WHERE rev <> item.knownRev AND (item.names IS NULL OR a.name IN item.names) |
        {name: a.name, value: a.value, createdTime: a.createdTime, createdActor: a.createdActor,
         systemMetadata: a.systemMetadata}] AS aspects

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
