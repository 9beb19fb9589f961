// Multi-hop lineage, walked breadth-first by LineageStore one hop (one statement) at a time: the visited set, parents
// (one shortest path each), bounds, filters, order and page are kept in the service. {{fwd}}/{{back}} (the lineage
// relationship names stored along / against the walk direction that have edges in the database; a name no edge has
// when there are none) are filled in by the store: relationship types cannot be parameters. Everything a caller sends
// is a parameter.

// @fragment neighbours
// Every hop's start (`hop`, `lastHopCounted`): each neighbour b of $frontier once, with its urn and the index in
// $frontier of one parent (the first). Each statement then keeps the neighbours it wants (its WHERE) before
// `onwardAndRemoved` reads more of them.
UNWIND range(0, size($frontier) - 1) AS i
{{frontier}}
{{expand}}
WITH b, min(i) AS parent
// The urn is read once, into a variable: read as b.urn in each collect after it, it was read again for the page's
// candidates (1,489 property reads on a hub's hop; the page cost the hop 1.9-2.9 ms instead of 1.1-1.6).
WITH b, b.urn AS urn, parent

// @fragment onwardAndRemoved
// What every hop reads of each neighbour it keeps: `onward`, its lineage edges in the walk direction when it has more
// than $fanOut edges of any kind (else null), and `removed`, its soft-delete flag. {{removed}}: the entity node's
// flag (kept by the write path), or, until the flag is filled in for entities written before it was kept
// (markSoftDeletedPage), the status aspect read for each node.
WITH b, urn, parent,
     CASE WHEN COUNT { (b)--() } > $fanOut THEN COUNT { (b)<-[:{{back}}]-() } + COUNT { (b)-[:{{fwd}}]->() } END AS onward,
     {{removed}} AS removed

// @name hop
// One hop from $frontier: every lineage neighbour in the walk direction of the kind walked ($columns:
// schemaField nodes only, else every node but schemaFields), once, as [urn, parent, onward, removed, node, rev]: the index
// in $frontier of one parent (the first), its lineage edges in the walk direction (the fan-out rule), whether it is
// soft-deleted, its element id (null on the last hop, $lastHop: no hop seeks it; most of a walk from a hub is
// reached there), and its rev when its urn is in $known (a page row the service holds a copy of: the copy is current
// when the rev is the one in $known). Its type is the urn's. `page`, on the first row: [urn, rev, aspects named in
// $aspects] of the neighbours that would be on the answer's page, read while the page is not full: the first $pageTake in urn order after
// $pageSkip of those not in $visited (the walk's order within a hop), so neither a walk that stays within its page nor
// one whose page fills in this hop needs a statement after the last hop (a hub's page: one exchange and 100 urn index
// seeks less). A page row the filters push past them is read afterwards. `onward` is counted only when it has more than $fanOut edges of any kind, else null: counting 16
// relationship types walks a small node's edges 16 times, its total degree is one read. `leadsOn`, asked only at the hop bound ($bound): whether lineage leads on from any node first
// reached here (not in $visited) whose onward edges were not counted: the maxHops cut, known without a statement after
// the last hop; it stops at the first such node. Rows of 48 neighbours each: the JavaScript driver decodes a record per
// node slowly, and a single record spanning many Bolt chunks slower still (10,000 neighbours: one record 33 ms of client
// CPU, a record per node 26–29 ms, rows of 48 14–16 ms). Every row repeats leadsOn, stale and revoked; there is always one.
// Neighbours already visited come back too (the caller skips them): sending the visited set would cost more.
// {{frontier}} (filled in by the store) finds the frontier: the start by its urn, later frontiers by the element ids the
// hop before returned, a record read instead of a descent of the urn index each. Element ids hold within one transaction
// (Neo4j's advice for them; the id of a node deleted meanwhile is buffered until the transactions open at the delete
// have ended), and a walk of more than one hop is one read transaction (one of one hop seeks only its start, by urn).
// {{expand}} (filled in by the store) finds the neighbours in a subquery from a: a single typed expansion when the
// edges of only one side are in the database (a catalog whose lineage is all dataset to dataset), else one per side in
// a UNION ALL, which cost a hop from a hub (1,489 frontier nodes) 8-20 % of its time even when one side found
// nothing. `stale` (in a walk's first statement only, else false: {{absentCounts}} reads Neo4j's count store once per
// lineage type left out as having no edges, {{absentFound}} adds them up) tells the store a left-out type has edges
// now; it then counts again and walks again. A count is a subquery of its own: a COUNT { } expression was planned as a
// scan of the type's edges on an empty database, and such a plan is kept until the statistics diverge.
// `revoked` ({{tokensRevoked}}, in a walk's first statement only, else false): whether a token of $tokens (the caller's)
// is revoked, so a read that checks its token here makes no lookup of its own (a round trip and a transaction fewer).
// `vias` ({{viasPresent}}, in a walk's first statement only, else false; true once the store has seen one): whether any
// lineage edge passes through a node (a `via`, or a data job's column edge, $jobPrefix), so a catalog without any
// reads no via nodes after its walks (`vias`).
{{> neighbours}}
// By the urn (read for the answer anyway), not the type property: one property read less per node.
WHERE (urn STARTS WITH $schemaFieldPrefix) = $columns
{{> onwardAndRemoved}}
WITH collect([urn, parent, onward, removed, CASE WHEN $lastHop THEN null ELSE elementId(b) END,
              CASE WHEN $known[urn] IS NULL THEN null ELSE b.rev END]) AS found,
     collect(CASE WHEN $pageTake > 0 AND NOT urn IN $visited THEN [urn, b] END) AS candidates,
     collect(CASE WHEN $bound AND onward IS NULL AND NOT urn IN $visited THEN b END) AS unasked
// Sorted by the urn the rows already hold: sorted by their urn property, the nodes' urns were read again, and a hub's
// page (1,489 neighbours) cost the hop 3.5 ms more instead of 2.4.
CALL (candidates) {
  UNWIND candidates AS candidate
  WITH candidate ORDER BY candidate[0] SKIP $pageSkip LIMIT $pageTake
  WITH candidate[0] AS urn, candidate[1] AS n
  // The rev before the aspects: a write committing in between leaves a copy labelled older than it is, never newer.
  WITH urn, n, n.rev AS rev
  RETURN collect([urn, rev, [(n)-[:ASPECT]->(stored:Aspect) WHERE stored.name IN $aspects | {name: stored.name, value: stored.value}]]) AS page
}
WITH found, page,
     CASE WHEN $bound THEN any(n IN unasked WHERE (n)<-[:{{back}}]-() OR (n)-[:{{fwd}}]->()) END AS leadsOn
{{absentCounts}}
WITH found, page, leadsOn, {{absentFound}} AS stale, {{tokensRevoked}} AS revoked, {{viasPresent}} AS vias
UNWIND range(0, CASE WHEN size(found) = 0 THEN 0 ELSE size(found) - 1 END, 48) AS k
RETURN found[k..k + 48] AS found, CASE WHEN k = 0 THEN page END AS page, leadsOn, stale, revoked, vias

// @name lastHopCounted
// A walk's last hop counted in Neo4j: of its neighbours not in $visited (a map of the urns reached before, so each is
// one lookup), how many there are (`reached`), how many the result filters keep (`matched`: $lastGroups, the filter's
// OR-groups that admit this degree, each {types, platforms, includeRemoved}, as LineageStore's `matches`), and only the
// page's rows of those: the first $pageTake after $pageSkip in urn order, each [urn, parent, onward, removed, rev
// (null when no aspects are asked), aspects named in $aspects or null unless $readAspects: a page the service holds
// copies of reads only revs]. `leadsOn`: whether lineage leads on from any of them (the
// maxHops cut), known whole. Returns one row however many neighbours: from a hub (1,489 downstreams) the hop that
// returned every neighbour cost 12.7 ms against 10.8 in the statement alone, and the walk 14.9 with the service
// decoding and sorting them. {{frontier}}, {{expand}}, {{back}}, {{fwd}}, {{removed}}, {{absentCounts}},
// {{absentFound}}, {{tokensRevoked}} and {{viasPresent}} as in `hop`.
{{> neighbours}}
WHERE (urn STARTS WITH $schemaFieldPrefix) = $columns AND $visited[urn] IS NULL
{{> onwardAndRemoved}}
WITH count(b) AS reached,
     collect(CASE WHEN any(g IN $lastGroups WHERE (g.types IS NULL OR split(urn, ':')[2] IN g.types)
                                          AND (g.platforms IS NULL OR any(p IN g.platforms WHERE urn CONTAINS '(' + p + ','))
                                          AND (g.includeRemoved OR NOT removed))
                  THEN [urn, parent, onward, removed, b] END) AS kept,
     any(counted IN collect(onward) WHERE counted > 0) AS countedOn,
     collect(CASE WHEN onward IS NULL THEN b END) AS unasked
CALL (kept) {
  UNWIND kept AS k
  WITH k ORDER BY k[0] SKIP $pageSkip LIMIT $pageTake
  WITH k, k[4] AS n
  // The rev (when aspects are asked) before the aspects: a write committing in between leaves a copy labelled older
  // than it is, never newer.
  WITH k, n, CASE WHEN size($aspects) = 0 THEN null ELSE n.rev END AS rev
  RETURN collect([k[0], k[1], k[2], k[3], rev,
                  CASE WHEN $readAspects THEN [(n)-[:ASPECT]->(stored:Aspect) WHERE stored.name IN $aspects | {name: stored.name, value: stored.value}] END]) AS page
}
WITH reached, size(kept) AS matched, page,
     countedOn OR any(n IN unasked WHERE (n)<-[:{{back}}]-() OR (n)-[:{{fwd}}]->()) AS leadsOn
{{absentCounts}}
RETURN reached, matched, page, leadsOn, {{absentFound}} AS stale, {{tokensRevoked}} AS revoked, {{viasPresent}} AS vias

// @name finish
// Whether lineage leads on from any of $last (nodes at the hop bound: the maxHops cut), and the page's entities
// ($urns, in page order) with their rev and the aspects the clients read.
RETURN EXISTS {
         UNWIND $last AS u
         MATCH (n:Entity {urn: u})
         WHERE EXISTS { (n)<-[:{{back}}]-() } OR EXISTS { (n)-[:{{fwd}}]->() }
       } AS leadsOn,
       COLLECT {
         UNWIND $urns AS u
         MATCH (n:Entity {urn: u})
         WITH u, n, n.rev AS rev
         RETURN {urn: u, rev: rev, aspects: [(n)-[:ASPECT]->(a:Aspect) WHERE a.name IN $aspects | {name: a.name, value: a.value}]}
       } AS page

// @name typesPresent
// Whether each lineage relationship type has edges, read from Neo4j's count store (one read per type, however many
// edges there are): {{counts}} is a subquery per type, `CALL () { MATCH ()-[r:Type]->() RETURN count(r) AS c<k> }`,
// {{present}} the list `c0 > 0, c1 > 0, …` in the store's order.
{{counts}}
RETURN [{{present}}] AS present

// @name knowTypes
// Run in a transaction that is rolled back (LineageStore.prepare): it writes nothing, but leaves Neo4j the tokens of
// the lineage relationship types ({{creates}}: one CREATE per type). A statement naming a type Neo4j has never seen
// looks its name up again on every row: a fifth of a hop's time from a hub in a catalog without some of them.
CREATE (probe:LineageTypeProbe)
{{creates}}

// @name markSoftDeletedPage
// Fills in the soft-delete flag (`removed`) of entities written before the write path kept it: the next $limit entities
// after $after in urn order; a soft-deleted one is locked, then its status read again (a write may have changed it
// meanwhile; writes keep the flag themselves under the same lock). `last` is null once past the last entity.
MATCH (e:Entity) WHERE e.urn > $after
WITH e ORDER BY e.urn LIMIT $limit
WITH collect(e) AS page
CALL (page) {
  UNWIND page AS e
  WITH e WHERE e.removed IS NULL AND EXISTS { (e)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' }
  SET e._LOCK_ = true
  REMOVE e._LOCK_
  WITH e WHERE EXISTS { (e)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' }
  SET e.removed = true
  RETURN count(*) AS marked
}
RETURN CASE WHEN size(page) = 0 THEN null ELSE page[-1].urn END AS last, marked

// @name vias
// The nodes lineage edges pass through (DataHub's via nodes), for the edges of a page's paths: $pairs =
// [[downstream, upstream], …]. A DownstreamOf edge (the only lineage relationship DataHub gives a via) keeps its query
// as `via`; a data job's column edges pass through the job that owns them ($jobPrefix: how its urn starts). Of several
// edges between two nodes, the least via. Both ends are sought by urn, then the edges between them read in a subquery
// (Expand(Into), from the end with fewer edges): expanded from the downstream end, a hub's upstream page expanded its
// 1,500 edges for every pair (3 hops upstream from a hub: 124 ms instead of 54), and a plan made on an empty database
// (a hash join) did so whatever the hints.
UNWIND $pairs AS p
MATCH (d:Entity {urn: p[0]})
MATCH (u:Entity {urn: p[1]})
CALL (d, u) {
  MATCH (d)-[r:DownstreamOf]->(u)
  WITH CASE WHEN r.owner STARTS WITH $jobPrefix THEN r.owner ELSE r.via END AS via
  WHERE via IS NOT NULL
  RETURN min(via) AS via
}
WITH p, via WHERE via IS NOT NULL
RETURN p[0] AS downstream, p[1] AS upstream, via

// @name removed
// Which of $urns are soft-deleted (a column walk grouped to datasets: the parents it did not walk). {{removed}} as in
// `hop`.
UNWIND $urns AS u
MATCH (b:Entity {urn: u})
WITH u, {{removed}} AS removed
WHERE removed
RETURN collect(u) AS removed
