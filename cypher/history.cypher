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
// One hop of as-of lineage over the frontier. `own`: the frontier entity's aspects $ownAspects (those projecting
// lineage walked outwards, and status) as of $t. `inward`: every entity that points, or once pointed, at it with a
// lineage edge of the types {{inTypes}} (current edges, and :LineagePast records of removed ones), with the version of
// the owning aspect valid at $t; the service keeps those whose value at $t still names the frontier entity.
UNWIND $frontier AS u
CALL (u) {
  MATCH (a:Aspect {urn: u})
  WHERE a.name IN $ownAspects AND a.version IS NOT NULL
  WITH a ORDER BY a.createdTime, CASE a.version WHEN 0 THEN 9007199254740991 ELSE a.version END
  WITH a.name AS name, collect(a) AS vs
  WITH name, vs, [v IN vs WHERE v.createdTime <= $t | v.value] AS before
  RETURN collect({name: name, value: before[-1], from: vs[0].createdTime,
                  trimmed: any(v IN vs WHERE v.version = 0 AND v.historyTrimmed) OR
                           (any(v IN vs WHERE v.version > 0) AND NOT any(v IN vs WHERE v.version = 1))}) AS own
}
CALL (u) {
  CALL (u) {
    MATCH (:Entity {urn: u})<-[r:{{inTypes}}]-(s:Entity)
    RETURN s.urn AS src, r.aspect AS aspect
    UNION
    MATCH (p:LineagePast {target: u})
    WHERE p.type IN $inTypes AND p.source IS NOT NULL AND p.aspect IS NOT NULL
    RETURN p.source AS src, p.aspect AS aspect
  }
  CALL (src, aspect) {
    MATCH (a:Aspect {urn: src, name: aspect})
    WHERE a.version IS NOT NULL
    WITH a ORDER BY a.createdTime, CASE a.version WHEN 0 THEN 9007199254740991 ELSE a.version END
    WITH collect(a) AS vs
    RETURN [v IN vs WHERE v.createdTime <= $t | v.value][-1] AS value, vs[0].createdTime AS from,
           any(v IN vs WHERE v.version = 0 AND v.historyTrimmed) OR
           (any(v IN vs WHERE v.version > 0) AND NOT any(v IN vs WHERE v.version = 1)) AS trimmed
  }
  RETURN collect({src: src, aspect: aspect, value: value, from: from, trimmed: trimmed}) AS inward
}
RETURN u, own, inward

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
