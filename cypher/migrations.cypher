// One-time data migrations of databases written by earlier versions (run-store: the run index; lineage-store: the
// soft-delete flag), each recorded as a :Migration node once it has gone through every entity.

// @name done
MATCH (m:Migration {name: $name})
RETURN m.doneAt AS doneAt

// @name markDone
MERGE (m:Migration {name: $name})
SET m.doneAt = $now
