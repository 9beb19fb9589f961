// Constraints and indexes, created idempotently at start.

// @name entityUrnUnique
CREATE CONSTRAINT entity_urn_unique IF NOT EXISTS FOR (e:Entity) REQUIRE e.urn IS UNIQUE

// @name entityTypeIndex
CREATE INDEX entity_type IF NOT EXISTS FOR (e:Entity) ON (e.type)

// @name aspectVersionUnique
CREATE CONSTRAINT aspect_version_unique IF NOT EXISTS FOR (a:Aspect) REQUIRE (a.urn, a.name, a.version) IS UNIQUE

// @name dropAspectNameIndex
// Earlier versions created an index on (name, version). No statement needs it, every aspect write paid for it, and a
// plan made while the catalog was small sought it instead of the constraint above: all versions of an aspect name in
// the catalog, filtered by urn, for every write (the cost grew with the catalog until Neo4j replanned).
DROP INDEX aspect_name_version IF EXISTS

// @name outboxUrnUnique
CREATE CONSTRAINT outbox_entry_unique IF NOT EXISTS FOR (o:Outbox) REQUIRE (o.urn, o.ns) IS UNIQUE

// @name outboxClaimIndex
CREATE INDEX outbox_claim IF NOT EXISTS FOR (o:Outbox) ON (o.ns, o.claimUntil)

// @name revokedTokenUnique
CREATE CONSTRAINT revoked_token_unique IF NOT EXISTS FOR (t:RevokedToken) REQUIRE t.jti IS UNIQUE

// @name columnLineageOwnerIndex
// Column-level lineage edges (between schemaField nodes) are owned by the dataset whose upstreamLineage projected them.
CREATE INDEX column_lineage_owner IF NOT EXISTS FOR ()-[r:DownstreamOf]-() ON (r.owner)

// @name lineageViaIndex
// Lineage edges that pass through a node (an upstream's query, `via`): a walk's first statement asks whether any
// exists (cypher/lineage.cypher {{viasPresent}}), a scan of this index that stops at its first entry.
CREATE INDEX lineage_via IF NOT EXISTS FOR ()-[r:DownstreamOf]-() ON (r.via)

// @name serviceProcessUnique
// Registrations of running service processes (cypher/processes.cypher).
CREATE CONSTRAINT service_process_unique IF NOT EXISTS FOR (p:ServiceProcess) REQUIRE p.id IS UNIQUE

// @name aspectRunIndex
// Latest aspects by the run that last wrote or observed them, then urn: runs list, describe and rollback page a run in
// urn order (cypher/runs.cypher). Only latest nodes
// written by a named run (not the default run id) carry runId.
CREATE INDEX aspect_run IF NOT EXISTS FOR (a:Aspect) ON (a.runId, a.urn)

// @name lineagePastUnique
// Lineage edges that were removed, one record per (target, type, source, aspect), sought by target: as-of lineage
// (cypher/history.cypher) takes them as candidates and checks each against the source's aspect versions.
CREATE CONSTRAINT lineage_past_unique IF NOT EXISTS FOR (p:LineagePast) REQUIRE (p.target, p.type, p.source, p.aspect) IS UNIQUE

// @name historyMetaUnique
// State of the history indexes (the :LineagePast backfill of data written before they existed).
CREATE CONSTRAINT history_meta_unique IF NOT EXISTS FOR (m:HistoryMeta) REQUIRE m.name IS UNIQUE
