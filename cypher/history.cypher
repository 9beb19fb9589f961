// History: the timeline, reads as of a moment and as-of lineage, all from the kept aspect versions (version 0 = latest,
// 1..N = history; createdTime = when that value was written, so a version is valid from its createdTime until the next
// one's). Reads only, apart from the :LineagePast backfill. History is trimmed (retention) when the latest node says
// `historyTrimmed`, or, for versions written before that flag existed, when history is kept but version 1 is gone.
// Versions are ordered by (createdTime, version) with the latest last.

// @name entityVersions
// Every kept version of an entity's aspects; values only of $valued (the timeline diffs those, the rest only stamp).
MATCH (a:Aspect {urn: $urn})
WHERE a.name IS NOT NULL AND a.version IS NOT NULL
RETURN a.name AS name, a.version AS version, a.createdTime AS createdTime, a.createdActor AS createdActor,
       CASE WHEN a.name IN $valued THEN a.value END AS value, a.historyTrimmed AS trimmed

// @name aspectsAt
// Per entity ($items: {key, urn, names|null}), per aspect: the version valid at $t (null: none yet), when its kept
// history starts, and whether older history was trimmed.
UNWIND $items AS item
CALL (item) {
  MATCH (a:Aspect {urn: item.urn})
  WHERE a.name IS NOT NULL AND a.version IS NOT NULL AND (item.names IS NULL OR a.name IN item.names)
  WITH a ORDER BY a.createdTime, CASE a.version WHEN 0 THEN 9007199254740991 ELSE a.version END
  WITH a.name AS name, collect(a) AS vs
  WITH name, vs, [v IN vs WHERE v.createdTime <= $t |
                  v {.version, .value, .createdTime, .createdActor, .systemMetadata}] AS before
  RETURN collect({name: name, at: before[-1], from: vs[0].createdTime,
                  trimmed: any(v IN vs WHERE v.version = 0 AND v.historyTrimmed) OR
                           (any(v IN vs WHERE v.version > 0) AND NOT any(v IN vs WHERE v.version = 1))}) AS aspects
}
RETURN item.key AS key, aspects

// @name lineageHop
// One hop of as-of lineage over the frontier ($frontier: {urn, names}, names = the aspects read as its own). A version is valid at $t from its createdTime on; a latest value written
// at or before $t is what the current edges project, so those are used without reading values.
// `own`: the frontier entity's aspects `names` as of $t (lineage-projecting ones walked outwards, status, and those
// to show): `current` when the latest value was valid at $t; `value` then only for $valued, else the value at $t.
// `out`: its current outgoing edges of the types walked outwards ({{outTypes}}), by aspect.
// `inward`: every entity that points, or once pointed, at it with an edge of {{inTypes}} (current edges, and
// :LineagePast records of removed ones), per owning aspect: `valid` when a current edge comes from a latest value
// written by $t; otherwise the owning aspect's value at $t, for the service to check whether it names the entity.
UNWIND $frontier AS f
WITH f.urn AS u, f.names AS names
OPTIONAL MATCH (n:Entity {urn: u})
CALL (u, names) {
  MATCH (a:Aspect {urn: u})
  WHERE a.name IN names AND a.version IS NOT NULL
  WITH a ORDER BY a.createdTime, CASE a.version WHEN 0 THEN 9007199254740991 ELSE a.version END
  WITH a.name AS name, collect(a) AS vs
  WITH name, vs, vs[-1].createdTime <= $t AS current
  RETURN collect({name: name, current: current, from: vs[0].createdTime,
                  value: CASE WHEN current THEN CASE WHEN name IN $valued THEN vs[-1].value END
                              ELSE [v IN vs WHERE v.createdTime <= $t | v.value][-1] END,
                  trimmed: any(v IN vs WHERE v.version = 0 AND v.historyTrimmed) OR
                           (any(v IN vs WHERE v.version > 0) AND NOT any(v IN vs WHERE v.version = 1))}) AS own
}
CALL (n) {
  OPTIONAL MATCH (n)-[r:{{outTypes}}]->(m:Entity)
  WITH r, m WHERE r IS NOT NULL
  RETURN collect({aspect: r.aspect, target: m.urn}) AS out
}
CALL (n, u) {
  CALL (n, u) {
    MATCH (n)<-[r:{{inTypes}}]-(s:Entity)
    RETURN s.urn AS src, r.aspect AS aspect, true AS current
    UNION
    MATCH (p:LineagePast {target: u})
    WHERE p.type IN $inTypes AND p.source IS NOT NULL AND p.aspect IS NOT NULL
    RETURN p.source AS src, p.aspect AS aspect, false AS current
  }
  WITH src, aspect, true IN collect(current) AS current
  CALL (src, aspect, current) {
    MATCH (a:Aspect {urn: src, name: aspect})
    WHERE a.version IS NOT NULL
    WITH a ORDER BY a.createdTime, CASE a.version WHEN 0 THEN 9007199254740991 ELSE a.version END
    WITH collect(a) AS vs
    WITH vs, vs[-1].createdTime <= $t AS settled
    RETURN current AND settled AS valid, settled AS settled,
           CASE WHEN settled THEN null ELSE [v IN vs WHERE v.createdTime <= $t | v.value][-1] END AS value,
           vs[0].createdTime AS from,
           any(v IN vs WHERE v.version = 0 AND v.historyTrimmed) OR
           (any(v IN vs WHERE v.version > 0) AND NOT any(v IN vs WHERE v.version = 1)) AS trimmed
  }
  RETURN collect({src: src, aspect: aspect, valid: valid, settled: settled, value: value, from: from, trimmed: trimmed}) AS inward
}
// The last hop also looks one step ahead ($lookahead): for the entities it may reach, their $shown aspects (status,
// those to show) as of $t, and how many lineage edges lead on from them (current ones and :LineagePast records).
CALL (out, inward) {
  WITH [o IN out | o.target] + [i IN inward WHERE i.valid OR NOT i.settled | i.src] AS near
  WHERE $lookahead
  UNWIND near AS v
  WITH DISTINCT v
  CALL (v) {
    MATCH (a:Aspect {urn: v})
    WHERE a.name IN $shown AND a.version IS NOT NULL
    WITH a ORDER BY a.createdTime, CASE a.version WHEN 0 THEN 9007199254740991 ELSE a.version END
    WITH a.name AS name, collect(a) AS vs
    WITH name, vs, vs[-1].createdTime <= $t AS current
    RETURN collect({name: name, current: current, from: vs[0].createdTime,
                    value: CASE WHEN current THEN vs[-1].value ELSE [v IN vs WHERE v.createdTime <= $t | v.value][-1] END,
                    trimmed: any(v IN vs WHERE v.version = 0 AND v.historyTrimmed) OR
                             (any(v IN vs WHERE v.version > 0) AND NOT any(v IN vs WHERE v.version = 1))}) AS aspects
  }
  OPTIONAL MATCH (m:Entity {urn: v})
  RETURN collect({urn: v, aspects: aspects,
                  onward: CASE WHEN m IS NULL THEN 0 ELSE COUNT { (m)-[:{{outTypes}}]->() } + COUNT { (m)<-[:{{inTypes}}]-() } END +
                          COUNT { (p:LineagePast {target: v}) WHERE p.type IN $inTypes AND p.source IS NOT NULL AND p.aspect IS NOT NULL }}) AS ahead
}
RETURN u, own, out, inward, ahead

// @name backfillMeta
// Whether the :LineagePast backfill has run on this database (absent: not yet; `complete` false: under way).
MERGE (m:HistoryMeta {name: 'lineagePast'})
ON CREATE SET m.complete = false, m.knownFrom = 0
RETURN m.complete AS complete, m.knownFrom AS knownFrom

// @name backfillPage
// The next entities (by urn) with a lineage-projecting aspect, and every kept version of those aspects.
MATCH (a:Aspect)
WHERE a.urn > $after AND a.name IN $names AND a.version = 0
WITH DISTINCT a.urn AS urn
ORDER BY urn
LIMIT $limit
MATCH (v:Aspect {urn: urn})
WHERE v.name IN $names AND v.version IS NOT NULL
RETURN urn, v.name AS name, v.version AS version, v.createdTime AS createdTime, v.value AS value,
       v.historyTrimmed AS trimmed

// @name backfillRecord
// :LineagePast records of the lineage edges kept versions name (current ones too: harmless candidates).
UNWIND $records AS x
MERGE (:LineagePast {target: x.target, type: x.type, source: x.source, aspect: x.aspect})

// @name backfillDone
// $knownFrom: as-of lineage before it cannot be complete (an entity's trimmed history may have named others).
MATCH (m:HistoryMeta {name: 'lineagePast'})
SET m.complete = true, m.knownFrom = CASE WHEN $knownFrom > coalesce(m.knownFrom, 0) THEN $knownFrom ELSE m.knownFrom END

// @name versionSetMembers
// The entities in the same version set (versionProperties.versionSet, projected as VersionOf), the entity itself first.
MATCH (e:Entity {urn: $urn})
OPTIONAL MATCH (e)-[:VersionOf]->(:Entity)<-[:VersionOf]-(o:Entity)
WITH e, collect(DISTINCT o.urn)[0..$limit] AS others
RETURN [e.urn] + [o IN others WHERE o <> e.urn] AS urns
