import { InvalidInputError } from '../../model/errors';
import type { AspectSpec, Registry } from '../../model/registry';
import type { HistoryStore, VersionRow } from '../../stores/graph/history-store';
import { highest, SEMVER_ORDER, type ChangeCategory, type ChangeEvent, type SemVerChange } from './change-events';
import { jsonPatch, type PatchOperation } from './json-patch-diff';

/** DataHub's ChangeTransaction, as its timeline API answers it. */
export interface ChangeTransaction {
  timestamp: number;
  actor: string;
  semVer: string;
  semVerChange: SemVerChange;
  changeEvents: ChangeEvent[];
  versionStamp: string;
  rawDiff?: PatchOperation[];
}

export interface TimelineRequest {
  urn: unknown;
  categories: string[];
  startTime?: number;
  endTime?: number;
  raw?: boolean;
  includeVersionSet?: boolean;
}

/** Aspects whose history before `knownFrom` was trimmed by retention, where that cut into the window asked about. */
export interface TrimmedAspect {
  aspect: string;
  knownFrom: number;
}

export interface Timeline {
  transactions: ChangeTransaction[];
  trimmed: TrimmedAspect[];
}

export type CategoryAspects = Map<ChangeCategory, AspectSpec[]>;

/**
 * Which aspects each category reads, per entity type (DataHub's TimelineServiceImpl registry, plus DEPRECATION and
 * LINEAGE): what the aspects' modules declare (src/model/aspects/, `timeline`) for the entity types carrying them.
 */
export function categoryAspects(registry: Registry): Map<string, CategoryAspects> {
  const out = new Map<string, CategoryAspects>();
  for (const entity of registry.entities.values()) {
    for (const name of entity.aspects) {
      const aspect = registry.aspects.get(name)!;
      for (const category of aspect.behaviour?.timeline?.categories[entity.name] ?? []) {
        if (!out.has(entity.name)) out.set(entity.name, new Map());
        const byCategory = out.get(entity.name)!;
        byCategory.set(category, [...(byCategory.get(category) ?? []), aspect]);
      }
    }
  }
  return out;
}

/** Categories DataHub's timeline computes for these entity types that this service does not: refused, never answered empty. */
const NOT_IMPLEMENTED: Record<string, string[]> = {
  glossaryTerm: ['DOCUMENTATION', 'GLOSSARY_TERM'],
  domain: ['DOCUMENTATION'],
  dataProduct: ['DOCUMENTATION', 'ASSET_MEMBERSHIP'],
};

/** Every category name DataHub's API accepts (its ChangeCategory enum), OWNER for OWNERSHIP, and LINEAGE. */
const KNOWN = new Set([
  'DOCUMENTATION', 'GLOSSARY_TERM', 'OWNERSHIP', 'TECHNICAL_SCHEMA', 'TAG', 'DOMAIN', 'DEPRECATION', 'LIFECYCLE', 'RUN',
  'BUSINESS_ATTRIBUTE', 'STRUCTURED_PROPERTY', 'APPLICATION', 'ASSET_MEMBERSHIP', 'VERSIONING', 'PARENT', 'RELATED_ENTITIES', 'LINEAGE',
]);

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** DataHub's converter: case-insensitive; compound names in any spelling (technical_schema, technical-schema, …). */
export function parseCategory(raw: string): string {
  const upper = raw.trim().toUpperCase();
  if (upper === 'OWNER') return 'OWNERSHIP';
  for (const compound of ['GLOSSARY_TERM', 'TECHNICAL_SCHEMA']) if (compound.split('_').every((p) => upper.includes(p))) return compound;
  if (!KNOWN.has(upper)) throw new InvalidInputError(`Unknown change category '${raw}'; expected one of ${[...KNOWN, 'OWNER'].join(', ')}`);
  return upper;
}

/** A version as the timeline walks it; null value = DataHub's sentinel (the aspect did not exist). */
interface Row {
  version: number;
  createdTime: number;
  createdActor: string;
  value: string | null;
  sentinel?: true;
}

/**
 * DataHub's timeline, from the kept aspect versions: per aspect, the versions written in [startTime, endTime] and the
 * one before (a sentinel when the first is the aspect's creation), each diffed with its predecessor by the change-event
 * generators of the categories asked for; diffs of one moment form one transaction, numbered by semantic version.
 */
export class TimelineService {
  private readonly categories: Map<string, CategoryAspects>;

  constructor(
    private readonly registry: Registry,
    private readonly store: HistoryStore,
    private readonly now: () => number = Date.now,
  ) {
    this.categories = categoryAspects(registry);
  }

  /** The change categories this service computes for the urn's entity type (GraphQL's getTimeline asks for all of them by default). */
  categoriesOf(rawUrn: unknown): ChangeCategory[] {
    const { entity } = this.registry.parseEntityUrn(rawUrn);
    return [...(this.categories.get(entity.name)?.keys() ?? [])].filter((c) => !NOT_IMPLEMENTED[entity.name]?.includes(c));
  }

  async timeline(request: TimelineRequest): Promise<Timeline> {
    const { urn, entity } = this.registry.parseEntityUrn(request.urn);
    const registered = this.categories.get(entity.name);
    if (!registered) throw new InvalidInputError(`The timeline is not available for entity type '${entity.name}'; it is for ${[...this.categories.keys()].join(', ')}`);
    const categories = [...new Set(request.categories.flatMap((c) => c.split(',')).filter((c) => c.trim() !== '').map(parseCategory))];
    if (categories.length === 0) throw new InvalidInputError("Parameter 'categories' needs at least one change category");
    const missing = categories.filter((c) => NOT_IMPLEMENTED[entity.name]?.includes(c));
    if (missing.length > 0) throw new InvalidInputError(`This service does not compute the ${missing.join(', ')} timeline of ${entity.name} entities`);
    const wanted = categories.filter((c): c is ChangeCategory => registered.has(c as ChangeCategory));
    const end = request.endTime && request.endTime !== 0 ? request.endTime : this.now();
    const start = request.startTime === undefined || request.startTime === -1 ? end - WEEK_MS : request.startTime;
    const urns = request.includeVersionSet ? await this.store.versionSetMembers(urn.raw) : [urn.raw];
    if (!request.includeVersionSet) return this.compute(urn.raw, entity.name, wanted, start, end, request.raw === true);
    // DataHub merges every version's whole timeline into one stream, oldest first.
    const all = await Promise.all(urns.map((u) => this.compute(u, entity.name, wanted, Number.MIN_SAFE_INTEGER, this.now(), request.raw === true)));
    const transactions = all.flatMap((t) => t.transactions).sort((a, b) => a.timestamp - b.timestamp || (a.actor < b.actor ? -1 : a.actor > b.actor ? 1 : 0));
    return { transactions, trimmed: all.flatMap((t) => t.trimmed) };
  }

  private async compute(urn: string, entityType: string, categories: ChangeCategory[], start: number, end: number, raw: boolean): Promise<Timeline> {
    const registered = this.categories.get(entityType)!;
    const diffed = new Map(categories.flatMap((c) => registered.get(c) ?? []).map((a) => [a.name, a]));
    const rows = await this.store.entityVersions(urn, [...diffed.keys()]);
    const byAspect = new Map<string, VersionRow[]>();
    for (const r of rows) byAspect.set(r.name, [...(byAspect.get(r.name) ?? []), r]);

    const sets = new Map<string, Row[]>();
    const trimmed: TrimmedAspect[] = [];
    for (const [name, versions] of byAspect) {
      const { rows: set, trimmedFrom } = windowRows(versions, start, end);
      sets.set(name, set);
      if (trimmedFrom !== null && diffed.has(name)) trimmed.push({ aspect: name, knownFrom: trimmedFrom });
    }

    // Per moment, one transaction per (aspect, category) that produced events.
    const byMoment = new Map<number, ChangeTransaction[]>();
    // Each version parsed once: it is the `after` of one diff and the `before` of the next, for every category.
    const parsed = new Map<Row, Record<string, unknown> | null>();
    const valueOf = (row: Row) => {
      if (!parsed.has(row)) parsed.set(row, row.value === null ? null : (JSON.parse(row.value) as Record<string, unknown>));
      return parsed.get(row)!;
    };
    for (const [name, aspect] of diffed) {
      const set = sets.get(name) ?? [];
      for (let i = 1; i < set.length; i++) {
        const current = set[i];
        const before = valueOf(set[i - 1]);
        const after = valueOf(current)!;
        for (const category of categories) {
          if (!registered.get(category)?.includes(aspect)) continue;
          const events = aspect.behaviour!.timeline!.changes(before, after, urn, category);
          if (events.length === 0) continue;
          const transaction: ChangeTransaction = {
            timestamp: current.createdTime,
            actor: current.createdActor,
            semVer: '',
            semVerChange: highest(events),
            changeEvents: events,
            versionStamp: '',
            ...(raw ? { rawDiff: jsonPatch(before ?? {}, after) } : {}),
          };
          byMoment.set(current.createdTime, [...(byMoment.get(current.createdTime) ?? []), transaction]);
        }
      }
    }

    // Semantic versions: the first moment is 0.0.0; each later one bumps by its highest change.
    const moments = [...byMoment.keys()].sort((a, b) => a - b);
    let version: [number, number, number] | null = null;
    const transactions: ChangeTransaction[] = [];
    for (const moment of moments) {
      const list = byMoment.get(moment)!;
      const top = highest(list.map((t) => ({ semVerChange: t.semVerChange })));
      version = bump(version, top);
      const combined: ChangeTransaction = {
        timestamp: moment,
        actor: list[0].actor,
        semVer: `${version.join('.')}-computed`,
        semVerChange: top,
        changeEvents: list.flatMap((t) => t.changeEvents),
        versionStamp: versionStamp(sets, moment),
        ...(raw ? { rawDiff: list.flatMap((t) => t.rawDiff ?? []) } : {}),
      };
      transactions.push(combined);
    }
    return { transactions, trimmed };
  }
}

function bump(previous: [number, number, number] | null, change: SemVerChange): [number, number, number] {
  if (!previous) return [0, 0, 0];
  const [major, minor, patch] = previous;
  if (change === 'MAJOR') return [major + 1, 0, 0];
  if (change === 'MINOR') return [major, minor + 1, 0];
  if (change === 'PATCH') return [major, minor, patch + 1];
  return previous;
}

/** Latest last: by write time, a history version before the latest written in the same millisecond. */
function byAge(a: { createdTime: number; version: number }, b: { createdTime: number; version: number }): number {
  const rank = (v: number) => (v === 0 ? Number.MAX_SAFE_INTEGER : v);
  return a.createdTime - b.createdTime || rank(a.version) - rank(b.version);
}

/**
 * The versions of one aspect DataHub's timeline looks at for [start, end]: those written in it, preceded by the one
 * before (or a sentinel when the first is the aspect's creation); with none in it, the latest alone. Versions written
 * in the same millisecond count once (the later). When the first version in the window is the oldest kept and older
 * ones were trimmed, it has no predecessor to be diffed with: `trimmedFrom` says from when history is known.
 */
export function windowRows(versions: VersionRow[], start: number, end: number): { rows: Row[]; trimmedFrom: number | null } {
  const sorted = [...versions].sort(byAge);
  const distinct: VersionRow[] = [];
  for (const v of sorted) {
    if (distinct.length > 0 && distinct[distinct.length - 1].createdTime === v.createdTime) distinct[distinct.length - 1] = v;
    else distinct.push(v);
  }
  const trimmed = versions.some((v) => v.version === 0 && v.trimmed) || (versions.some((v) => v.version > 0) && !versions.some((v) => v.version === 1));
  const knownFrom = sorted[0]?.createdTime ?? 0;
  const toRow = (v: VersionRow): Row => ({ version: v.version, createdTime: v.createdTime, createdActor: v.createdActor, value: v.value });
  const first = distinct.findIndex((v) => v.createdTime >= start && v.createdTime <= end);
  if (first === -1) {
    const latest = distinct.find((v) => v.version === 0) ?? distinct[distinct.length - 1];
    return { rows: latest ? [toRow(latest)] : [], trimmedFrom: trimmed && start < knownFrom ? knownFrom : null };
  }
  const inRange = distinct.filter((v) => v.createdTime >= start && v.createdTime <= end).map(toRow);
  if (first > 0) return { rows: [toRow(distinct[first - 1]), ...inRange], trimmedFrom: null };
  if (trimmed) return { rows: inRange, trimmedFrom: knownFrom };
  return { rows: [{ version: -1, createdTime: 0, createdActor: '', value: null, sentinel: true }, ...inRange], trimmedFrom: null };
}

/** `aspect:version;…` in aspect-name order: each aspect's version at that moment among the rows looked at. */
function versionStamp(sets: Map<string, Row[]>, moment: number): string {
  const parts: string[] = [];
  for (const name of [...sets.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    let match: Row | null = null;
    for (const row of sets.get(name)!) {
      if (row.sentinel) continue;
      if (row.createdTime > moment) break;
      match = row;
    }
    if (match) parts.push(`${name}:${match.version}`);
  }
  return parts.join(';');
}

export { SEMVER_ORDER };
