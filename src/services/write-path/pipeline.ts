import type { Logger } from 'pino';
import { revokedError } from '../../auth/revocation-check';
import { RevokedTokensError, type AspectStore } from '../../stores/graph/aspect-store';
import { GroupWriter, type GroupWriterOptions } from './group-writer';
import { KnownStates } from './known-states';
import { lockRequests, planLocked, rehearsalGroup, type ItemOutcome, type LockedEntity, type WriteItem } from './plan';
import type { Publisher } from './publish';

/*
 * The write path, stage by stage, in the order a write goes through them:
 *
 *   prepare  a request becomes WriteItems: validated, projected (values, edges, column edges, defaults)
 *                                                 WritePreparer (./prepare.ts), called by IngestionService's entry points
 *   group    concurrent requests ("units") share one transaction; writes to one entity commit in arrival order; no
 *            group starts while INDEX_BACKLOG_MAX_WRITES of this process's writes are not indexed yet (backpressure)
 *                                                 GroupWriter (./group-writer.ts), Publisher.holds (./publish.ts)
 *   lock     the group's entities are locked and their stored state read
 *                                                 lockRequests (./plan.ts) → AspectStore.writeGroup, writes/lock
 *            — or, when this process kept the state of every one (upserts only), nothing is read: the plan is made
 *            from those states and `apply` locks them and checks their revs instead (one round trip in all)
 *                                                 KnownStates (./known-states.ts) → AspectStore.writeKnownGroup
 *   plan     in memory and pure (a retried transaction plans again): what to write, what to answer
 *                                                 planLocked → planGroup → toPlan (./plan.ts)
 *   apply    the plan, in one statement, in the same transaction; it also checks that none of the tokens the
 *            units came with is revoked (a unit whose token is goes out of the group, which runs again)
 *                                                 AspectStore.writeGroup, writes/apply (cypher/writes.cypher)
 *   publish  after the transaction: the search indexer, and read coherence (caches here and in peer processes)
 *                                                 Publisher (./publish.ts)
 *
 * `writePipeline` wires group → publish; `commitGroup` runs lock → publish for one group.
 */

/** Before the first writes: a group that uses every write statement, rolled back (the statements are planned cold). */
export function rehearseWrites(store: AspectStore, namespace: string): Promise<void> {
  return store.prepareWrites(rehearsalGroup(namespace));
}

/**
 * The write path from the group stage on; IngestionService submits what it prepared (./prepare.ts) to it.
 * `knownStatesBytes`: how much of entities' states it keeps to plan their next write before its transaction (0: none).
 */
export function writePipeline(store: AspectStore, publisher: Publisher, options: GroupWriterOptions & { knownStatesBytes?: number }, logger?: Logger): GroupWriter {
  const known = new KnownStates(options.knownStatesBytes ?? 0);
  return new GroupWriter((units, now, timeoutMs, released, tokens) => commitGroup(store, publisher, known, units, now, timeoutMs, released, tokens), options, logger, publisher);
}

/**
 * Lock, plan and apply one group in one transaction, then publish. `released` frees the group's slot and entities in
 * the group stage once the transaction has committed, before its answers wait on publishing (a peer that is down holds
 * those answers for its lease, not the next groups). Per unit its outcomes, or the error of a unit left out; a failed
 * transaction is published too (it may have committed), then its error is thrown. `tokens`: per unit, the id of the
 * token its request came with, which the transaction checks (null: none to check).
 */
export async function commitGroup(
  store: AspectStore,
  publisher: Publisher,
  known: KnownStates,
  units: WriteItem[][],
  now: number,
  timeoutMs: number,
  released: () => void,
  tokens: (string | null)[] = [],
): Promise<(ItemOutcome[] | unknown)[]> {
  const jtis = [...new Set(tokens.filter((t): t is string => t !== null))];
  const entities = lockRequests(units);
  let requests = known.wholeReads(entities, units);
  const urns = requests.map((r) => r.urn);
  const lease = publisher.outboxLease(now);
  // Every entity known: planned now, applied in one statement that checks nothing changed meanwhile.
  const fromKnown = known.planFor(requests, units, now);
  if (fromKnown) {
    const { plan, result } = planLocked(units)(fromKnown.locked);
    const tx = await store.writeKnownGroup(fromKnown.known, plan, now, timeoutMs, lease, jtis);
    if (tx.applied) {
      known.committed(requests, fromKnown.locked, result.states, fromKnown.states);
      released();
      await publisher.committed(urns, result.writes, tx.peers, lease > 0);
      return result.outcomes;
    }
    // Stale, a token revoked, or failed (it may still have committed: the locking way then finds it written). Read
    // whole again.
    known.forget(urns);
    requests = known.wholeReads(entities, units);
  }
  let locked: Map<string, LockedEntity> | null = null;
  const tx = await store.writeGroup(requests, now, timeoutMs, (l: Map<string, LockedEntity>) => ((locked = l), planLocked(units)(l)), lease, jtis);
  if (!tx.committed && tx.error instanceof RevokedTokensError) {
    // Rolled back before writing anything: the units of revoked tokens are answered 401, the others run again.
    known.forget(urns);
    const revoked = new Set(tx.error.jtis);
    const isRevoked = (i: number) => revoked.has(tokens[i] ?? '');
    const kept = units.flatMap((_, i) => (isRevoked(i) ? [] : [i]));
    const outcomes: (ItemOutcome[] | unknown)[] = units.map((_, i) => (isRevoked(i) ? revokedError(tokens[i]!) : null));
    if (kept.length === 0) return outcomes;
    const again = await commitGroup(store, publisher, known, kept.map((i) => units[i]), now, timeoutMs, released, kept.map((i) => tokens[i] ?? null));
    kept.forEach((i, k) => (outcomes[i] = again[k]));
    return outcomes;
  }
  if (!tx.committed) {
    known.forget(urns);
    // Entries it may have left under the lease are claimed once the lease runs out.
    await publisher.failed(urns, tx.peers);
    throw tx.error;
  }
  known.committed(requests, locked, tx.result.states);
  released();
  await publisher.committed(urns, tx.result.writes, tx.peers, lease > 0);
  return tx.result.outcomes;
}
