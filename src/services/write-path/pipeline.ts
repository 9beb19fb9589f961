import type { Logger } from 'pino';
import type { AspectStore } from '../../stores/graph/aspect-store';
import { GroupWriter, type GroupWriterOptions } from './group-writer';
import { lockRequests, planLocked, rehearsalGroup, type ItemOutcome, type WriteItem } from './plan';
import type { Publisher } from './publish';

/*
 * The write path, stage by stage, in the order a write goes through them:
 *
 *   prepare  a request becomes WriteItems: validated, projected (values, edges, column edges, defaults)
 *                                                 WritePreparer (./prepare.ts), called by IngestionService's entry points
 *   group    concurrent requests ("units") share one transaction; writes to one entity commit in arrival order; no
 *            group starts while this process's indexer has INDEX_BACKLOG_MAX_WRITES of them waiting (backpressure)
 *                                                 GroupWriter (./group-writer.ts), Publisher.holds (./publish.ts)
 *   lock     the group's entities are locked and their stored state read
 *                                                 lockRequests (./plan.ts) → AspectStore.writeGroup, writes/lock
 *   plan     in memory and pure (a retried transaction plans again): what to write, what to answer
 *                                                 planLocked → planGroup → toPlan (./plan.ts)
 *   apply    the plan, in one statement, in the same transaction
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

/** The write path from the group stage on; IngestionService submits what it prepared (./prepare.ts) to it. */
export function writePipeline(store: AspectStore, publisher: Publisher, options: GroupWriterOptions, logger?: Logger): GroupWriter {
  return new GroupWriter((units, now, timeoutMs, released) => commitGroup(store, publisher, units, now, timeoutMs, released), options, logger, publisher);
}

/**
 * Lock, plan and apply one group in one transaction, then publish. `released` frees the group's slot and entities in
 * the group stage once the transaction has committed, before its answers wait on publishing (a peer that is down holds
 * those answers for its lease, not the next groups). Per unit its outcomes, or the error of a unit left out; a failed
 * transaction is published too (it may have committed), then its error is thrown.
 */
export async function commitGroup(
  store: AspectStore,
  publisher: Publisher,
  units: WriteItem[][],
  now: number,
  timeoutMs: number,
  released: () => void,
): Promise<(ItemOutcome[] | unknown)[]> {
  const requests = lockRequests(units);
  const urns = requests.map((r) => r.urn);
  const lease = publisher.outboxLease(now);
  const tx = await store.writeGroup(requests, now, timeoutMs, planLocked(units), lease);
  if (!tx.committed) {
    // Entries it may have left under the lease are claimed once the lease runs out.
    await publisher.failed(urns, tx.peers);
    throw tx.error;
  }
  released();
  await publisher.committed(urns, tx.result.writes, tx.peers, lease > 0);
  return tx.result.outcomes;
}
