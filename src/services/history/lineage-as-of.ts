import type { Logger } from 'pino';
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

  /** For one direction: outwards = fields declaring targets on that side; inwards = the others' relationship names. */
  private sides(direction: LineageDirection) {
    const upstream = direction === 'UPSTREAM';
    const ownAspects: string[] = ['status'];
    const inTypes = new Set<string>();
    for (const [aspect, fields] of this.fields) {
      if (fields.some((f) => f.isUpstream === upstream)) ownAspects.push(aspect);
      for (const f of fields) if (f.isUpstream !== upstream) inTypes.add(f.name);
    }
    return { upstream, ownAspects, inTypes: [...inTypes].sort() };
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
    const { upstream, ownAspects, inTypes } = this.sides(q.direction);
    const deadlineMs = Math.max(1, q.deadlineMs - (Date.now() - started));
    const visited = new Map<string, { degree: number; parent: string | null; removed: boolean | null; onward: number }>([[q.urn, { degree: 0, parent: null, removed: null, onward: 0 }]]);
    const cut = { visitCap: false, fanOut: false, maxHops: false };

    await this.store.lineageWalk({ urn: q.urn, deadlineMs }, async (hop) => {
      let frontier = [q.urn];
      for (let degree = 0; degree <= q.maxHops && frontier.length > 0; degree++) {
        const rows = await hop(frontier, { t, ownAspects, inTypes });
        const next: string[] = [];
        for (const row of rows.sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0))) {
          const node = visited.get(row.urn)!;
          const { removed, targets } = this.edgesAt(row, t, upstream);
          node.removed = removed;
          node.onward = targets.length;
          if (degree === q.maxHops) {
            if (targets.length > 0) cut.maxHops = true;
            continue;
          }
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
            visited.set(target, { degree: degree + 1, parent: row.urn, removed: null, onward: 0 });
            next.push(target);
          }
        }
        if (cut.visitCap) break;
        frontier = next;
      }
    });

    const reached = [...visited.entries()].filter(([urn]) => urn !== q.urn).map(([urn, v]) => ({ urn, ...v }));
    reached.sort((a, b) => a.degree - b.degree || (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0));
    const kept = reached.slice(0, q.visitCap);
    // Nodes a capped walk reached but never read: their status as of the moment.
    const unread = kept.filter((n) => n.removed === null).map((n) => n.urn);
    if (unread.length > 0) {
      const statuses = await this.store.manyAspectsAt(unread, ['status'], t);
      for (const n of kept) {
        if (n.removed !== null) continue;
        const status = statuses.get(n.urn)?.find((a) => a.name === 'status');
        if (status) assertKept(n.urn, status, t);
        n.removed = status?.at ? (JSON.parse(status.at.value) as { removed?: unknown }).removed === true : false;
      }
    }
    const matched = kept.filter((n) => q.groups.some((g) => matches(g, n.urn, n.degree, n.removed === true)));
    const page = matched.slice(q.start, q.start + q.count);
    const hydrated = await this.store.manyAspectsAt(
      page.map((n) => n.urn),
      q.aspects,
      t,
    );
    const rows: LineageRow[] = page.map((n) => {
      const aspects = new Map<string, Record<string, unknown>>();
      for (const a of hydrated.get(n.urn) ?? []) {
        assertKept(n.urn, a, t);
        if (a.at) aspects.set(a.name, JSON.parse(a.at.value) as Record<string, unknown>);
      }
      const path: string[] = [];
      for (let at: string | null = n.urn; at !== null; at = visited.get(at)!.parent) path.unshift(at);
      return { urn: n.urn, type: typeOf(n.urn), degree: n.degree, path: path.map((u) => ({ urn: u, type: typeOf(u) })), aspects };
    });
    return { total: matched.length, cut, rows };
  }

  /** What one entity's hop row says as of `t`: its soft-delete status, and the entities one hop on. */
  private edgesAt(row: HopRow, t: number, upstream: boolean): { removed: boolean; targets: string[] } {
    const targets = new Set<string>();
    let removed = false;
    for (const own of row.own) {
      assertKept(row.urn, own, t);
      if (own.value === null) continue;
      const value = JSON.parse(own.value) as Record<string, unknown>;
      if (own.name === 'status') {
        removed = value.removed === true;
        continue;
      }
      for (const f of this.fields.get(own.name) ?? []) {
        if (f.isUpstream !== upstream) continue;
        for (const target of valuesAt(value, f.path)) if (typeof target === 'string' && typeOf(target) !== 'schemaField') targets.add(target);
      }
    }
    for (const source of row.inward) {
      if (typeOf(source.src) === 'schemaField') continue;
      assertKept(source.src, { name: source.aspect, from: source.from, trimmed: source.trimmed }, t);
      if (source.value === null) continue;
      const value = JSON.parse(source.value) as Record<string, unknown>;
      const names = (this.fields.get(source.aspect) ?? []).filter((f) => f.isUpstream !== upstream).some((f) => valuesAt(value, f.path).includes(row.urn));
      if (names) targets.add(source.src);
    }
    targets.delete(row.urn);
    return { removed, targets: [...targets].sort() };
  }
}

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
