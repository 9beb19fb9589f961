// References to an entity: the edges other entities' aspects projected to it (deleteReferences).

// @name incoming
// One row per reference to $urn: relationship type, referencing entity and the aspect that projected the edge.
// Column-level lineage edges (those with an `owner`) are left out: they join schemaField nodes, come from
// fineGrainedLineages, which no relationship field names, and their source is not the entity holding the aspect.
MATCH (t:Entity {urn: $urn})<-[r]-(s:Entity)
USING INDEX SEEK t:Entity(urn)
WHERE r.aspect IS NOT NULL AND r.owner IS NULL
RETURN type(r) AS relationship, s.urn AS entity, r.aspect AS aspect
ORDER BY entity, aspect, relationship
