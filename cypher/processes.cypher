// Registrations of the service processes that share this database (src/stores/graph/process-lease.ts); every write
// transaction reads, in `writes/lock`, the peers it must tell before it is acknowledged (src/stores/peers). Times are
// Neo4j's clock (timestamp()), so processes on different hosts compare them on one clock. A process that advertises a
// peerUrl may serve its cache of latest aspects without asking Neo4j for leaseMs after each renewal; leaseMs as stored
// includes a margin for clock rates.

// @name renew
// Registers or renews a process. Renewals and revocations first lock one shared node, so they run one after another:
// a renewal sees every revocation committed before it, and the leases granted before a revocation began earlier.
// A revoked process learns it here (its peerUrl is withdrawn at once); registrations silent for ten minutes are removed.
MERGE (lock:ServiceProcess {id: '__registry_lock__'})
  ON CREATE SET lock.seenAt = 0, lock.leaseMs = 0
SET lock._LOCK_ = true
REMOVE lock._LOCK_
WITH lock
CALL () {
  MATCH (gone:ServiceProcess)
  WHERE gone.id <> $id AND gone.leaseMs > 0 AND gone.seenAt + 600000 < timestamp()
  DELETE gone
}
MERGE (me:ServiceProcess {id: $id})
  ON CREATE SET me.startedAt = timestamp()
WITH me, me.revokedAt IS NOT NULL AS revoked
SET me.seenAt = timestamp(), me.leaseMs = $leaseMs, me.revokedAt = null,
    me.peerUrl = CASE WHEN revoked THEN null ELSE $peerUrl END, me.peerToken = $peerToken
RETURN revoked

// @name deregister
MATCH (me:ServiceProcess {id: $id})
DELETE me

// @name revoke
// A peer that could not be told of a write: its next renewal ends its lease. `registered` false: it has deregistered
// (and stopped serving unchecked before that).
MERGE (lock:ServiceProcess {id: '__registry_lock__'})
  ON CREATE SET lock.seenAt = 0, lock.leaseMs = 0
SET lock._LOCK_ = true
REMOVE lock._LOCK_
WITH lock
OPTIONAL MATCH (p:ServiceProcess {id: $peer})
SET p.revokedAt = coalesce(p.revokedAt, timestamp())
RETURN p IS NOT NULL AS registered, p.revokedAt + p.leaseMs - timestamp() AS waitMs
