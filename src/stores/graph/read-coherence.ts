import { UnavailableError } from '../../model/errors';
import type { PeerInvalidation } from '../peers/peer-invalidation';
import { LatestAspectCache, packAspectRows, unpackAspectRows, type CachedLatest, type StoredAspectRow } from './latest-aspect-cache';
import type { Peer, ProcessLease } from './process-lease';
import { RelationshipPageCache, type CachedRelationshipPage } from './relationship-page-cache';

/** A read of one entity's latest aspects ($names null: all). */
export interface LatestRead {
  urn: string;
  names: string[] | null;
  /**
   * Copies of another shape are kept apart under their own scope: a lineage page's copies hold values only (no created
   * stamps or system metadata), and must never answer an entity read of the same aspects.
   */
  scope?: string;
}

/** Tells other service processes which entities a write changed, before it is acknowledged (src/stores/peers). */
export interface PeerNotifier {
  notify(peers: Iterable<Peer>, urns: readonly string[]): Promise<void>;
}

/** One coalesced read of latest aspects, as read coherence sees it: from `beforeRead` to `end`. */
export interface CoherentRead {
  /** Per read: the aspects a cached copy serves without asking Neo4j, or undefined (ask). */
  readonly served: readonly (StoredAspectRow[] | undefined)[];
  /** The rev of the copy held for read `i` (-1: none): Neo4j then answers "unchanged" instead of sending the aspects. */
  knownRev(i: number): number;
  /** Neo4j's answer to read `i`: the entity's rev, and its aspects when the copy held is not current. What to answer. */
  answered(i: number, rev: number | null, fresh: () => StoredAspectRow[]): StoredAspectRow[];
  /** Read `i` found no entity. */
  absent(i: number): void;
  end(): void;
}

/** One relationship read, as read coherence sees it: a page to serve without asking Neo4j, or where Neo4j's answer goes. */
export interface CoherentRelationshipRead {
  readonly served: CachedRelationshipPage | undefined;
  answered(page: CachedRelationshipPage): void;
}

/**
 * The read-cache protocol behind one seam. The aspect store asks it what a read may serve (`beforeRead`) and which
 * peer processes a write transaction must find (`peersOf`); the write path's publish stage tells it every write
 * transaction's end (`afterCommit`). Modes: no cache; a cache checked against Neo4j on every read (the entity's rev
 * travels instead of its aspects); or, with READ_CACHE_UNCHECKED, copies served unchecked while this process's lease
 * allows (ProcessLease), because every write, through any process, drops them before it is acknowledged
 * (PeerInvalidation).
 */
export interface ReadCoherence {
  /** This process's id, whose peers every write transaction reads (`writes/lock` $peersOf); null: no peer needs telling. */
  peersOf(): string | null;
  beforeRead(reads: readonly LatestRead[]): CoherentRead;
  /** A relationship page (RelationshipPageCache.key); null: always asked of Neo4j. */
  beforeRelationshipRead(key: string): CoherentRelationshipRead | null;
  /**
   * After a write transaction, committed or not (a failed commit may still have committed): drops this process's copies
   * of `urns` and tells `peers` (the processes every attempt of the transaction found), or revokes them. Resolves once
   * every peer has been handled; rejects (UnavailableError) only when a committed write's peers could be neither told
   * nor revoked: the write must not be acknowledged then.
   */
  afterCommit(urns: readonly string[], peers: readonly Peer[], committed: boolean): Promise<void>;
}

export interface ReadCoherenceOptions {
  /** READ_CACHE_SIZE: bytes of stored JSON the cache keeps (0: no cache). */
  cacheBytes: number;
  /** READ_CACHE_UNCHECKED: serve copies without asking Neo4j while the lease allows. */
  unchecked: boolean;
}

/** The process's cache of latest aspects, kept coherent through its lease and the peer channel. */
export class LeasedReadCoherence implements ReadCoherence {
  constructor(
    private readonly cache: LatestAspectCache | null,
    private readonly lease: ProcessLease | null = null,
    private readonly peers: PeerNotifier | null = null,
    private readonly pages: RelationshipPageCache | null = null,
  ) {}

  /**
   * The mode the options choose. Unchecked reads need the peer channel: this process listens for others' writes and
   * advertises where (the lease then carries it), so every write tells it before it is acknowledged. Only then are
   * relationship pages cached too (a quarter of the budget): nothing cheaper than the page itself tells whether one is
   * current, so they cannot be checked.
   */
  static async open(options: ReadCoherenceOptions, lease: ProcessLease, peers: PeerInvalidation): Promise<LeasedReadCoherence> {
    if (options.cacheBytes <= 0) return new LeasedReadCoherence(null, lease, peers);
    if (!options.unchecked) return new LeasedReadCoherence(new LatestAspectCache(options.cacheBytes), lease, peers);
    const cache = new LatestAspectCache(options.cacheBytes - Math.floor(options.cacheBytes / 4));
    const pages = new RelationshipPageCache(Math.floor(options.cacheBytes / 4));
    lease.advertise(
      await peers.listen((urns) => {
        cache.invalidate(urns);
        pages.invalidate();
      }),
    );
    return new LeasedReadCoherence(cache, lease, peers, pages);
  }

  peersOf(): string | null {
    return this.lease && this.peers ? this.lease.id : null;
  }

  beforeRead(reads: readonly LatestRead[]): CoherentRead {
    const cache = this.cache;
    const lease = this.lease;
    // Reads that arrive together mostly share one list of names (a lineage page's rows always do): sorted once.
    const namesKeys = new Map<readonly string[], string>();
    const namesKey = (names: string[]) => {
      let key = namesKeys.get(names);
      if (key === undefined) namesKeys.set(names, (key = LatestAspectCache.namesKey(names)));
      return key;
    };
    const keys = reads.map((r) => LatestAspectCache.keyOf(r.urn, r.names ? namesKey(r.names) : null, r.scope));
    const cached: (CachedLatest | undefined)[] = keys.map((key) => cache?.get(key));
    // Copies read in this lease's epoch are current: every write, through any process, drops them before it is answered.
    const unchecked = lease?.unchecked() ?? false;
    const epoch = unchecked ? lease!.epoch : -1;
    const served = cached.map((copy) => (unchecked && copy && copy.epoch === epoch ? unpackAspectRows(copy.packed) : undefined));
    let ticket: number | null = null;
    return {
      served,
      knownRev: (i) => {
        // Asking Neo4j begins here: invalidations from now on count as overtaking this read.
        ticket ??= cache?.beginRead() ?? 0;
        return cached[i]?.rev ?? -1;
      },
      answered: (i, rev, fresh) => {
        // Trusted unchecked later only if the lease held throughout and no write's invalidation overtook the read.
        const trusted = unchecked && lease!.unchecked() && lease!.epoch === epoch && !cache?.overtaken(reads[i].urn, ticket ?? 0);
        const copy = cached[i];
        if (copy && rev === copy.rev) {
          if (trusted && copy.epoch !== epoch) cache?.set(keys[i], { ...copy, epoch });
          return unpackAspectRows(copy.packed);
        }
        const rows = fresh();
        if (cache && typeof rev === 'number') cache.set(keys[i], { rev, packed: packAspectRows(rows), epoch: trusted ? epoch : -1 });
        return rows;
      },
      absent: (i) => {
        if (cached[i]) cache?.delete(keys[i]);
      },
      end: () => {
        if (ticket !== null) cache?.endRead();
      },
    };
  }

  beforeRelationshipRead(key: string): CoherentRelationshipRead | null {
    const pages = this.pages;
    const lease = this.lease;
    if (!pages || !lease?.unchecked()) return null;
    const epoch = lease.epoch;
    const served = pages.get(key, epoch);
    if (served) return { served, answered: () => undefined };
    const ticket = pages.beginRead();
    return {
      served: undefined,
      // Kept only if the lease held throughout and no write's invalidation overtook the read.
      answered: (page) => {
        if (lease.unchecked() && lease.epoch === epoch) pages.set(key, page, epoch, ticket);
      },
    };
  }

  async afterCommit(urns: readonly string[], peers: readonly Peer[], committed: boolean): Promise<void> {
    this.cache?.invalidate(urns);
    this.pages?.invalidate();
    if (peers.length === 0 || !this.peers) return;
    const told = this.peers.notify(peers, urns);
    // A failed write reports its own error; a committed one is not acknowledged unless every peer was handled.
    if (!committed) return told.catch(() => undefined);
    await told.catch((err) => {
      // Not a failure of the group: its units must not be written again one by one.
      throw new UnavailableError(`The write was committed, but another service process could not be told of it or revoked: ${(err as Error).message}`, 'neo4j');
    });
  }
}
