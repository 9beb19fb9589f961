import { LRUCache } from 'lru-cache';
import { status } from '../../model/aspects';
import neo4j, { type ManagedTransaction } from 'neo4j-driver';
import { DeadlineExceededError } from '../../model/errors';
import type { StoredAspectRow } from './latest-aspect-cache';
import { MIGRATIONS } from './migrations';
import type { Neo4jExecutor } from './neo4j-executor';
import type { CoherentRead, ReadCoherence } from './read-coherence';

export type LineageDirection = 'UPSTREAM' | 'DOWNSTREAM';

/** One OR-branch of the result filter; null = no condition. */
export interface LineageFilterGroup {
  degrees: number[] | null;
  types: string[] | null;
  platforms: string[] | null;
  includeRemoved: boolean;
}

export interface LineageQuery {
  urn: string;
  direction: LineageDirection;
  /** Column-level: traverse schemaField nodes only; otherwise every node but schemaFields. */
  columns: boolean;
  maxHops: number;
  fanOut: number;
  visitCap: number;
  groups: LineageFilterGroup[];
  start: number;
  count: number;
  /** Aspects returned with each entity of the page (none: the page is not read, e.g. rest.li answers only urns). */
  aspects: string[];
  deadlineMs: number;
  /**
   * Ids of tokens whose revocation the walk's first statement checks (none: nothing to check); the page then says
   * whether one is revoked. A read that checks its caller's token there needs no lookup of its own.
   */
  tokens?: string[];
  /**
   * The page's paths' edges that may pass through a node (DataHub's via nodes), as `downstreamType>upstreamType`: the
   * walk reads their vias (LineagePage.vias) in its transaction, when the database has any. Absent: none read.
   */
  viaEnds?: ReadonlySet<string>;
}

/** A row's aspects by name; one it lacks (or the walk did not read) is undefined. */
export interface AspectValues {
  get(name: string): Record<string, unknown> | undefined;
}

export interface LineageRow {
  urn: string;
  type: string;
  degree: number;
  path: { urn: string; type: string }[];
  aspects: AspectValues;
  /**
   * The entity's rev when its aspects were read (every write bumps it), so (urn, rev) names the row's aspects; null when
   * the walk read no aspects or does not know it.
   */
  rev: number | null;
}

export interface LineagePage {
  total: number;
  /** Which bounds cut the traversal short. */
  cut: { visitCap: boolean; fanOut: boolean; maxHops: boolean };
  rows: LineageRow[];
  /** Whether one of the query's `tokens` is revoked (false when it named none); absent where tokens are not checked. */
  revoked?: boolean;
  /**
   * The nodes the page's path edges pass through, by `downstream|upstream` (LineageQuery.viaEnds): the edges that
   * have one. Absent when not asked, or when no edge in the database has one.
   */
  vias?: Map<string, string>;
}

/** How a lineage relationship is stored: isUpstream = from the downstream entity to its upstream. */
export type LineageEdges = Map<string, { isUpstream: boolean }>;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Stands for "no relationship type" in a type list (a name no edge has; Neo4j just counts nothing). */
const NO_TYPE = '__NoLineage__';
/** How many of the nodes at the hop bound are first asked whether lineage leads on from them. */
const FIRST_ASKED = 32;
/**
 * The last hop asks whether lineage leads on from the nodes it reaches first when the walk has visited at most this
 * many (they are sent to tell those nodes apart), so a small walk needs no statement after it; a larger walk asks a few
 * of its nodes at the bound afterwards (FIRST_ASKED).
 */
const BOUND_ASKED_VISITED = 256;
/**
 * A hop reads the aspects of the neighbours that would be on the page (cypher/lineage.cypher hop) while the walk has
 * visited at most this many (they are sent to tell the new neighbours apart); past it, a deep page is read afterwards.
 */
const PAGE_IN_HOP_VISITED = 1024;
/**
 * The last hop is counted in Neo4j (cypher/lineage.cypher lastHopCounted: one row, only the page's neighbours) while
 * the walk has visited at most this many nodes before it (sent as a map, so it tells the new neighbours apart);
 * past it, the last hop returns every neighbour as the others do. At 1,024, ten hops from random starts (~700 nodes
 * before their last hop) were 3-8 % slower for sending the map.
 */
const LAST_COUNTED_VISITED = 256;

/** A node the walk reached: how far, from which node (one shortest path each), and what the bounds and filters read. */
interface Reached {
  urn: string;
  /**
   * Element id of its node in the walk's transaction (the start: its urn, by which the first hop seeks it); null for
   * nodes of the last hop, which no hop seeks.
   */
  node: string | null;
  degree: number;
  parent: Reached | null;
  /** Lineage edges onward; null when it has no more than fanOut edges at all (so it is expanded). */
  onward: number | null;
  removed: boolean;
  /** Its aspects the query asked for, when the hop that reached it read them (see the hop statement's `page`). */
  aspects?: StoredAspect[];
  /** Its rev, read with its aspects or to check a copy of them (null: not read, or an entity without one). */
  rev?: number | null;
}

/** An aspect as the hop and finish statements return it: the value as stored (JSON). */
interface StoredAspect {
  name: string;
  value: string;
}

/** The read cache's scope for a lineage page's copies: values only (LatestRead.scope). */
const PAGE_COPY_SCOPE = 'lineagePage';
/** Page hints (LineageStore.pageHints) kept: at most this many urns over every walk remembered. */
const PAGE_HINT_URNS = 20_000;
/** A larger page is not hinted: every hop of its walk would send a map of its rows to check. */
const HINTED_PAGE_MAX = 1_000;

const FLAG_READ = 'coalesce(b.removed, false)';
const STATUS_READ = `EXISTS { (b)-[:ASPECT]->(st:Aspect {name: $statusAspect}) WHERE st.value CONTAINS '"removed":true' }`;
/** How a hop finds its frontier (cypher/lineage.cypher hop): the start by urn, later frontiers by element id. */
export const FRONTIER_BY_URN = 'MATCH (a:Entity {urn: $frontier[i]})';
export const FRONTIER_BY_ELEMENT_ID = 'MATCH (a:Entity) WHERE elementId(a) = $frontier[i]';
/** A walk's first statement: whether a token of $tokens is revoked (cypher/tokens.cypher keeps the revocations). */
export const TOKENS_REVOKED = 'EXISTS { MATCH (t:RevokedToken) WHERE t.jti IN $tokens }';
/**
 * A walk's first statement, until the store has seen one: whether any lineage edge passes through a node (its `via`,
 * the lineage_via index's first entry; a data job's column edges, a prefix seek of the owner index).
 */
export const VIAS_PRESENT = 'EXISTS { MATCH ()-[v:DownstreamOf]->() WHERE v.via IS NOT NULL } OR EXISTS { MATCH ()-[v:DownstreamOf]->() WHERE v.owner STARTS WITH $jobPrefix }';

/**
 * Multi-hop lineage on the projected edges, breadth-first, one statement per hop (cypher/lineage.cypher): the
 * visited set and parents are kept here, so every node is expanded once and a hub's edges are read once.
 */
export class LineageStore {
  private readonly texts = new Map<LineageDirection, WalkStatements>();
  /** Whether hops may read the node's flag; until then they read each node's status aspect. */
  private flagComplete = false;
  /**
   * The lineage relationship types that had edges when last counted (null: every type, as before the first count).
   * The others are left out of the hop statements, which tell when one of them has edges now (`stale`).
   */
  private present: ReadonlySet<string> | null = null;
  /**
   * Whether a lineage edge that passes through a node (LineagePage.vias) was seen: edges are not rewritten without
   * theirs, so once seen the first statements stop asking.
   */
  private viasSeen = false;
  /** A count running, shared by the walks that found the present types stale meanwhile. */
  private counting: Promise<void> | null = null;

  /** How a schemaField's urn starts: hops tell column nodes from the others by it. */
  private readonly schemaFieldPrefix: string;
  /** How a data job's urn starts: its column lineage passes through it (viasOf). */
  private readonly jobPrefix: string;

  /**
   * The page each walk answered last, by its query: the rows the same walk most likely answers again. Once the read
   * cache holds a copy of each of them, the walk chooses its page here and its hops only read those rows' revs (a
   * copy serves a row whose rev is unchanged), instead of reading the page's aspects in the hop: from a hub, ~4 ms of a
   * 17 ms one-hop walk with the aspects an ingested table has (bench/lineage.ts).
   */
  private readonly pageHints = new LRUCache<string, string[]>({ maxSize: PAGE_HINT_URNS, sizeCalculation: (urns) => urns.length + 1 });

  constructor(
    private readonly neo4j: Neo4jExecutor,
    private readonly edges: LineageEdges,
    urnNamespace: string,
    /** The read cache behind page copies (ReadCoherence); null: every page is read from Neo4j. */
    private readonly coherence: ReadCoherence | null = null,
  ) {
    this.schemaFieldPrefix = `urn:${urnNamespace}:schemaField:`;
    this.jobPrefix = `urn:${urnNamespace}:dataJob:`;
    for (const name of edges.keys()) if (!IDENTIFIER.test(name)) throw new Error(`Lineage relationship name '${name}' is not a plain identifier`);
  }

  /** The statements of one direction (cached: Neo4j then caches their plans too). */
  private statements(direction: LineageDirection): WalkStatements {
    let texts = this.texts.get(direction);
    if (!texts) {
      const all = [...this.edges.keys()];
      const present = this.present;
      const walked = present === null ? all : all.filter((t) => present.has(t));
      // Walking downstream follows isUpstream=false edges along their direction and isUpstream=true ones against it.
      const forward = walked.filter((t) => this.edges.get(t)!.isUpstream === (direction === 'UPSTREAM'));
      const back = walked.filter((t) => !forward.includes(t));
      const absent = all.filter((t) => !walked.includes(t));
      const fill = (text: string) =>
        text
          .replace('{{expand}}', expansion(forward, back))
          .replaceAll('{{back}}', back.length > 0 ? back.join('|') : NO_TYPE)
          .replaceAll('{{fwd}}', forward.length > 0 ? forward.join('|') : NO_TYPE)
          .replaceAll('{{removed}}', this.flagComplete ? FLAG_READ : STATUS_READ);
      const hop = fill(this.neo4j.cypher.get('lineage/hop'));
      const counted = fill(this.neo4j.cypher.get('lineage/lastHopCounted'));
      // Only a walk's first statement asks whether a left-out type has edges now (see traverse).
      const asked = edgeCounts(absent, 'absent');
      const askedNot = { counts: '', found: 'false' };
      const guarded = (text: string, { counts, found }: { counts: string; found: string }) => text.replace('{{absentCounts}}', counts).replace('{{absentFound}}', found);
      const vias = this.viasSeen ? 'true' : VIAS_PRESENT;
      // And whether the caller's token is revoked ($tokens), so that the read needs no lookup of its own.
      texts = {
        start: guarded(hop.replace('{{frontier}}', FRONTIER_BY_URN), asked).replace('{{tokensRevoked}}', TOKENS_REVOKED).replace('{{viasPresent}}', vias),
        hop: guarded(hop.replace('{{frontier}}', FRONTIER_BY_ELEMENT_ID), askedNot).replace('{{tokensRevoked}}', 'false').replace('{{viasPresent}}', 'false'),
        finish: fill(this.neo4j.cypher.get('lineage/finish')),
        countedFirst: guarded(counted.replace('{{frontier}}', FRONTIER_BY_URN), asked).replace('{{tokensRevoked}}', TOKENS_REVOKED).replace('{{viasPresent}}', vias),
        counted: guarded(counted.replace('{{frontier}}', FRONTIER_BY_ELEMENT_ID), askedNot).replace('{{tokensRevoked}}', 'false').replace('{{viasPresent}}', 'false'),
      };
      this.texts.set(direction, texts);
    }
    return texts;
  }

  /**
   * Makes Neo4j know every lineage relationship type (cypher/lineage.cypher knowTypes), before the hop statements
   * are first planned: in a catalog without some of them they would otherwise look those names up on every row.
   */
  async prepare(): Promise<void> {
    const creates = [...this.edges.keys()].map((type) => `CREATE (probe)-[:${type}]->(probe)`).join('\n');
    await this.neo4j.rehearse('lineage.prepare', (tx) => tx.run(this.neo4j.cypher.get('lineage/knowTypes').replaceAll('{{creates}}', creates)));
    this.flagComplete = (await this.neo4j.query('lineage.migration', 'migrations/done', { name: MIGRATIONS.softDeleteFlag })).length > 0;
    await this.countPresentTypes();
  }

  /** Which lineage relationship types have edges now (one statement, count-store reads); the hop statements follow. */
  private countPresentTypes(): Promise<void> {
    this.counting ??= (async () => {
      try {
        const types = [...this.edges.keys()];
        const text = this.neo4j.cypher
          .get('lineage/typesPresent')
          .replace('{{counts}}', edgeCounts(types, 'c').counts)
          .replace('{{present}}', types.map((_, k) => `c${k} > 0`).join(', '));
        const present = await this.neo4j.read('lineage.types', async (tx) => (await tx.run(text)).records[0].get('present') as boolean[]);
        this.present = new Set(types.filter((_, i) => present[i]));
        this.texts.clear();
      } finally {
        this.counting = null;
      }
    })();
    return this.counting;
  }

  /**
   * Gives entities written before the write path kept the soft-delete flag on the node their flag, page by page in urn
   * order; then hops read the flag. Once through, it is recorded and never runs again (in the background at start).
   */
  /**
   * The nodes lineage edges pass through (DataHub's via nodes: a lineage's query, a data job's column lineage), for the
   * edges of `rows`' paths whose ends' types are in `ends`: by `downstream|upstream`, only those with one.
   */
  private async viasOf(tx: ManagedTransaction, rows: LineageRow[], direction: LineageDirection, ends: ReadonlySet<string>): Promise<Map<string, string>> {
    const pairs = new Map<string, [string, string]>();
    for (const r of rows) {
      for (let i = 0; i + 1 < r.path.length; i++) {
        const [down, up] = direction === 'UPSTREAM' ? [r.path[i], r.path[i + 1]] : [r.path[i + 1], r.path[i]];
        if (ends.has(`${down.type}>${up.type}`)) pairs.set(`${down.urn}|${up.urn}`, [down.urn, up.urn]);
      }
    }
    const vias = new Map<string, string>();
    if (pairs.size === 0) return vias;
    const records = (await tx.run(this.neo4j.cypher.get('lineage/vias'), { pairs: [...pairs.values()], jobPrefix: this.jobPrefix })).records;
    for (const r of records) vias.set(`${r.get('downstream') as string}|${r.get('upstream') as string}`, r.get('via') as string);
    return vias;
  }

  /** A walk found an edge that passes through a node: later walks' first statements stop asking. */
  private sawVias(): void {
    if (this.viasSeen) return;
    this.viasSeen = true;
    this.texts.clear();
  }

  /** Which of `urns` are soft-deleted entities. */
  async removedAmong(urns: string[]): Promise<Set<string>> {
    if (urns.length === 0) return new Set();
    const text = this.neo4j.cypher.get('lineage/removed').replace('{{removed}}', this.flagComplete ? FLAG_READ : STATUS_READ);
    const records = await this.neo4j.queryText('lineage.removed', text, { urns, statusAspect: status.name }, { mode: 'READ' });
    return new Set(records[0]?.get('removed') as string[]);
  }

  async flagEarlierSoftDeletes(batch = 5000): Promise<number> {
    if (this.flagComplete) return 0;
    let after = '';
    let marked = 0;
    for (;;) {
      const [record] = await this.neo4j.query('lineage.migration', 'lineage/markSoftDeletedPage', { after, limit: neo4j.int(batch), statusAspect: status.name }, { mode: 'WRITE' });
      marked += Number(record.get('marked'));
      const last = record.get('last') as string | null;
      if (last === null) break;
      after = last;
    }
    await this.neo4j.query('lineage.migration', 'migrations/markDone', { name: MIGRATIONS.softDeleteFlag, now: Date.now() }, { mode: 'WRITE' });
    this.flagComplete = true;
    this.texts.clear();
    return marked;
  }

  async traverse(q: LineageQuery): Promise<LineagePage> {
    if (!Number.isInteger(q.maxHops) || q.maxHops < 1 || q.maxHops > 100) throw new Error(`maxHops must be an integer in 1..100, got ${q.maxHops}`);
    const deadline = Date.now() + q.deadlineMs;
    // A walk whose first statement finds edges of a type its statements left out counts the types again and walks again;
    // should that keep happening (types appearing while it counts), it walks every type.
    for (let attempt = 1; ; attempt++) {
      const page = await this.traverseOnce(q, deadline);
      if (page !== STALE_TYPES) return page;
      if (attempt < 3) await this.countPresentTypes();
      else {
        this.present = null;
        this.texts.clear();
      }
    }
  }

  private async traverseOnce(q: LineageQuery, deadline: number): Promise<LineagePage | typeof STALE_TYPES> {
    const hintKey = q.aspects.length > 0 && this.coherence ? pageHintKey(q) : null;
    const hint = hintKey ? this.pageHints.get(hintKey) : undefined;
    // Asked before the walk: a copy made from what it reads is trusted only if no write's invalidation overtook it.
    const copies = hint ? new PageCopies(this.coherence!.beforeRead(hint.map((urn) => ({ urn, names: q.aspects, scope: PAGE_COPY_SCOPE }))), hint) : null;
    try {
      let page = await this.walkAndPage(q, deadline, copies, true);
      if (page === OVER_CAP) page = await this.walkAndPage(q, deadline, copies, false);
      if (page === OVER_CAP) throw new Error('A walk that counts no hop in Neo4j is never over the cap');
      if (hintKey && page !== STALE_TYPES && page.rows.length > 0 && page.rows.length <= HINTED_PAGE_MAX) this.pageHints.set(hintKey, page.rows.map((r) => r.urn));
      return page;
    } finally {
      copies?.end();
    }
  }

  /**
   * The parameters of what every hop reads of each neighbour (cypher/lineage.cypher's `neighbours` and
   * `onwardAndRemoved` fragments), and on a walk's first statement the caller's tokens for its revocation check.
   */
  private neighbourParams(q: LineageQuery, frontier: Reached[], first: boolean) {
    return {
      frontier: frontier.map((v) => v.node),
      columns: q.columns,
      schemaFieldPrefix: this.schemaFieldPrefix,
      fanOut: neo4j.int(q.fanOut),
      statusAspect: status.name,
      ...(first ? { tokens: q.tokens ?? [], jobPrefix: this.jobPrefix } : {}),
    };
  }

  /**
   * `countLast`: the last hop is counted in Neo4j (cypher/lineage.cypher lastHopCounted) when the walk has visited at
   * most LAST_COUNTED_VISITED nodes before it; OVER_CAP when that hop would pass the result cap (the walk is then run
   * again without it, so the cap keeps the first nodes in order).
   */
  private async walkAndPage(q: LineageQuery, deadline: number, copies: PageCopies | null, countLast: boolean): Promise<LineagePage | typeof STALE_TYPES | typeof OVER_CAP> {
    const { start, hop, finish, countedFirst, counted } = this.statements(q.direction);
    // Every row of the walk's last page held: this walk chooses its page here and its hops check those rows' revs.
    const fromCopies = copies?.allHeld() ?? false;
    const missed = () => new DeadlineExceededError(`Lineage of ${q.urn} did not finish within its deadline of ${q.deadlineMs} ms`);
    // A walk of one hop seeks its start by urn and reads nothing that lives in a transaction (element ids): its
    // statements run as auto-commit reads, a round trip and BEGIN's and COMMIT's socket writes fewer.
    const reads = q.maxHops === 1 ? this.neo4j.readEachStatement.bind(this.neo4j) : this.neo4j.read.bind(this.neo4j);
    return reads(
      'lineage.traverse',
      async (tx) => {
        /** Asked in the last hop: whether lineage leads on from a node first reached there; null when not asked. */
        let leadsOnAtBound: boolean | null = null;
        let stale = false;
        let revoked = false;
        let vias = false;
        const { reached, visitCut, lastFrontier, visited: visitedBefore } = await this.walk(q, (visited) => countLast && visited.size <= LAST_COUNTED_VISITED, async (frontier, degree, visited) => {
          if (Date.now() >= deadline) throw missed();
          const bound = degree === q.maxHops && visited.size <= BOUND_ASKED_VISITED;
          // The page's rows this hop may reach: those after the nodes reached before it, in urn order (filters may
          // push a row past them; it is read afterwards).
          const before = visited.size - 1;
          const inHop = q.aspects.length > 0 && !fromCopies && visited.size <= PAGE_IN_HOP_VISITED;
          const pageSkip = Math.max(0, q.start - before);
          const pageTake = inHop ? Math.max(0, q.start + q.count - before - pageSkip) : 0;
          const params = {
            ...this.neighbourParams(q, frontier, degree === 1),
            bound,
            visited: bound || pageTake > 0 ? [...visited] : [],
            lastHop: degree === q.maxHops,
            pageSkip: neo4j.int(pageSkip),
            pageTake: neo4j.int(pageTake),
            aspects: q.aspects,
            known: fromCopies ? copies!.known : {},
          };
          // The neighbours come in rows of a few dozen (see the statement); each row repeats leadsOn.
          const records = (await tx.run(degree === 1 ? start : hop, params)).records;
          if (degree === 1 && records[0].get('revoked') === true) {
            revoked = true;
            return [];
          }
          // Checked in the walk's first statement: a type with edges before the walk began is never left out of it.
          if (degree === 1 && records[0].get('stale') === true) {
            stale = true;
            return [];
          }
          if (degree === 1 && records[0].get('vias') === true) vias = true;
          if (bound) leadsOnAtBound = records[0].get('leadsOn') as boolean;
          const pageRead = new Map(((records[0].get('page') ?? []) as [string, number | null, StoredAspect[]][]).map(([urn, rev, aspects]) => [urn, { rev, aspects }]));
          const rows: Reached[] = [];
          for (const record of records) {
            for (const [urn, parent, onward, removed, node, rev] of record.get('found') as [string, number, number | null, boolean, string | null, number | null][]) {
              if (visited.has(urn)) continue;
              const read = pageRead.get(urn);
              rows.push({ urn, node, degree, parent: frontier[parent], onward, removed, aspects: read?.aspects, rev: read ? read.rev : rev });
            }
          }
          return rows;
        });
        if (revoked) return revokedPage();
        if (stale) return STALE_TYPES;
        const matched = reached.filter((v) => q.groups.some((g) => matches(g, v)));
        // The last hop counted in Neo4j: its matched rows counted, only its page's rows returned.
        let countedLast: { matched: number; page: Reached[]; leadsOn: boolean } | null = null;
        if (lastFrontier) {
          if (Date.now() >= deadline) throw missed();
          const first = q.maxHops === 1;
          const pageSkip = Math.max(0, q.start - matched.length);
          const pageTake = Math.max(0, q.start + q.count - Math.max(q.start, matched.length));
          const [record] = (
            await tx.run(first ? countedFirst : counted, {
              ...this.neighbourParams(q, lastFrontier, first),
              visited: Object.fromEntries([...visitedBefore].map((urn) => [urn, true])),
              lastGroups: q.groups.filter((g) => g.degrees === null || g.degrees.includes(q.maxHops)).map(({ types, platforms, includeRemoved }) => ({ types, platforms, includeRemoved })),
              pageSkip: neo4j.int(pageSkip),
              pageTake: neo4j.int(pageTake),
              aspects: q.aspects,
              readAspects: q.aspects.length > 0 && !fromCopies,
            })
          ).records;
          if (first && record.get('revoked') === true) return revokedPage();
          if (first && record.get('stale') === true) return STALE_TYPES;
          if (first && record.get('vias') === true) vias = true;
          if (reached.length + Number(record.get('reached')) > q.visitCap) return OVER_CAP;
          const rows = record.get('page') as [string, number, number | null, boolean, number | null, StoredAspect[] | null][];
          countedLast = {
            matched: Number(record.get('matched')),
            page: rows.map(([urn, parent, onward, removed, rev, aspects]) => ({ urn, node: null, degree: q.maxHops, parent: lastFrontier[parent], onward, removed, rev, aspects: aspects ?? undefined })),
            leadsOn: record.get('leadsOn') === true,
          };
        }
        const last = reached.filter((v) => v.degree === q.maxHops);
        const cut = {
          visitCap: visitCut,
          fanOut: reached.some((v) => v.degree < q.maxHops && v.onward !== null && v.onward > q.fanOut),
          maxHops: countedLast?.leadsOn === true || leadsOnAtBound === true || last.some((v) => v.onward !== null && v.onward > 0),
        };
        // Whether lineage leads on from the nodes at the bound is asked only when it is not known yet: first of a
        // few of them (with the page), then of the rest if none of those does. Sending them all costs more than
        // asking again in the rare walk where none leads on.
        const ask = cut.maxHops || leadsOnAtBound !== null || countedLast ? [] : last.filter((v) => v.onward === null).map((v) => v.urn);
        const total = matched.length + (countedLast?.matched ?? 0);
        const page = [...matched.slice(q.start, q.start + q.count), ...(countedLast?.page ?? [])];
        // Rows read in a hop leave a copy; rows whose rev is still their copy's are served by it.
        for (const v of page) if (v.aspects === undefined) v.aspects = copies?.current(v.urn, v.rev);
        for (const v of page) if (v.aspects !== undefined && !fromCopies) copies?.read(v.urn, v.rev, v.aspects);
        const hydrate = q.aspects.length > 0 ? page.filter((v) => v.aspects === undefined) : [];
        const parsed = (stored: StoredAspect[] | undefined) => new ParsedOnDemand(stored ?? []);
        if (vias) this.sawVias();
        // The nodes the page's paths pass through, in the walk's transaction (a statement of its own cost a small
        // walk ~1.5 ms more: its session, BEGIN and COMMIT).
        const passing = async (rows: LineageRow[]) => {
          if (!vias || !q.viaEnds) return undefined;
          if (Date.now() >= deadline) throw missed();
          return this.viasOf(tx, rows, q.direction, q.viaEnds);
        };
        if (hydrate.length === 0 && ask.length === 0) {
          const rows = page.map((v) => row(v, q.urn, parsed(v.aspects)));
          return { total, cut, rows, revoked: false, vias: await passing(rows) };
        }
        if (Date.now() >= deadline) throw missed();
        const record = (await tx.run(finish, { last: ask.slice(0, FIRST_ASKED), urns: hydrate.map((v) => v.urn), aspects: q.aspects })).records[0];
        if (record.get('leadsOn') === true) cut.maxHops = true;
        if (!cut.maxHops && ask.length > FIRST_ASKED) {
          if (Date.now() >= deadline) throw missed();
          cut.maxHops = (await tx.run(finish, { last: ask.slice(FIRST_ASKED), urns: [], aspects: [] })).records[0].get('leadsOn') === true;
        }
        const read = record.get('page') as { urn: string; rev: number | null; aspects: StoredAspect[] }[];
        for (const p of read) copies?.read(p.urn, p.rev, p.aspects);
        const aspects = new Map(read.map((p) => [p.urn, p.aspects]));
        const revs = new Map(read.map((p) => [p.urn, p.rev]));
        for (const v of hydrate) v.rev = revs.get(v.urn) ?? null;
        const rows = page.map((v) => row(v, q.urn, parsed(v.aspects ?? aspects.get(v.urn))));
        return { total, cut, rows, revoked: false, vias: await passing(rows) };
      },
      { timeoutMs: q.deadlineMs, onTimeout: missed },
    );
  }

  /**
   * Breadth-first, so each node's degree is its shortest distance. A node with more than q.fanOut onward edges is
   * reached but not expanded (the start always is). At most q.visitCap nodes are kept, in (degree, urn) order: the
   * walk goes one node past the cap to tell a cut walk from one that just fits. `hop` returns the nodes it reached
   * that were not visited before. When `countsLast` says so of what was visited before the last hop, that hop is left
   * to the caller (`lastFrontier`: its frontier, in order).
   */
  private async walk(
    q: LineageQuery,
    countsLast: (visited: ReadonlySet<string>) => boolean,
    hop: (frontier: Reached[], degree: number, visited: ReadonlySet<string>) => Promise<Reached[]>,
  ): Promise<{ reached: Reached[]; visitCut: boolean; lastFrontier: Reached[] | null; visited: ReadonlySet<string> }> {
    const start: Reached = { urn: q.urn, node: q.urn, degree: 0, parent: null, onward: null, removed: false };
    const visited = new Set<string>([q.urn]);
    const reached: Reached[] = [];
    // Nodes reached that the filters keep, counted until the page is behind them.
    const pageEnd = q.start + q.count;
    let matched = 0;
    let frontier = [start];
    for (let degree = 1; degree <= q.maxHops && frontier.length > 0; degree++) {
      if (degree === q.maxHops && countsLast(visited)) return { reached, visitCut: false, lastFrontier: frontier, visited };
      const rows = await hop(frontier, degree, visited);
      // Urn order within a degree orders the next frontier (a node's parent is the first of its parents in it), the
      // nodes kept under the cap and the answer. A last hop that the cap does not cut needs only the rows still to go on
      // the page in order, and none after the page: from a hub, sorting it took a fifth of the walk's own (JavaScript)
      // time, and selecting a page of 100 of its 1,489 neighbours takes 0.4 ms where sorting them took 1.1.
      const cut = reached.length + rows.length > q.visitCap;
      let ordered = rows;
      if (degree < q.maxHops || cut) rows.sort(byUrn);
      else if (matched < pageEnd) ordered = smallestFirst(rows, pageEnd - matched, (v) => !visited.has(v.urn) && q.groups.some((g) => matches(g, v)));
      const next: Reached[] = [];
      for (const node of ordered) {
        if (visited.has(node.urn)) continue;
        if (reached.length === q.visitCap) return { reached, visitCut: true, lastFrontier: null, visited };
        visited.add(node.urn);
        reached.push(node);
        if (matched < pageEnd && q.groups.some((g) => matches(g, node))) matched++;
        if (node.onward === null || (node.onward > 0 && node.onward <= q.fanOut)) next.push(node);
      }
      frontier = next;
    }
    return { reached, visitCut: false, lastFrontier: null, visited };
  }
}

/** A walk's answer when one of the caller's tokens is revoked (its first statement says so). */
function revokedPage(): LineagePage {
  return { total: 0, cut: { visitCap: false, fanOut: false, maxHops: false }, rows: [], revoked: true };
}

/** A walk's answer when its first statement found edges of a type its statements had left out. */
const STALE_TYPES = Symbol('stale lineage types');
/** A walk's answer when its last hop, counted in Neo4j, would have passed the result cap. */
const OVER_CAP = Symbol('last hop over the result cap');

/** A lineage walk's statements, for one direction (cypher/lineage.cypher). */
interface WalkStatements {
  /** The first hop (the start by urn; asks whether left-out types have edges and whether a token is revoked). */
  start: string;
  hop: string;
  finish: string;
  /** The last hop counted in Neo4j, when it is the first (a walk of one hop), and when it is not. */
  countedFirst: string;
  counted: string;
}

/**
 * Reads of Neo4j's count store, one subquery per relationship type (variables `<prefix><k>`), and whether any of them
 * counted an edge (`false` when there are no types).
 */
function edgeCounts(types: string[], prefix: string): { counts: string; found: string } {
  return {
    counts: types.map((t, k) => `CALL () { MATCH ()-[r:${t}]->() RETURN count(r) AS ${prefix}${k} }`).join('\n'),
    found: types.length > 0 ? `${types.map((_, k) => `${prefix}${k}`).join(' + ')} > 0` : 'false',
  };
}

/**
 * How a hop finds its neighbours (cypher/lineage.cypher hop `{{expand}}`): one typed expansion per side with edges in
 * the database, a UNION ALL subquery only when both have.
 */
export function expansion(forward: string[], back: string[]): string {
  const along = `MATCH (a)-[:${forward.join('|')}]->(b:Entity)\n  RETURN b`;
  const against = `MATCH (a)<-[:${back.length > 0 ? back.join('|') : NO_TYPE}]-(b:Entity)\n  RETURN b`;
  // In a subquery either way: the expansion is planned from the frontier node, whatever the statistics (a plain MATCH
  // was once planned from an index scan of the entities on a database of a few).
  const sides = forward.length === 0 ? [against] : back.length === 0 ? [along] : [along, against];
  return `CALL (a) {\n  ${sides.join('\n  UNION ALL\n  ')}\n}`;
}

/** What identifies a walk's page: a walk asked again with this key most likely answers the same rows. */
function pageHintKey(q: LineageQuery): string {
  return JSON.stringify([q.urn, q.direction, q.columns, q.maxHops, q.fanOut, q.visitCap, q.groups, q.start, q.count, q.aspects]);
}

/**
 * The read cache's copies of a walk's hinted page rows (the rows its last page had), for one walk: which are held,
 * which a hop found unchanged, and the copies the walk's reads of them leave.
 */
class PageCopies {
  private readonly index: Map<string, number>;
  private readonly revs: number[];
  /** The hops' $known: the rows whose rev a hop reads for the check. */
  readonly known: Record<string, boolean>;

  constructor(
    private readonly cached: CoherentRead,
    urns: readonly string[],
  ) {
    this.index = new Map(urns.map((urn, i) => [urn, i]));
    this.revs = urns.map((_, i) => cached.knownRev(i));
    this.known = Object.fromEntries(urns.map((urn) => [urn, true]));
  }

  allHeld(): boolean {
    return this.revs.every((rev) => rev >= 0);
  }

  /** The copy's aspects when the row's rev (read in its hop) is the copy's; undefined otherwise. */
  current(urn: string, rev: number | null | undefined): StoredAspect[] | undefined {
    const i = this.index.get(urn);
    if (i === undefined || typeof rev !== 'number' || rev !== this.revs[i]) return undefined;
    return this.cached.answered(i, rev, () => []).map((r) => ({ name: r.name, value: r.value ?? 'null' }));
  }

  /** A hinted row read from Neo4j: its copy is made or replaced. */
  read(urn: string, rev: number | null | undefined, aspects: StoredAspect[]): void {
    const i = this.index.get(urn);
    if (i !== undefined && typeof rev === 'number') this.cached.answered(i, rev, () => aspects.map(asRow));
  }

  end(): void {
    this.cached.end();
  }
}

function asRow(a: StoredAspect): StoredAspectRow {
  return { name: a.name, value: a.value, createdTime: 0, createdActor: '', systemMetadata: null };
}

/** A page row: the node with its path back to the start. */
function byUrn(a: { urn: string }, b: { urn: string }): number {
  return a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0;
}

/**
 * `rows` reordered so that the `count` rows with the smallest urns among those `kept` come first, in urn order; every
 * other row follows, in no particular order. A bounded max-heap: each row is compared with the largest kept so far,
 * and only the few smaller ones are sifted in (n + k·log k·log(n/k) comparisons instead of a sort's n·log n).
 */
export function smallestFirst<T extends { urn: string }>(rows: T[], count: number, kept: (row: T) => boolean): T[] {
  if (count <= 0) return rows;
  const heap: T[] = [];
  const rest: T[] = [];
  for (const r of rows) {
    if (!kept(r)) rest.push(r);
    else if (heap.length < count) siftUp(heap, heap.push(r) - 1);
    else if (r.urn < heap[0].urn) {
      rest.push(heap[0]);
      heap[0] = r;
      siftDown(heap, 0);
    } else rest.push(r);
  }
  heap.sort(byUrn);
  for (const r of rest) heap.push(r);
  return heap;
}

/** Max-heap by urn: the entry at i moves up past smaller parents. */
function siftUp<T extends { urn: string }>(heap: T[], i: number): void {
  const x = heap[i];
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent].urn >= x.urn) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = x;
}

/** Max-heap by urn: the entry at i moves down past larger children. */
function siftDown<T extends { urn: string }>(heap: T[], i: number): void {
  const x = heap[i];
  for (;;) {
    let child = 2 * i + 1;
    if (child >= heap.length) break;
    if (child + 1 < heap.length && heap[child + 1].urn > heap[child].urn) child++;
    if (heap[child].urn <= x.urn) break;
    heap[i] = heap[child];
    i = child;
  }
  heap[i] = x;
}

function row(v: Reached, startUrn: string, aspects: AspectValues): LineageRow {
  const path: { urn: string; type: string }[] = [];
  for (let at: Reached = v; at.parent !== null; at = at.parent) path.push({ urn: at.urn, type: entityTypeOf(at.urn) });
  path.push({ urn: startUrn, type: entityTypeOf(startUrn) });
  return { urn: v.urn, type: entityTypeOf(v.urn), degree: v.degree, path: path.reverse(), aspects, rev: typeof v.rev === 'number' ? v.rev : null };
}

/**
 * Stored aspects parsed when first asked for: an answer that shows few of them (or none, when it is answered from a
 * copy of the whole answer) does not parse the rest.
 */
export class ParsedOnDemand implements AspectValues {
  private parsed: Map<string, Record<string, unknown>> | null = null;

  constructor(private readonly stored: readonly StoredAspect[]) {}

  get(name: string): Record<string, unknown> | undefined {
    const known = this.parsed?.get(name);
    if (known !== undefined) return known;
    const found = this.stored.find((a) => a.name === name);
    if (!found) return undefined;
    const value = JSON.parse(found.value) as Record<string, unknown>;
    (this.parsed ??= new Map()).set(name, value);
    return value;
  }
}

/** One OR-branch of the result filter. */
function matches(g: LineageFilterGroup, v: Reached): boolean {
  if (g.degrees !== null && !g.degrees.includes(v.degree)) return false;
  if (g.types !== null && !g.types.includes(entityTypeOf(v.urn))) return false;
  if (g.platforms !== null && !g.platforms.some((p) => v.urn.includes(`(${p},`))) return false;
  return g.includeRemoved || !v.removed;
}

/** The entity type of `urn:<namespace>:<type>:<id>` (a node's `type` property is its urn's: the write path sets it so). */
function entityTypeOf(urn: string): string {
  const start = urn.indexOf(':', 4) + 1;
  return urn.slice(start, urn.indexOf(':', start));
}
