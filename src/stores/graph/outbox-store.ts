import neo4j from 'neo4j-driver';
import type { Neo4jExecutor } from './neo4j-executor';

export interface OutboxEntry {
  urn: string;
  rev: number;
}

const keys = (entries: OutboxEntry[]) => entries.map(({ urn, rev }) => ({ urn, rev }));

/** The search outbox in Neo4j (cypher/outbox.cypher). Entries are written by the aspect statements themselves. */
export class OutboxStore {
  /** `ns` is the index set (SEARCH_INDEX_PREFIX) this store consumes and enqueues for. */
  constructor(
    private readonly neo4j: Neo4jExecutor,
    private readonly ns: string,
  ) {}

  async claim(limit: number, leaseMs: number, now = Date.now()): Promise<OutboxEntry[]> {
    return this.neo4j.write('outbox.claim', async (tx) => {
      const result = await tx.run(this.neo4j.cypher.get('outbox/claim'), { limit: neo4j.int(limit), leaseMs, now, ns: this.ns });
      return result.records.map((r) => ({ urn: r.get('urn') as string, rev: Number(r.get('rev')) }));
    });
  }

  /** Removes the entries still at the indexed revision; returns the pending-delete markers they held. */
  async acknowledge(entries: OutboxEntry[]): Promise<string[]> {
    if (entries.length === 0) return [];
    return this.neo4j.write('outbox.acknowledge', async (tx) => {
      const result = await tx.run(this.neo4j.cypher.get('outbox/acknowledge'), { entries: keys(entries), ns: this.ns });
      return result.records.map((r) => r.get('marker') as string);
    });
  }

  async markApplied(entries: OutboxEntry[], claimUntil: number): Promise<void> {
    if (entries.length === 0) return;
    await this.neo4j.write('outbox.markApplied', (tx) => tx.run(this.neo4j.cypher.get('outbox/markApplied'), { entries: keys(entries), claimUntil, ns: this.ns }));
  }

  /** The ids of these pending-delete markers that their entity's entry still holds. */
  async referencedMarkers(markers: { id: string; urn: string }[]): Promise<Set<string>> {
    if (markers.length === 0) return new Set();
    const records = await this.neo4j.query('outbox.referencedMarkers', 'outbox/referencedMarkers', { markers, ns: this.ns });
    return new Set(records.map((r) => r.get('id') as string));
  }

  async release(urns: string[], retryAt: number): Promise<void> {
    if (urns.length === 0) return;
    await this.neo4j.write('outbox.release', (tx) => tx.run(this.neo4j.cypher.get('outbox/release'), { urns, retryAt, ns: this.ns }));
  }

  async pending(urns: string[] | null): Promise<number> {
    const records = await this.neo4j.query('outbox.pending', 'outbox/pending', { urns, ns: this.ns });
    return Number(records[0]?.get('pending') ?? 0);
  }

  async enqueue(urns: string[], now = Date.now()): Promise<void> {
    if (urns.length === 0) return;
    await this.neo4j.write('outbox.enqueue', (tx) => tx.run(this.neo4j.cypher.get('outbox/enqueue'), { urns, now, ns: this.ns }));
  }
}
