import { revokedError, type RevocationCheck } from '../../auth/revocation-check';
import { dataPlatformInstance, status } from '../../model/aspects';
import { InvalidInputError } from '../../model/errors';
import type { Registry } from '../../model/registry';
import { platformName, tryParseUrn } from '../../model/urn';
import type { AspectValues, LineageDirection, LineageFilterGroup, LineagePage, LineageQuery, LineageRow, LineageStore } from '../../stores/graph/lineage-store';

export type { AspectValues } from '../../stores/graph/lineage-store';

export interface LineageLimits {
  /** Hard cap on hops; "3+" and an absent degree filter mean "up to this". */
  maxHops: number;
  /** A node with more onward lineage edges than this is reached but not expanded. */
  fanOut: number;
  /** Most nodes one traversal visits (and so the largest `total`). */
  resultCap: number;
  /** Most results per page. */
  maxCount: number;
  deadlineMs: number;
}

/** A filter condition as DataHub's clients send it (`orFilters: [{and: [...]}]`). */
export interface FacetFilter {
  field: string;
  value?: string | null;
  values?: string[] | null;
  condition?: string | null;
  negated?: boolean | null;
}

export interface LineageRequest {
  urn: string;
  direction: LineageDirection | 'BOTH';
  /** Model entity type names (dataset, dataJob, …); empty = all. */
  types?: string[];
  orFilters?: { and?: FacetFilter[] | null }[] | null;
  maxHops?: number | null;
  fanOut?: number | null;
  deadlineMs?: number | null;
  includeRemoved?: boolean;
  start?: number;
  count?: number;
  /** Epoch ms: the lineage as it was then (src/services/history/lineage-as-of.ts). */
  asOfTime?: number | null;
  /** Results carry the aspects shown about each entity (default); false when only urns are answered (rest.li). */
  withAspects?: boolean;
  /**
   * A column's lineage answered as the entities holding the columns (DataHub's SCHEMA_FIELD → DATASET grouping, which
   * its scrollAcrossLineage always applies): each result is a column's parent, once, with every column path to it, and
   * the type and platform filters apply to the parents.
   */
  columnsAsParents?: boolean;
  /**
   * The caller's token's revocation check, when the caller lets the walk make it: the walk's first statement reads the
   * revocations (a lookup of its own would cost a round trip and a transaction), and settles the check or refuses the
   * request with the 401. A walk of another moment (asOfTime) looks the token up meanwhile instead.
   */
  revocation?: RevocationCheck;
}

/** Walks lineage as it was at a moment. */
export interface AsOfWalker {
  traverse(q: LineageQuery, t: number): Promise<LineagePage>;
}

export type LineageBound = 'maxHops' | 'fanOut' | 'results';

export interface LineageResult {
  start: number;
  count: number;
  total: number;
  truncated: boolean;
  truncatedBy: LineageBound[];
  maxHops: number;
  /**
   * The aspects read for every result: each result's `aspects` holds those of them the entity has, so one missing
   * there is one the entity has not (as of the walk's moment), not one left to read.
   */
  aspectsRead: string[];
  results: (LineageRow & { direction: LineageDirection; paths?: LineageRow['path'][] })[];
}

/** Entity types whose properties (name, description) a lineage result brings along: the lineage GraphQL types. */
const SHOWN_TYPES = ['dataset', 'dataJob', 'dataFlow', 'chart', 'dashboard'];

/** The aspects a lineage result shows about each entity (names, descriptions, platforms, soft deletion). */
function shownAspects(registry: Registry): string[] {
  const properties = SHOWN_TYPES.flatMap((t) => registry.entities.get(t)?.properties?.aspect ?? []);
  return [...properties, dataPlatformInstance.name, status.name];
}

/**
 * Multi-hop lineage, as stages: resolve the request against the bounds, traverse (breadth-first, per direction),
 * merge and page, then the nodes the page's edges pass through (read by the walk). Which edges are lineage, and their direction, come from the model.
 */
export class LineageService {
  private readonly shown: string[];
  /** `downstreamType>upstreamType` of the edges that can pass through a node (viaEdgeEnds). */
  private readonly viaEnds: ReadonlySet<string>;

  constructor(
    private readonly registry: Registry,
    private readonly store: LineageStore,
    readonly limits: LineageLimits,
    private readonly asOf: AsOfWalker | null = null,
  ) {
    this.shown = shownAspects(registry);
    this.viaEnds = viaEdgeEnds(registry);
  }

  /** The namespace of this service's urns (platform urns in filters and answers). */
  get urnNamespace(): string {
    return this.registry.urnNamespace;
  }

  async lineage(request: LineageRequest): Promise<LineageResult> {
    const plan = this.resolve(request);
    const directions: LineageDirection[] = request.direction === 'BOTH' ? ['UPSTREAM', 'DOWNSTREAM'] : [request.direction];
    const t = request.asOfTime;
    if (t !== undefined && t !== null && (!Number.isSafeInteger(t) || t < 0)) throw new InvalidInputError('asOfTime must be epoch milliseconds (a non-negative integer)');
    if (t !== undefined && t !== null && !this.asOf) throw new InvalidInputError('Lineage as of a moment is not available here');
    const revocation = request.revocation;
    const asOf = t !== undefined && t !== null;
    const token = revocation && !revocation.settled && !asOf ? revocation.tokenId : null;
    // Awaited by the caller before it answers; not an unhandled rejection meanwhile.
    if (revocation && asOf) revocation.confirm().catch(() => undefined);
    const tokens = token === null ? [] : [token];
    const grouped = request.columnsAsParents === true && plan.query.columns;
    // Grouped to parents: every column reached (within the degrees asked), paged and filtered once grouped.
    const query = grouped ? { ...plan.query, groups: plan.query.groups.map((g) => ({ ...g, types: null, platforms: null })), start: 0, count: this.limits.resultCap, aspects: [] } : plan.query;
    // The edges' via nodes are kept for the current graph only: a walk of another moment answers its plain paths.
    const walk = (direction: LineageDirection) => (asOf ? this.asOf!.traverse({ ...query, direction }, t) : this.store.traverse({ ...query, direction, tokens, viaEnds: this.viaEnds }));
    const pages = await Promise.all(directions.map(walk));
    if (token !== null) {
      const revoked = pages.some((p) => p.revoked);
      revocation!.checkedByRead(revoked);
      if (revoked) throw revokedError(token);
    }
    const vias = new Map(pages.flatMap((p) => [...(p.vias ?? [])]));
    if (grouped) return this.parentsOf(plan, directions, pages, !asOf, vias);
    const merged = this.merge(plan, directions, pages);
    passThrough(merged.results, vias);
    return merged;
  }

  /**
   * Stage 3 of a column walk grouped to parents (LineageRequest.columnsAsParents): each column's parent once, at its
   * nearest degree, with the paths of every column reached in it; the request's type, platform, degree and
   * soft-delete filters applied to the parent; then the page. The parents' aspects are not read here (the answer's fields read them).
   */
  private async parentsOf(plan: ReturnType<LineageService['resolve']>, directions: LineageDirection[], pages: LineagePage[], current: boolean, vias: Map<string, string>): Promise<LineageResult> {
    const merged = this.merge({ ...plan, start: 0, count: Number.MAX_SAFE_INTEGER }, directions, pages);
    // Column paths with their via nodes: a column's last edge through a data job (not a query, a passing node only)
    // makes the job a result too, at the column's degree, with the path up to it, as DataHub answers it.
    passThrough(merged.results, vias);
    const byParent = new Map<string, LineageResult['results'][number] & { paths: LineageRow['path'][] }>();
    const none: AspectValues = { get: () => undefined };
    for (const r of [...merged.results].sort((a, b) => a.degree - b.degree)) {
      const via = vias.size > 0 && r.path.length >= 3 ? r.path[r.path.length - 2] : null;
      if (via && via.type !== QUERY && via.type !== SCHEMA_FIELD) {
        const toVia = r.path.slice(0, -1);
        const known = byParent.get(via.urn);
        const text = toVia.map((p) => p.urn).join(' ');
        if (!known) byParent.set(via.urn, { ...r, urn: via.urn, type: via.type, aspects: none, rev: null, paths: [toVia] });
        else if (!known.paths.some((p) => p.map((n) => n.urn).join(' ') === text)) known.paths.push(toVia);
      }
      const parent = tryParseUrn(r.urn)?.parts[0];
      const parentUrn = parent ? tryParseUrn(parent) : null;
      if (!parentUrn) continue;
      const known = byParent.get(parentUrn.raw);
      if (known) known.paths.push(r.path);
      else byParent.set(parentUrn.raw, { ...r, urn: parentUrn.raw, type: parentUrn.entityType, aspects: none, rev: null, paths: [r.path] });
    }
    // The walk hid soft-deleted columns; their parents (and jobs) are hidden the same way, unless asked for.
    const removed = current && plan.query.groups.some((g) => !g.includeRemoved) ? await this.store.removedAmong([...byParent.keys()]) : new Set<string>();
    const wanted = (r: { type: string; urn: string; degree: number }) =>
      plan.query.groups.some(
        (g) =>
          (g.includeRemoved || !removed.has(r.urn)) &&
          (g.degrees === null || g.degrees.includes(r.degree)) &&
          (g.types === null || g.types.includes(r.type)) &&
          (g.platforms === null || g.platforms.includes(tryParseUrn(r.urn)?.parts[0] ?? '')),
      );
    const results = [...byParent.values()].filter(wanted).sort((a, b) => a.degree - b.degree || (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0));
    const page = results.slice(plan.start, plan.start + plan.count);
    return { ...merged, start: plan.start, count: page.length, total: results.length, aspectsRead: [], results: page };
  }

  /** Stage 1: validated bounds and filters. */
  private resolve(request: LineageRequest) {
    const urn = tryParseUrn(request.urn);
    if (!urn) throw new InvalidInputError(`Invalid urn ${JSON.stringify(String(request.urn).slice(0, 200))}`);
    if (!['UPSTREAM', 'DOWNSTREAM', 'BOTH'].includes(request.direction)) throw new InvalidInputError(`direction must be UPSTREAM, DOWNSTREAM or BOTH`);
    const limits = this.limits;
    const start = request.start ?? 0;
    const count = request.count ?? 10;
    if (!Number.isInteger(start) || start < 0) throw new InvalidInputError('start must be a non-negative integer');
    if (!Number.isInteger(count) || count < 0 || count > limits.maxCount) throw new InvalidInputError(`count must be an integer in 0..${limits.maxCount}`);
    const fanOut = request.fanOut ?? limits.fanOut;
    if (!Number.isInteger(fanOut) || fanOut < 1 || fanOut > limits.fanOut) throw new InvalidInputError(`fanOut must be an integer in 1..${limits.fanOut}`);
    const deadlineMs = request.deadlineMs ?? limits.deadlineMs;
    if (!Number.isInteger(deadlineMs) || deadlineMs < 1 || deadlineMs > limits.deadlineMs) throw new InvalidInputError(`deadlineMs must be an integer in 1..${limits.deadlineMs}`);
    if (request.maxHops !== undefined && request.maxHops !== null && (!Number.isInteger(request.maxHops) || request.maxHops < 1 || request.maxHops > limits.maxHops)) {
      throw new InvalidInputError(`maxHops must be an integer in 1..${limits.maxHops}`);
    }
    for (const t of request.types ?? []) this.registry.entity(t);
    const parsed = parseOrFilters(request.orFilters ?? [], request.types ?? [], request.includeRemoved ?? false, this.registry.urnNamespace);
    // Hops to walk: the request's, else the deepest degree any filter branch asks for ("3+" or none = the cap).
    const open = (g: ParsedGroup) => g.degrees === 'open';
    const deepest = Math.max(1, ...parsed.map((g) => (open(g) ? limits.maxHops : Math.max(0, ...g.explicit))));
    const maxHops = request.maxHops ?? Math.min(limits.maxHops, deepest);
    const groups: LineageFilterGroup[] = parsed.map((g) => ({
      types: g.types,
      platforms: g.platforms,
      includeRemoved: g.includeRemoved,
      degrees: open(g) && g.openFrom === null ? null : range(1, maxHops).filter((d) => g.explicit.includes(d) || (g.openFrom !== null && d >= g.openFrom)),
    }));
    return {
      start,
      count,
      maxHops,
      query: {
        urn: urn.raw,
        columns: urn.entityType === 'schemaField',
        maxHops,
        fanOut,
        visitCap: limits.resultCap,
        groups,
        // Each direction's page must hold everything up to start + count for the merge (BOTH) to be exact.
        start: request.direction === 'BOTH' ? 0 : start,
        count: request.direction === 'BOTH' ? start + count : count,
        aspects: request.withAspects === false ? [] : this.shown,
        deadlineMs,
      },
    };
  }

  /** Stage 3: one ordered page with its bounds. */
  private merge(plan: ReturnType<LineageService['resolve']>, directions: LineageDirection[], pages: LineagePage[]): LineageResult {
    const truncatedBy = new Set<LineageBound>();
    for (const p of pages) {
      if (p.cut.visitCap) truncatedBy.add('results');
      if (p.cut.fanOut) truncatedBy.add('fanOut');
      if (p.cut.maxHops) truncatedBy.add('maxHops');
    }
    let results = pages.flatMap((p, i) => p.rows.map((r) => ({ ...r, direction: directions[i] })));
    if (directions.length > 1) {
      results.sort((a, b) => a.degree - b.degree || (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0));
      results = results.slice(plan.start, plan.start + plan.count);
    }
    return {
      start: plan.start,
      count: results.length,
      total: pages.reduce((n, p) => n + p.total, 0),
      truncated: truncatedBy.size > 0,
      truncatedBy: [...truncatedBy],
      maxHops: plan.maxHops,
      aspectsRead: plan.query.aspects,
      results,
    };
  }
}

const SCHEMA_FIELD = 'schemaField';
/** A query is a passing node only: DataHub never answers it as a lineage result. */
const QUERY = 'query';

/**
 * The (downstream type, upstream type) of the edges that can pass through a node: those of a relationship with a via
 * (an upstream lineage's query: dataset to dataset) and column lineage (schemaField to schemaField).
 */
function viaEdgeEnds(registry: Registry): Set<string> {
  const ends = new Set<string>([`${SCHEMA_FIELD}>${SCHEMA_FIELD}`]);
  for (const aspect of registry.aspects.values()) {
    for (const rel of aspect.relationships) {
      if (!rel.via) continue;
      for (const entity of registry.entities.values()) {
        if (!entity.aspects.has(aspect.name)) continue;
        for (const target of rel.entityTypes) ends.add(rel.isUpstream ? `${entity.name}>${target}` : `${target}>${entity.name}`);
      }
    }
  }
  return ends;
}

/**
 * Stage 4: each path with the nodes its edges pass through (DataHub's via nodes: the query of an upstream lineage, the
 * data job of a job's column lineage), as DataHub's paths hold them: [upstream, query, downstream]. The walk read them
 * (LineagePage.vias) for the page's paths only, and only for edges that can have one (viaEdgeEnds).
 */
function passThrough(rows: { direction: LineageDirection; path: LineageRow['path'] }[], vias: Map<string, string>): void {
  if (vias.size > 0) for (const r of rows) r.path = withVias(r.path, r.direction, vias);
}

/** A path with the node each edge passes through between its ends (vias by `downstream|upstream`). */
function withVias(path: LineageRow['path'], direction: LineageDirection, vias: Map<string, string>): LineageRow['path'] {
  const out: LineageRow['path'] = [path[0]];
  for (let i = 1; i < path.length; i++) {
    const [down, up] = direction === 'UPSTREAM' ? [path[i - 1], path[i]] : [path[i], path[i - 1]];
    const via = vias.get(`${down.urn}|${up.urn}`);
    if (via !== undefined) out.push({ urn: via, type: tryParseUrn(via)?.entityType ?? 'unknown' });
    out.push(path[i]);
  }
  return out;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

interface ParsedGroup {
  /** Explicit degrees, or 'open' when unrestricted. */
  degrees: number[] | 'open';
  explicit: number[];
  /** "3+" → 3: every degree from here on. */
  openFrom: number | null;
  types: string[] | null;
  platforms: string[] | null;
  includeRemoved: boolean;
}

/** GraphQL's EntityType names (DATASET, DATA_JOB, SCHEMA_FIELD) and model names (dataset, dataJob) both map to the model's. */
export function modelEntityType(name: string): string {
  if (/^[A-Z_]+$/.test(name)) {
    // DataHub's names of the ML types have no underscore after ML (the GraphQL EntityType enum accepts them).
    const special: Record<string, string> = {
      CORP_USER: 'corpuser',
      CORP_GROUP: 'corpGroup',
      MLMODEL: 'mlModel',
      MLMODEL_GROUP: 'mlModelGroup',
      MLFEATURE_TABLE: 'mlFeatureTable',
      MLFEATURE: 'mlFeature',
      MLPRIMARY_KEY: 'mlPrimaryKey',
    };
    return special[name] ?? name.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  }
  return name;
}

export function graphqlEntityType(name: string): string {
  const special: Record<string, string> = { corpuser: 'CORP_USER' };
  return special[name] ?? name.replace(/([A-Z])/g, '_$1').toUpperCase();
}

const FIELDS = new Set(['degree', 'platform', 'platform.keyword', '_entityType', 'entityType', 'removed']);

/** DataHub's `orFilters` → filter groups; fields this service cannot apply are refused rather than ignored. */
export function parseOrFilters(orFilters: { and?: FacetFilter[] | null }[], types: string[], includeRemoved: boolean, urnNamespace = 'li'): ParsedGroup[] {
  const base = (): ParsedGroup => ({ degrees: 'open', explicit: [], openFrom: null, types: types.length > 0 ? types.map(modelEntityType) : null, platforms: null, includeRemoved });
  if (orFilters.length === 0) return [base()];
  return orFilters.map((group) => {
    const g = base();
    for (const f of group.and ?? []) {
      if (!FIELDS.has(f.field)) throw new InvalidInputError(`Lineage filters support the fields ${[...FIELDS].join(', ')}; got '${f.field}'`);
      const condition = f.condition ?? 'EQUAL';
      if (condition !== 'EQUAL') throw new InvalidInputError(`Lineage filter on '${f.field}' supports condition EQUAL only, got ${condition}`);
      const values = [...(f.values ?? []), ...(f.value !== undefined && f.value !== null ? [f.value] : [])];
      if (f.field === 'removed') {
        // DataHub sends removed = true, negated, to hide soft-deleted entities; not negated asks for them too.
        g.includeRemoved = !f.negated;
        continue;
      }
      if (f.negated) throw new InvalidInputError(`Negated lineage filters are supported on 'removed' only`);
      if (f.field === 'degree') {
        const explicit: number[] = [];
        for (const v of values) {
          const m = /^(\d+)(\+?)$/.exec(v);
          if (!m || Number(m[1]) < 1) throw new InvalidInputError(`degree filter values are "1", "2", … or "N+", got ${JSON.stringify(v)}`);
          if (m[2]) g.openFrom = Math.min(g.openFrom ?? Infinity, Number(m[1]));
          else explicit.push(Number(m[1]));
        }
        g.explicit = explicit;
        g.degrees = g.openFrom !== null ? 'open' : explicit;
      } else if (f.field === 'platform' || f.field === 'platform.keyword') {
        // Matched against the platform member of the entity's urn, as a platform urn or a bare name.
        g.platforms = values.flatMap((v) => [v, platformName(urnNamespace, v)]).filter((v, i, a) => a.indexOf(v) === i);
      } else {
        g.types = values.map(modelEntityType);
      }
    }
    return g;
  });
}
