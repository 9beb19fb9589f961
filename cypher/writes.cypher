// The write path: one transaction per group of writes (src/services/write-path). It first locks and reads every entity
// the group writes (`lock`), the service plans the whole group in memory, then one statement (`apply`) writes the plan
// in stages, each an UNWIND over its own list. Every stage takes its rows sorted (entities by urn, edges by target), so concurrent groups lock in one
// order. Edges are CREATEd, never MERGEd: the source entity is locked, so its edges read in `lock` are exact, and a
// MERGE of a missing relationship would lock its target exclusively (a hot tag would serialize every writer).
// `apply` finds the locked entities by the element ids `lock` returned (`node`) and edge targets by their position in
// `targets`: each seek of the urn index is a B-tree descent over long string keys, and `apply` made several per aspect
// (its row, each edge's source and target, the entity's outbox stage).
// A group whose entities' states this process kept since it last wrote them skips `lock`: it is planned from those
// states and `apply` runs alone, locking the entities and checking their revs itself (`$plan.known`, below).

// @name lock
// $group.entities = [{urn, entityType, create, all, names, history, present, values, columns}] sorted by urn (in a map,
// for the reason given in `apply`: a list parameter would make a plan per size bucket of the group). Bumps each
// entity's rev (which takes its write lock) and returns its stored aspects: every one when `all`, else those in `names`
// (their history counted for those in `history`) and, without history or edges, those in `present`; `values` = names
// whose value is needed (patches), `columns` = names whose column-level lineage edges are needed. Entities that are
// absent and not `create` return no row.
// replan=skip (here and in `apply`): Neo4j replans a cached statement once the label counts drift (at most once a
// minute with the stack's settings), and planning `apply` costs it 300-600 ms of CPU per parameter shape; under
// ingestion that was a tenth of its CPU. Both plans are seeks whatever the counts (test/integration/write-plans.test.ts).
CYPHER replan=skip
UNWIND $group.entities AS x
OPTIONAL MATCH (found:Entity {urn: x.urn})
OPTIONAL CALL (x, found) {
  WITH x WHERE found IS NULL AND x.create
  MERGE (n:Entity {urn: x.urn})
    ON CREATE SET n.type = x.entityType, n.createdAt = $now
  RETURN n
}
WITH x, coalesce(found, n) AS e, found IS NULL AS created
WHERE e IS NOT NULL
// Locked before the old rev is read (under read committed it could be stale otherwise): the rev it had is returned,
// so the writer knows which state its write turned into the new one (the indexer's fragment cache chains on it).
SET e._LOCK_ = true
WITH x, e, created, e.rev AS previousRev
REMOVE e._LOCK_
SET e.rev = CASE WHEN coalesce(previousRev, 0) >= $revFloor THEN previousRev + 1 ELSE $revFloor END
WITH x, e, created, previousRev
CALL (x, e) {
  // The entity's edges of those aspects, expanded once (per aspect, its ASPECT links were walked again for each), keyed
  // as the write path keys them (prepare.ts edgeKey: the node an edge passes through after a NUL).
  WITH x, e, [(e)-[r]->(t:Entity) WHERE x.all OR r.aspect IN x.names | [r.aspect, type(r) + '|' + t.urn + coalesce('\u0000' + r.via, '')]] AS owned
  // Owned edges between schemaField nodes, sought in the relationship index on owner, once per entity and only for
  // an entity whose column lineage the group needs (per aspect, the seek ran for every aspect row: a tenth of the lock's
  // CPU for a restore page). The hint keeps the plan a seek: planned while the graph had dataset-level lineage but few
  // column edges, Neo4j scanned this index and kept the plan once column lineage arrived (20,000 column edges: 100,005
  // db hits for a 5-entity group, 195 with the seek).
  CALL (x) {
    WITH x WHERE size(x.columns) > 0
    MATCH (f:Entity)-[c:DownstreamOf {owner: x.urn}]->(u:Entity)
    USING INDEX SEEK c:DownstreamOf(owner)
    WHERE c.aspect IN x.columns
    RETURN collect([c.aspect, f.urn + '|' + u.urn + coalesce('\u0000' + c.via, '')]) AS columns
  }
  OPTIONAL MATCH (e)-[:ASPECT]->(a:Aspect)
  WHERE x.all OR a.name IN x.names OR a.name IN x.present
  WITH owned, columns, a WHERE a IS NOT NULL
  // History only for aspects the group writes versions of: a default that exists is only checked for, a reprojection
  // reads only the latest value's edges (one seek fewer per aspect: a quarter of the statement for restore's pages).
  CALL (x, a) {
    WITH x, a WHERE x.all OR a.name IN x.history
    OPTIONAL MATCH (h:Aspect {urn: x.urn, name: a.name})
    WHERE h.version > 0
    RETURN max(h.version) AS top, count(h) AS history
  }
  RETURN collect({name: a.name, hash: a.hash, top: coalesce(top, 0), history: history,
                  value: CASE WHEN a.name IN x.values THEN a.value END,
                  edges: [o IN owned WHERE o[0] = a.name | o[1]],
                  columnEdges: [c IN columns WHERE c[0] = a.name | c[1]]}) AS aspects
}
RETURN x.urn AS urn, elementId(e) AS node, e.rev AS rev, previousRev, created, e.placeholder IS NOT NULL AS placeholder, aspects

// @name apply
// The whole plan in one statement (one round trip, and one statement's fixed cost in Neo4j and the driver instead of up
// to eight). Its stages run in this order, each over its own list of $plan; an empty list costs nothing.
// The lists travel in one map: Neo4j keys its plan cache by each top-level list's size bucket (0, 1, 2-10, 11-100, …),
// so eight list parameters made a plan per combination of group sizes, ~0.4-0.6 s of its CPU each (a map is one type
// whatever it holds: one plan, rehearsed before the first write). Ingesting 2,000 datasets into a fresh Neo4j planned
// `apply` 13 times (7.9 s of CPU) before, once (0.4 s) since.
//
// `known` (a group planned from the states the write path keeps of entities it wrote, src/services/write-path/known-states.ts):
// the statement then runs alone, as an auto-commit transaction (one round trip instead of four: BEGIN, `lock`, `apply`,
// COMMIT), and locks these entities itself, in urn order as `lock` does. It writes only if every one still has the rev
// the plan was made from (every write bumps it, in this process or another); otherwise it writes nothing and returns no
// row, and the group goes the locking way. Each gets `next`, the rev `lock` would have given it. Empty after `lock`.
// `peers`: when $plan.peersOf names this process, the other processes that may be serving cached copies unchecked, which
// must be told of this write before it is acknowledged (src/stores/graph/read-coherence.ts). A process that starts such
// a lease later trusts only what it reads once every write transaction begun before could have ended. A revoked peer is
// not told; the write waits until the leases it held when revoked have run out (`waitMs`). Read here rather than in a
// statement of its own: each statement costs Neo4j ~100 µs of CPU, about a tenth of a group's (the write path runs
// `apply` whenever `lock` locked something and there are peers, even with nothing else to write). In $plan because
// Neo4j keys its plan cache by the length bucket of a string parameter too: a process id against none made two plans.
CYPHER replan=skip
CALL () {
  UNWIND $plan.known AS k
  MATCH (e) WHERE elementId(e) = k.node
  // Locked before its rev is read, as in `lock`.
  SET e._LOCK_ = true
  WITH k, e, e.rev AS rev
  REMOVE e._LOCK_
  RETURN count(CASE WHEN e.urn = k.urn AND rev = k.rev THEN 1 END) = size($plan.known) AS current
}
// $plan.tokens: ids of the tokens the group's requests came with. One revoked: nothing is written, no row returned (the
// write path then finds which and answers those requests 401); so no request needs a lookup of its own beforehand.
WITH current WHERE current AND NOT EXISTS { MATCH (t:RevokedToken) WHERE t.jti IN $plan.tokens }
CALL () {
  UNWIND $plan.known AS k
  MATCH (e) WHERE elementId(e) = k.node
  SET e.rev = k.next
}
WITH CASE WHEN $plan.peersOf IS NULL THEN [] ELSE COLLECT {
  MATCH (p:ServiceProcess)
  WHERE p.id <> $plan.peersOf AND p.peerUrl IS NOT NULL AND p.seenAt + p.leaseMs > timestamp()
  RETURN {id: p.id, url: p.peerUrl, token: p.peerToken,
          waitMs: CASE WHEN p.revokedAt IS NULL THEN null ELSE p.revokedAt + p.leaseMs - timestamp() END}
} END AS peers
// Entity deletes (names null: every aspect and outgoing edge) and aspect deletes (the named aspects), before anything
// else the group writes to those entities.
CALL () {
  UNWIND $plan.wipes AS w
  CALL (w) {
    // name/version IS NOT NULL lets Neo4j seek the (urn, name, version) constraint index instead of scanning every aspect.
    MATCH (a:Aspect {urn: w.urn})
    WHERE a.name IS NOT NULL AND a.version IS NOT NULL AND (w.names IS NULL OR a.name IN w.names)
    DETACH DELETE a
  }
  CALL (w) {
    MATCH (e)-[r]->(:Entity)
    WHERE elementId(e) = w.node AND (w.names IS NULL OR r.aspect IN w.names)
    DELETE r
  }
  CALL (w) {
    // Hinted for the reason given in `lock`.
    MATCH (:Entity)-[r:DownstreamOf {owner: w.urn}]->(:Entity)
    USING INDEX SEEK r:DownstreamOf(owner)
    WHERE w.names IS NULL OR r.aspect IN w.names
    DELETE r
  }
}
// The group's aspect changes, per (urn, aspect), in stages, each over only the rows with that work (applyParameters in
// src/services/write-path/plan.ts). One stage of seven guarded subqueries per row cost Neo4j ~85 µs per changed aspect
// at groups of 16 (bench/write-statements.ts), most of them skipped: PROFILE showed an Eager between every two (their
// reads conflict with the others' deletes and creates) and the age-retention seek made for every row, horizon or not.
// Per (urn, aspect) the stages run in this order: `drops` (history versions a revert removes; first:
// a later stage may create a version of the same number), `copies` (history version `copy` receives the stored latest
// value, with `copySystemMetadata`: the metadata an earlier identical write of this group gave it), `histories`
// (versions created from values written earlier in this group), `cuts` and `horizons` (retention), then the latest
// value: `updateLatest` where a latest node is stored (`latest` null: only `systemMetadata` changes), `createLatest`
// where none is. `runId` and `lastObserved` (from the system metadata) index the latest node by run (cypher/runs.cypher).
CALL () {
  UNWIND $plan.drops AS row
  MATCH (old:Aspect {urn: row.urn, name: row.name})
  WHERE old.version IN row.drop
  DETACH DELETE old
}
CALL () {
  UNWIND $plan.copies AS row
  MATCH (e) WHERE elementId(e) = row.node
  MATCH (e)-[:ASPECT]->(l:Aspect {name: row.name})
  CREATE (:Aspect {urn: row.urn, name: row.name, version: row.copy, value: l.value, hash: l.hash,
                   createdTime: l.createdTime, createdActor: l.createdActor,
                   systemMetadata: coalesce(row.copySystemMetadata, l.systemMetadata)})
}
CALL () {
  UNWIND $plan.histories AS row
  UNWIND row.history AS h
  CREATE (:Aspect {urn: row.urn, name: row.name, version: h.version, value: h.value, hash: h.hash,
                   createdTime: h.createdTime, createdActor: h.createdActor, systemMetadata: h.systemMetadata})
}
// Retention by count. The latest node then says history was trimmed (as-of reads before what is left are refused).
CALL () {
  UNWIND $plan.cuts AS row
  MATCH (e) WHERE elementId(e) = row.node
  CALL (e, row) {
    MATCH (old:Aspect {urn: row.urn, name: row.name})
    WHERE old.version > 0 AND old.version <= row.cut
    DETACH DELETE old
    WITH e, row, count(*) AS gone
    MATCH (e)-[:ASPECT]->(l:Aspect {name: row.name})
    WHERE l.historyTrimmed IS NULL
    SET l.historyTrimmed = true
  }
}
// Retention by age (`horizon`): history versions superseded before the horizon go, except the one current at it.
CALL () {
  UNWIND $plan.horizons AS row
  MATCH (e) WHERE elementId(e) = row.node
  CALL (e, row) {
    MATCH (old:Aspect {urn: row.urn, name: row.name})
    WHERE old.version > 0 AND old.createdTime <= row.horizon
    WITH e, row, old ORDER BY old.createdTime DESC, old.version DESC
    WITH e, row, collect(old) AS before
    WHERE size(before) > 1
    CALL (before) {
      UNWIND before[1..] AS gone
      DETACH DELETE gone
    }
    MATCH (e)-[:ASPECT]->(l:Aspect {name: row.name})
    WHERE l.historyTrimmed IS NULL
    SET l.historyTrimmed = true
  }
}
CALL () {
  UNWIND $plan.updateLatest AS row
  MATCH (e) WHERE elementId(e) = row.node
  MATCH (e)-[:ASPECT]->(l:Aspect {name: row.name})
  SET l.systemMetadata = row.systemMetadata, l.runId = row.runId, l.lastObserved = row.lastObserved
  WITH l, row WHERE row.latest IS NOT NULL
  SET l.value = row.latest.value, l.hash = row.latest.hash, l.createdTime = row.latest.createdTime,
      l.createdActor = row.latest.createdActor
}
CALL () {
  UNWIND $plan.createLatest AS row
  MATCH (e) WHERE elementId(e) = row.node
  CREATE (e)-[:ASPECT]->(:Aspect {urn: row.urn, name: row.name, version: 0, value: row.latest.value,
                                  hash: row.latest.hash, createdTime: row.latest.createdTime,
                                  createdActor: row.latest.createdActor, systemMetadata: row.systemMetadata,
                                  runId: row.runId, lastObserved: row.lastObserved})
}
// Edges whose aspect no longer names their target; matched from the (locked) source, never from the target. A lineage
// edge leaves a :LineagePast record: as-of lineage (cypher/history.cypher) finds an entity's past upstreams and
// downstreams through it and checks them against the aspect versions valid at the time asked about.
CALL () {
  UNWIND $plan.removeEdges AS x
  // No label on t: with one, Neo4j sometimes planned a scan of the Entity(urn) index joined to the source's edges
  // (test/integration/write-plans.test.ts). The type test alone keeps out ASPECT links.
  MATCH (e)-[r]->(t)
  WHERE elementId(e) = x.node AND r.aspect = x.aspect AND type(r) = x.type AND t.urn = x.target
  WITH x, r, r.isLineage AS lineage
  DELETE r
  WITH x WHERE lineage
  MERGE (:LineagePast {target: x.target, type: x.type, source: x.urn, aspect: x.aspect})
}
// Column-level lineage edges the owner's aspect no longer declares. Starts from the source node (hinted: a plan made
// while few column edges existed scanned the owner index instead).
CALL () {
  UNWIND $plan.removeColumnEdges AS x
  MATCH (f:Entity {urn: x.source})-[r:DownstreamOf {owner: x.owner}]->(:Entity {urn: x.target})
  USING INDEX SEEK f:Entity(urn)
  WHERE r.aspect = x.aspect
  DELETE r
}
// Every edge target once per transaction, sorted; a missing one becomes a placeholder. Existing targets are only read.
// Their nodes, in the order of `targets`, are what the edge stages below link (`t`, `s`: positions in `targets`, sent as floats like every JS number).
CALL () {
  UNWIND range(0, size($plan.targets) - 1) AS i
  WITH i, $plan.targets[i] AS t
  MERGE (n:Entity {urn: t.urn})
    ON CREATE SET n.type = t.type, n.createdAt = $now, n.placeholder = true
  WITH i, n ORDER BY i
  RETURN collect(n) AS targetNodes
}
// New edges, sorted by target. CREATE on a dense target takes no exclusive lock on it until commit.
CALL (targetNodes) {
  UNWIND $plan.createEdges AS x
  MATCH (e) WHERE elementId(e) = x.node
  WITH e, x, targetNodes[toInteger(x.t)] AS t
  CREATE (e)-[r:$(x.type)]->(t)
  SET r.aspect = x.aspect, r.isLineage = x.isLineage, r.via = x.via
}
// New column-level lineage edges, from the downstream schemaField to the upstream one, owned by (owner, aspect); `via`:
// the query the lineage names (a data job's edges pass through their owner, which the lineage walk reads instead).
CALL (targetNodes) {
  UNWIND $plan.createColumnEdges AS x
  WITH x, targetNodes[toInteger(x.s)] AS f, targetNodes[toInteger(x.t)] AS u
  CREATE (f)-[r:DownstreamOf]->(u)
  SET r.aspect = x.aspect, r.owner = x.owner, r.isLineage = true, r.via = x.via
}
// Per entity, each stage over only the entities with that work: an outbox entry where anything changed, the placeholder
// flag cleared once it has aspects, the soft-delete flag, and last a wiped entity without aspects left goes away unless
// others still point at it.
CALL () {
  // A fresh entry, not an update of the old one: an indexer acknowledging the old entry may delete it while this
  // waits for its lock, and Neo4j then applies the update to the deleted node without error (the write would never
  // reach the index). A node this transaction created cannot be deleted under it.
  // Pending-delete markers carry over: each stays until an indexer has applied an entry that held it.
  // DELETE of a missing (null) entry does nothing, so no subquery is needed to skip it.
  // $claimUntil: 0, or the lease of the writing process's indexer, which is handed the entries at commit and indexes
  // them without claiming them (a claim is a write transaction of its own); should it die, the lease runs out.
  UNWIND $plan.outbox AS x
  MATCH (e) WHERE elementId(e) = x.node
  OPTIONAL MATCH (old:Outbox {urn: x.urn, ns: $ns})
  WITH e, x, old, coalesce(old.markers, []) + x.markers AS markers
  DELETE old
  CREATE (o:Outbox {urn: x.urn, ns: $ns, rev: e.rev, updatedAt: $now, claimUntil: $claimUntil})
  SET o.markers = CASE WHEN size(markers) = 0 THEN null ELSE markers END
}
CALL () {
  UNWIND $plan.unplaceholders AS x
  MATCH (e) WHERE elementId(e) = x.node AND e.placeholder IS NOT NULL
  SET e.placeholder = null
}
// Soft-deleted, on the node: a lineage walk reads it for every node it reaches (the status aspect cost half a hop).
CALL () {
  UNWIND $plan.softDeletes AS x
  MATCH (e) WHERE elementId(e) = x.node
  SET e.removed = CASE WHEN x.removed THEN true END
}
CALL () {
  UNWIND $plan.orphans AS x
  MATCH (e) WHERE elementId(e) = x.node
  WITH e, COUNT { (e)<--(:Entity) } AS incoming
  CALL (e, incoming) {
    WITH e WHERE incoming = 0
    DELETE e
  }
  CALL (e, incoming) {
    WITH e WHERE incoming > 0
    SET e.placeholder = true
  }
}
RETURN peers
