// The search outbox: one node per entity whose search document is stale, written in the same transaction as the
// aspect change. `ns` is the index set (SEARCH_INDEX_PREFIX) that consumes the entry. `rev` is the entity revision the entry asks for; a worker acknowledges only the revision it indexed.

// @name claim
// Takes a lease on up to $limit entries nobody holds (or whose lease expired). Each entry is locked before its lease is
// checked again: a claim of another process that took it while this one waited for the lock has committed by then
// (Neo4j does not re-evaluate the first WHERE after a lock wait, and two indexers would index the same entries).
MATCH (o:Outbox)
WHERE o.ns = $ns AND o.claimUntil < $now
WITH o ORDER BY o.updatedAt LIMIT $limit
SET o._LOCK_ = true
WITH o, o.claimUntil < $now AS free
REMOVE o._LOCK_
WITH o WHERE free
SET o.claimUntil = $now + $leaseMs
RETURN o.urn AS urn, o.rev AS rev

// @name acknowledge
// Removes entries whose revision was indexed; entries re-written since then stay for the next round. The entry is
// locked before its rev is compared: under read committed, a write committing while this waits for the lock would
// otherwise lose its entry (the comparison saw the old rev) and never reach the index. Returns the pending-delete
// markers the removed entries held (the indexer reads them here: an entry handed over at commit was never read).
UNWIND $entries AS entry
MATCH (o:Outbox {urn: entry.urn, ns: $ns})
SET o._LOCK_ = true
WITH o, o.rev = entry.rev AS indexed
REMOVE o._LOCK_
WITH o WHERE indexed
WITH o, o.markers AS markers
DELETE o
WITH markers WHERE markers IS NOT NULL
UNWIND markers AS marker
RETURN marker

// @name release
// Gives leases back after a failed attempt so the next attempt need not wait for expiry.
UNWIND $urns AS urn
MATCH (o:Outbox {urn: urn, ns: $ns})
SET o.claimUntil = $retryAt

// @name markApplied
// Applied hard deletes: the entry stays for the grace period (searches hide the entity while it exists) but no longer
// counts as pending; `applied` is the revision whose delete was applied, so a later write makes the entry pending again.
// Locked before the comparison, as in acknowledge.
UNWIND $entries AS entry
MATCH (o:Outbox {urn: entry.urn, ns: $ns})
SET o._LOCK_ = true
WITH o, entry, o.rev = entry.rev AS applied
REMOVE o._LOCK_
WITH o, entry WHERE applied
SET o.applied = entry.rev, o.claimUntil = $claimUntil

// @name referencedMarkers
// Which of these pending-delete markers an outbox entry still holds (the others can go).
UNWIND $markers AS m
MATCH (o:Outbox {urn: m.urn, ns: $ns})
WHERE m.id IN o.markers
RETURN m.id AS id

// @name pending
// Entries still waiting among the given URNs (all entries when $urns is null); applied deletes are not waiting.
MATCH (o:Outbox)
WHERE o.ns = $ns AND ($urns IS NULL OR o.urn IN $urns) AND (o.applied IS NULL OR o.applied <> o.rev)
RETURN count(o) AS pending

// @name enqueue
// Marks entities for (re)indexing, e.g. by restoreIndices.
// The entity is locked first, as writers lock it, so this and a write never replace one entry at once; the entry is
// fresh for the same reason as in writes.cypher `apply` (its last stage).
UNWIND $urns AS urn
MATCH (e:Entity {urn: urn})
SET e._LOCK_ = true
REMOVE e._LOCK_
WITH e, urn
OPTIONAL MATCH (old:Outbox {urn: urn, ns: $ns})
WITH e, urn, old, old.markers AS markers
CALL (old) {
  WITH old WHERE old IS NOT NULL
  DELETE old
}
CREATE (:Outbox {urn: urn, ns: $ns, rev: e.rev, updatedAt: $now, claimUntil: 0, markers: markers})
