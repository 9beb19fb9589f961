// Registrations of the service processes that share this database (src/stores/graph/process-lease.ts). Times are
// Neo4j's clock (timestamp()), so processes on different hosts compare them on one clock. A process is live while
// seenAt + aliveMs lies ahead; aliveMs is its own: how long after a renewal its last write can still commit.

// @name renew
// Registers or renews a process and counts the other live ones. Every renewal first locks one shared node, so renewals
// run one after another and each sees every registration committed before it. A process that was not live (new, or
// silent too long) while others were may write only from writableAt on: any of them may still be reading its cache
// without asking Neo4j, on a lease taken when it could not see this one, and those leases run out by then.
// Registrations silent ten times their aliveMs are removed.
MERGE (lock:ServiceProcess {id: '__registry_lock__'})
  ON CREATE SET lock.seenAt = 0, lock.aliveMs = 0
SET lock._LOCK_ = true
REMOVE lock._LOCK_
WITH lock
OPTIONAL MATCH (before:ServiceProcess {id: $id})
WITH lock, before IS NOT NULL AND before.seenAt + before.aliveMs > timestamp() AS wasLive,
     COUNT { MATCH (o:ServiceProcess) WHERE o.id <> $id AND o <> lock AND o.seenAt + o.aliveMs > timestamp() } AS others
CALL () {
  MATCH (gone:ServiceProcess)
  WHERE gone.id <> $id AND gone.aliveMs > 0 AND gone.seenAt + gone.aliveMs * 10 < timestamp()
  DELETE gone
}
MERGE (me:ServiceProcess {id: $id})
  ON CREATE SET me.startedAt = timestamp()
SET me.seenAt = timestamp(), me.aliveMs = $aliveMs,
    me.writableAt = CASE WHEN wasLive THEN coalesce(me.writableAt, 0)
                         WHEN others > 0 THEN timestamp() + $waitMs ELSE timestamp() END
RETURN others, me.writableAt - timestamp() AS waitMs

// @name deregister
MATCH (me:ServiceProcess {id: $id})
DELETE me

// @name fence
// Run first in every write transaction: whether the process renewed recently enough (freshMs) and may write. What it
// commits after this check, it commits within aliveMs of its last renewal, while others still count it as live.
OPTIONAL MATCH (me:ServiceProcess {id: $id})
RETURN me IS NOT NULL AND me.seenAt + $freshMs > timestamp() AND me.writableAt <= timestamp() AS writable
