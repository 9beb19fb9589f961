import type { Logger } from 'pino';
import { status as statusAspect } from '../../model/aspects';
import { HistoryTrimmedError, InvalidInputError, UnavailableError } from '../../model/errors';
import { valuesAt, type Registry, type RelationshipField } from '../../model/registry';
import { tryParseUrn } from '../../model/urn';
import type { HistoryStore, HopRow } from '../../stores/graph/history-store';
import type { LineageDirection, LineageFilterGroup, LineagePage, LineageQuery, LineageRow } from '../../stores/graph/lineage-store';
import { assertKept } from './as-of';

/** Lineage relationship fields, per aspect, as the model declares them. */
type LineageFields = Map<string, RelationshipField[]>;

function lineageFields(registry: Registry): LineageFields {
  const out: LineageFields = new Map();
  for (const aspect of registry.aspects.values()) {
    const fields = aspect.relationships.filter((r) => r.isLineage);
    if (fields.length > 0) out.set(aspect.name, fields);
  }
  return out;
}

/**
 * :LineagePast records of edges removed before this service wrote them: filled once per database from the kept
 * versions of every lineage-projecting aspect (cypher/history.cypher backfill*). Until it is done, as-of lineage waits
 * (within its deadline). `knownFrom`: as-of lineage before it is refused, since retention had already trimmed versions
 * that may have named other entities.
 */
export class LineageBackfill {
  private running: Promise<number> | null = null;
  private knownFrom: number | null = null;

  constructor(
    private readonly registry: Registry,
    private readonly store: HistoryStore,
    private readonly logger: Logger,
    private readonly pageSize = 500,
  ) {}

  /** Starts the backfill when this database has not had it (called at start; as-of lineage calls it too). */
  start(): Promise<number> {
    if (this.knownFrom !== null) return Promise.resolve(this.knownFrom);
    this.running ??= this.run().then(
      (knownFrom) => {
        this.knownFrom = knownFrom;
        return knownFrom;
      },
      (err) => {
        this.running = null;
        throw err;
      },
    );
    return this.running;
  }

  /** The moment from which as-of lineage is complete; waits at most `waitMs` for a backfill under way. */
  async ready(waitMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.start(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new UnavailableError('The lineage history index of this database is still being built; retry shortly', 'neo4j')), waitMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async run(): Promise<number> {
    const state = await this.store.backfillState();
    if (state.complete) return state.knownFrom;
    const fields = lineageFields(this.registry);
    const names = [...fields.keys()];
    let after = '';
    let knownFrom = 0;
    let entities = 0;
    for (;;) {
      const page = await this.store.backfillPage(after, names, this.pageSize);
      if (page.length === 0) break;
      const records = new Map<string, { source: string; target: string; type: string; aspect: string }>();
      const byAspect = new Map<string, typeof page>();
      for (const v of page) byAspect.set(`${v.urn}\u0000${v.name}`, [...(byAspect.get(`${v.urn}\u0000${v.name}`) ?? []), v]);
      for (const versions of byAspect.values()) {
        const trimmed = versions.some((v) => v.version === 0 && v.trimmed) || (versions.some((v) => v.version > 0) && !versions.some((v) => v.version === 1));
        if (trimmed) knownFrom = Math.max(knownFrom, Math.min(...versions.map((v) => v.createdTime)));
        for (const v of versions) {
          // The latest value's edges are current edges; only earlier ones need a record.
          if (v.version === 0) continue;
          const value = JSON.parse(v.value) as Record<string, unknown>;
          for (const rel of fields.get(v.name) ?? []) {
            for (const target of valuesAt(value, rel.path)) {
              if (typeof target !== 'string') continue;
              records.set(`${target}|${rel.name}|${v.urn}|${v.name}`, { source: v.urn, target, type: rel.name, aspect: v.name });
            }
          }
        }
      }
      await this.store.backfillRecord([...records.values()]);
      entities += new Set(page.map((v) => v.urn)).size;
      after = page.reduce((max, v) => (v.urn > max ? v.urn : max), after);
    }
    await this.store.backfillDone(knownFrom);
    if (entities > 0) this.logger.info({ entities, knownFrom }, 'lineage history index built from kept aspect versions');
    return Math.max(knownFrom, state.knownFrom);
  }
}

/**
 * Lineage as it was at a moment: hop by hop, each entity's lineage-projecting aspects as of then (edges it declared),
 * and the entities pointing at it then (current edges and :LineagePast records, each checked against the version of
 * its owning aspect valid then). The same bounds, filters and order as today's lineage (cypher/lineage.cypher);
 * status (soft deletes) and the hydrated aspects are as of the moment too.
 */
export class AsOfLineage {
  private readonly fields: LineageFields;

  constructor(
    private readonly registry: Registry,
    private readonly store: HistoryStore,
    private readonly backfill: LineageBackfill,
  ) {
    this.fields = lineageFields(registry);
  }

  private readonly sidesCache = new Map<LineageDirection, ReturnType<AsOfLineage['computeSides']>>();
  private readonly ownCache = new Map<string, Record<string, string[]>>();

  private sides(direction: LineageDirection) {
    let s = this.sidesCache.get(direction);
    if (!s) this.sidesCache.set(direction, (s = this.computeSides(direction)));
    return s;
  }

  /** Per entity type, the aspects a hop reads as an entity's own: its lineage-projecting ones walked outwards, and `shown`. */
  private ownAspects(direction: LineageDirection, shown: string[]): Record<string, string[]> {
    const key = `${direction}|${shown.join(',')}`;
    let own = this.ownCache.get(key);
    if (!own) {
      const { lineageOwn } = this.sides(direction);
      own = { '': [...new Set([...lineageOwn, ...shown])] };
      for (const entity of this.registry.entities.values()) own[entity.name] = own[''].filter((a) => entity.aspects.has(a));
      this.ownCache.set(key, own);
    }
    return own;
  }

  /** For one direction: the aspects and relationship names walked outwards, and those walked inwards. */
  private computeSides(direction: LineageDirection) {
    const upstream = direction === 'UPSTREAM';
    const lineageOwn: string[] = [];
    const outTypes = new Set<string>();
    const inTypes = new Set<string>();
    for (const [aspect, fields] of this.fields) {
      if (fields.some((f) => f.isUpstream === upstream)) lineageOwn.push(aspect);
      for (const f of fields) (f.isUpstream === upstream ? outTypes : inTypes).add(f.name);
    }
    return { upstream, lineageOwn, outTypes: [...outTypes].sort(), inTypes: [...inTypes].sort() };
  }

  async traverse(q: LineageQuery, t: number): Promise<LineagePage> {
    if (q.columns) throw new InvalidInputError('Lineage as of a moment is available for entities, not for schema fields (column-level lineage)');
    const started = Date.now();
    const knownFrom = await this.backfill.ready(q.deadlineMs);
    if (t < knownFrom) {
      throw new HistoryTrimmedError(
        `Lineage before ${new Date(knownFrom).toISOString()} (${knownFrom}) cannot be told: retention had trimmed aspect versions written before then that may have named other entities`,
      );
    }
    const { upstream, outTypes, inTypes } = this.sides(q.direction);
    const deadlineMs = Math.max(1, q.deadlineMs - (Date.now() - started));
    const visited = new Map<string, Reached>([[q.urn, { degree: 0, parent: null, removed: null, aspects: null }]]);
    const cut = { visitCap: false, fanOut: false, maxHops: false };
    // While the walk is small enough for its nodes all to be on the page, each hop also reads the aspects shown.
    const hydrateWhile = q.start + q.count + HYDRATE_SLACK;

    await this.store.lineageWalk({ urn: q.urn, deadlineMs }, async (hop) => {
      let frontier = [q.urn];
      // Hops 0 … maxHops-1 expand; the last of them also reads the nodes at maxHops (status, shown aspects, whether
      // lineage leads on from them), so a walk of n hops costs n round trips.
      for (let degree = 0; degree < q.maxHops && frontier.length > 0; degree++) {
        const hydrate = visited.size <= hydrateWhile;
        const shown = hydrate ? [...new Set([statusAspect.name, ...q.aspects])] : [statusAspect.name];
        const lookahead = degree === q.maxHops - 1;
        const rows = await hop(frontier, { t, own: this.ownAspects(q.direction, shown), valued: shown, outTypes, inTypes, lookahead, shown });
        const next: string[] = [];
        const ahead = new Map<string, HopRow['ahead'][number]>();
        for (const row of rows.sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0))) {
          for (const a of row.ahead) ahead.set(a.urn, a);
          const node = visited.get(row.urn)!;
          const { removed, targets, aspects } = this.read(row, t, upstream, hydrate ? q.aspects : []);
          node.removed = removed;
          if (hydrate) node.aspects = aspects;
          if (row.urn !== q.urn && targets.length > q.fanOut) {
            cut.fanOut = true;
            continue;
          }
          for (const target of targets) {
            if (visited.has(target)) continue;
            // One node past the cap tells a cut walk from one that just fits (as today's statement does).
            if (visited.size - 1 >= q.visitCap) {
              cut.visitCap = true;
              break;
            }
            visited.set(target, { degree: degree + 1, parent: row.urn, removed: null, aspects: null });
            next.push(target);
          }
        }
        if (cut.visitCap) break;
        if (lookahead) {
          for (const urn of next) {
            const seen = ahead.get(urn);
            // Reached through a value changed since t (not a current edge): read after the walk; lineage may lead on.
            if (!seen) {
              cut.maxHops = true;
              continue;
            }
            const node = visited.get(urn)!;
            const status = seen.aspects.find((a) => a.name === statusAspect.name);
            if (status && !status.current) assertKept(urn, status, t);
            node.removed = status?.value ? (JSON.parse(status.value) as { removed?: unknown }).removed === true : false;
            if (hydrate) {
              node.aspects = new Map();
              for (const a of seen.aspects) {
                if (!a.current) assertKept(urn, a, t);
                if (a.value !== null && q.aspects.includes(a.name)) node.aspects.set(a.name, JSON.parse(a.value) as Record<string, unknown>);
              }
            }
            if (seen.onward > 0) cut.maxHops = true;
          }
        }
        frontier = next;
      }
    });

    const reached = [...visited.entries()].filter(([urn]) => urn !== q.urn).map(([urn, v]) => ({ urn, ...v }));
    reached.sort((a, b) => a.degree - b.degree || (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0));
    const kept = reached.slice(0, q.visitCap);
    // Nodes a capped walk reached but never read, and entities without a node: their status as of the moment.
    const unread = kept.filter((n) => n.removed === null).map((n) => n.urn);
    if (unread.length > 0) {
      const statuses = await this.store.manyAspectsAt(unread, [statusAspect.name], t);
      for (const n of kept) {
        if (n.removed !== null) continue;
        const status = statuses.get(n.urn)?.find((a) => a.name === statusAspect.name);
        if (status) assertKept(n.urn, status, t);
        n.removed = status?.at ? (JSON.parse(status.at.value) as { removed?: unknown }).removed === true : false;
      }
    }
    const matched = kept.filter((n) => q.groups.some((g) => matches(g, n.urn, n.degree, n.removed === true)));
    const page = matched.slice(q.start, q.start + q.count);
    const missing = page.filter((n) => n.aspects === null).map((n) => n.urn);
    const hydrated = await this.store.manyAspectsAt(missing, q.aspects, t);
    const rows: LineageRow[] = page.map((n) => {
      let aspects = n.aspects;
      if (!aspects) {
        aspects = new Map();
        for (const a of hydrated.get(n.urn) ?? []) {
          assertKept(n.urn, a, t);
          if (a.at) aspects.set(a.name, JSON.parse(a.at.value) as Record<string, unknown>);
        }
      }
      const path: string[] = [];
      for (let at: string | null = n.urn; at !== null; at = visited.get(at)!.parent) path.unshift(at);
      return { urn: n.urn, type: typeOf(n.urn), degree: n.degree, path: path.map((u) => ({ urn: u, type: typeOf(u) })), aspects, rev: null };
    });
    return { total: matched.length, cut, rows };
  }

  /** What one entity's hop row says as of `t`: its soft-delete status, the entities one hop on, and the aspects shown. */
  private read(row: HopRow, t: number, upstream: boolean, shown: string[]): { removed: boolean; targets: string[]; aspects: Map<string, Record<string, unknown>> } {
    const targets = new Set<string>();
    const aspects = new Map<string, Record<string, unknown>>();
    let removed = false;
    for (const own of row.own) {
      if (!own.current) assertKept(row.urn, own, t);
      const value = own.value === null ? null : (JSON.parse(own.value) as Record<string, unknown>);
      if (value && shown.includes(own.name)) aspects.set(own.name, value);
      if (own.name === statusAspect.name) removed = value?.removed === true;
      const fields = (this.fields.get(own.name) ?? []).filter((f) => f.isUpstream === upstream);
      if (fields.length === 0) continue;
      if (own.current) {
        // The latest value was already valid: its edges are the current ones.
        for (const edge of row.out) if (edge.aspect === own.name) targets.add(edge.target);
      } else if (value) {
        for (const f of fields) for (const target of valuesAt(value, f.path)) if (typeof target === 'string') targets.add(target);
      }
    }
    for (const source of row.inward) {
      if (source.valid) {
        targets.add(source.src);
        continue;
      }
      if (source.settled) continue;
      assertKept(source.src, { name: source.aspect, from: source.from, trimmed: source.trimmed }, t);
      if (source.value === null) continue;
      const value = JSON.parse(source.value) as Record<string, unknown>;
      if ((this.fields.get(source.aspect) ?? []).some((f) => f.isUpstream !== upstream && valuesAt(value, f.path).includes(row.urn))) targets.add(source.src);
    }
    targets.delete(row.urn);
    for (const target of targets) if (typeOf(target) === 'schemaField') targets.delete(target);
    return { removed, targets: [...targets].sort(), aspects };
  }
}

/** A node the walk reached: how far, from where, its status then, and the aspects shown (null: not read yet). */
interface Reached {
  degree: number;
  parent: string | null;
  removed: boolean | null;
  aspects: Map<string, Record<string, unknown>> | null;
}

/** How many nodes past the page a walk still reads the shown aspects of in its hops (no extra round trip after). */
const HYDRATE_SLACK = 20;

function typeOf(urn: string): string {
  return tryParseUrn(urn)?.entityType ?? 'unknown';
}

/** One OR-branch of the result filter, as cypher/lineage.cypher applies it. */
function matches(g: LineageFilterGroup, urn: string, degree: number, removed: boolean): boolean {
  if (g.degrees !== null && !g.degrees.includes(degree)) return false;
  if (g.types !== null && !g.types.includes(typeOf(urn))) return false;
  if (g.platforms !== null && !g.platforms.some((p) => urn.includes(`(${p},`))) return false;
  return g.includeRemoved || !removed;
}
