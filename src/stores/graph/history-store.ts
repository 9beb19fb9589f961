import neo4j from 'neo4j-driver';
import { DeadlineExceededError, UnavailableError } from '../../model/errors';
import { tryParseUrn } from '../../model/urn';
import type { Neo4jExecutor } from './neo4j-executor';

/** One kept version of an aspect (timeline). `value` only for the aspects asked for. */
export interface VersionRow {
  name: string;
  version: number;
  createdTime: number;
  createdActor: string;
  value: string | null;
  /** On the latest node: older history was trimmed by retention. */
  trimmed: boolean;
}

/** What is known of one aspect at a moment: the version then valid (null: none yet), and how far back history goes. */
export interface AspectAt {
  name: string;
  at: { version: number; value: string; createdTime: number; createdActor: string; systemMetadata: string | null } | null;
  /** createdTime of the oldest kept version. */
  from: number;
  /** Versions older than `from` were trimmed by retention: before it, the aspect's value is unknown. */
  trimmed: boolean;
}

/** An aspect value as of a moment, with how far back its history goes (lineage hops). */
export interface ValueAt {
  value: string | null;
  from: number;
  trimmed: boolean;
}

export interface HopRow {
  urn: string;
  /** `current`: the latest value was valid at t (its lineage is the current edges, `out`); `value` as asked for. */
  own: (ValueAt & { name: string; current: boolean })[];
  /** Current outgoing edges of the types walked outwards, with the aspect that projected each. */
  out: { aspect: string; target: string }[];
  /**
   * Entities pointing, or once pointing, at it: `valid` = by a current edge from a value already valid at t; `settled`
   * = the owning aspect's latest value was valid at t (so without `valid`, it did not point at it then); otherwise
   * `value` is the owning aspect's value at t.
   */
  inward: (ValueAt & { src: string; aspect: string; valid: boolean; settled: boolean })[];
  /** With lookahead: the entities this hop may reach, their shown aspects as of t and lineage edges leading on. */
  ahead: { urn: string; aspects: (ValueAt & { name: string; current: boolean })[]; onward: number }[];
}

export interface BackfillVersion {
  urn: string;
  name: string;
  version: number;
  createdTime: number;
  value: string;
  trimmed: boolean;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Stands for "no relationship type" (a name no edge has). */
const NO_TYPE = '__NoLineage__';

const typeOf = (urn: string) => tryParseUrn(urn)?.entityType ?? '';
const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

/** Reads of kept aspect versions (cypher/history.cypher): timeline, as-of reads, as-of lineage and its backfill. */
export class HistoryStore {
  private readonly hopTexts = new Map<string, string>();

  constructor(private readonly neo4j: Neo4jExecutor) {}

  async entityVersions(urn: string, valued: string[]): Promise<VersionRow[]> {
    const records = await this.neo4j.query('history.timeline', 'history/entityVersions', { urn, valued });
    return records.map((r) => ({
      name: r.get('name'),
      version: num(r.get('version')),
      createdTime: num(r.get('createdTime')),
      createdActor: String(r.get('createdActor') ?? ''),
      value: r.get('value') ?? null,
      trimmed: r.get('trimmed') === true,
    }));
  }

  /** The entity and the others of its version set (at most `limit` besides it). */
  async versionSetMembers(urn: string, limit = 50): Promise<string[]> {
    const records = await this.neo4j.query('history.versionSet', 'history/versionSetMembers', { urn, limit: neo4j.int(limit) });
    return (records[0]?.get('urns') as string[] | undefined) ?? [urn];
  }

  /** Aspects of one entity as of `t` (names null: all). */
  async aspectsAt(urn: string, names: string[] | null, t: number): Promise<AspectAt[]> {
    const records = await this.neo4j.query('history.aspectsAt', 'history/aspectsAt', { items: [{ key: 0, urn, names }], t: neo4j.int(t) });
    return ((records[0]?.get('aspects') ?? []) as Record<string, unknown>[]).map((a) => {
      const at = a.at as Record<string, unknown> | null;
      return {
        name: a.name as string,
        at: at
          ? { version: num(at.version), value: at.value as string, createdTime: num(at.createdTime), createdActor: String(at.createdActor ?? ''), systemMetadata: (at.systemMetadata as string | null) ?? null }
          : null,
        from: num(a.from),
        trimmed: a.trimmed === true,
      };
    });
  }

  /** The hop statement for the relationship types walked out- and inwards (types cannot be parameters; cached per set). */
  private hopText(outTypes: string[], inTypes: string[]): string {
    const key = `${outTypes.join('|')}>${inTypes.join('|')}`;
    let text = this.hopTexts.get(key);
    if (!text) {
      for (const t of [...outTypes, ...inTypes]) if (!IDENTIFIER.test(t)) throw new Error(`Lineage relationship name '${t}' is not a plain identifier`);
      const list = (types: string[]) => (types.length > 0 ? types.join('|') : NO_TYPE);
      text = this.neo4j.cypher.get('history/lineageHop').replaceAll('{{outTypes}}', list(outTypes)).replaceAll('{{inTypes}}', list(inTypes));
      this.hopTexts.set(key, text);
    }
    return text;
  }

  /**
   * Runs `walk` within `deadlineMs`; `hop` reads one hop's frontier as of `t` (one auto-commit statement each: a read
   * transaction would add a BEGIN and a COMMIT round trip, and the versions valid at a past moment do not change).
   */
  async lineageWalk<T>(
    q: { urn: string; deadlineMs: number },
    walk: (
      hop: (frontier: string[], p: { t: number; own: Record<string, string[]>; valued: string[]; outTypes: string[]; inTypes: string[]; lookahead: boolean; shown: string[] }) => Promise<HopRow[]>,
    ) => Promise<T>,
  ): Promise<T> {
    const deadline = Date.now() + q.deadlineMs;
    const missed = () => new DeadlineExceededError(`Lineage of ${q.urn} did not finish within its deadline of ${q.deadlineMs} ms`);
    return walk(async (frontier, p) => {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw missed();
      let records;
      try {
        records = await this.neo4j.queryText(
          'history.lineage',
          this.hopText(p.outTypes, p.inTypes),
          // Per frontier entity, the aspects read as its own: those its entity type has.
          { frontier: frontier.map((urn) => ({ urn, names: p.own[typeOf(urn)] ?? p.own[''] })), t: neo4j.int(p.t), valued: p.valued, inTypes: p.inTypes, lookahead: p.lookahead, shown: p.shown },
          { timeoutMs: remaining },
        );
      } catch (err) {
        if (err instanceof UnavailableError && err.timedOut) throw missed();
        throw err;
      }
      const aspectsAt = (list: Record<string, unknown>[]) =>
        list.map((o) => ({ name: o.name as string, current: o.current === true, value: (o.value as string | null) ?? null, from: num(o.from), trimmed: o.trimmed === true }));
      return records.map((r) => ({
        urn: r.get('u'),
        own: aspectsAt(r.get('own') as Record<string, unknown>[]),
        out: r.get('out') as { aspect: string; target: string }[],
        inward: (r.get('inward') as Record<string, unknown>[]).map((o) => ({
          src: o.src as string,
          aspect: o.aspect as string,
          valid: o.valid === true,
          settled: o.settled === true,
          value: (o.value as string | null) ?? null,
          from: num(o.from),
          trimmed: o.trimmed === true,
        })),
        ahead: (r.get('ahead') as Record<string, unknown>[]).map((a) => ({ urn: a.urn as string, aspects: aspectsAt(a.aspects as Record<string, unknown>[]), onward: num(a.onward) })),
      }));
    });
  }

  /** Several entities' aspects as of `t` in one round trip (hydrating a lineage page). */
  async manyAspectsAt(urns: string[], names: string[], t: number): Promise<Map<string, AspectAt[]>> {
    if (urns.length === 0) return new Map();
    const records = await this.neo4j.query('history.aspectsAt', 'history/aspectsAt', { items: urns.map((urn, key) => ({ key, urn, names })), t: neo4j.int(t) });
    const out = new Map<string, AspectAt[]>();
    for (const r of records) {
      const aspects = (r.get('aspects') as Record<string, unknown>[]).map((a) => {
        const at = a.at as Record<string, unknown> | null;
        return {
          name: a.name as string,
          at: at ? { version: num(at.version), value: at.value as string, createdTime: num(at.createdTime), createdActor: String(at.createdActor ?? ''), systemMetadata: null } : null,
          from: num(a.from),
          trimmed: a.trimmed === true,
        };
      });
      out.set(urns[Number(r.get('key'))], aspects);
    }
    return out;
  }

  /** The backfill's state; creates it (not complete) on a database that has none. */
  async backfillState(): Promise<{ complete: boolean; knownFrom: number }> {
    const records = await this.neo4j.query('history.backfill', 'history/backfillMeta', {}, { mode: 'WRITE' });
    return { complete: records[0]?.get('complete') === true, knownFrom: num(records[0]?.get('knownFrom')) };
  }

  async backfillPage(after: string, names: string[], limit: number): Promise<BackfillVersion[]> {
    const records = await this.neo4j.query('history.backfill', 'history/backfillPage', { after, names, limit: neo4j.int(limit) });
    return records.map((r) => ({
      urn: r.get('urn'),
      name: r.get('name'),
      version: num(r.get('version')),
      createdTime: num(r.get('createdTime')),
      value: r.get('value'),
      trimmed: r.get('trimmed') === true,
    }));
  }

  async backfillRecord(records: { source: string; target: string; type: string; aspect: string }[]): Promise<void> {
    if (records.length > 0) await this.neo4j.query('history.backfill', 'history/backfillRecord', { records }, { mode: 'WRITE' });
  }

  async backfillDone(knownFrom: number): Promise<void> {
    await this.neo4j.query('history.backfill', 'history/backfillDone', { knownFrom }, { mode: 'WRITE' });
  }
}
