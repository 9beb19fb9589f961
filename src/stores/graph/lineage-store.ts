import { status } from '../../model/aspects';
import neo4j from 'neo4j-driver';
import { DeadlineExceededError } from '../../model/errors';
import type { Neo4jExecutor } from './neo4j-executor';

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
  /** Aspects returned with each entity of the page. */
  aspects: string[];
  deadlineMs: number;
}

export interface LineageRow {
  urn: string;
  type: string;
  degree: number;
  path: { urn: string; type: string }[];
  aspects: Map<string, Record<string, unknown>>;
}

export interface LineagePage {
  total: number;
  /** Which bounds cut the traversal short. */
  cut: { visitCap: boolean; fanOut: boolean; maxHops: boolean };
  rows: LineageRow[];
}

/** How a lineage relationship is stored: isUpstream = from the downstream entity to its upstream. */
export type LineageEdges = Map<string, { isUpstream: boolean }>;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Stands for "no relationship type" in a type list (a name no edge has; Neo4j just counts nothing). */
const NO_TYPE = '__NoLineage__';

/** Multi-hop lineage on the projected edges; the statement lives in cypher/lineage.cypher. */
export class LineageStore {
  private readonly texts = new Map<string, string>();

  constructor(
    private readonly neo4j: Neo4jExecutor,
    private readonly edges: LineageEdges,
  ) {
    for (const name of edges.keys()) if (!IDENTIFIER.test(name)) throw new Error(`Lineage relationship name '${name}' is not a plain identifier`);
  }

  /** The statement for one direction and hop bound (cached: Neo4j then caches its plan too). */
  private statement(direction: LineageDirection, hops: number): { text: string; forward: string[] } {
    if (!Number.isInteger(hops) || hops < 1 || hops > 100) throw new Error(`hops must be an integer in 1..100, got ${hops}`);
    const all = [...this.edges.keys()];
    // Walking downstream follows isUpstream=false edges along their direction and isUpstream=true ones against it.
    const forward = all.filter((t) => this.edges.get(t)!.isUpstream === (direction === 'UPSTREAM'));
    const back = all.filter((t) => !forward.includes(t));
    const key = `${direction}|${hops}`;
    let text = this.texts.get(key);
    if (!text) {
      text = this.neo4j.cypher
        .get('lineage/traverse')
        // All stored against the walk: follow edges backwards; all along it: forwards; mixed: either, checked per edge.
        .replaceAll('{{left}}', forward.length === 0 ? '<-' : '-')
        .replaceAll('{{right}}', back.length === 0 ? '->' : '-')
        .replaceAll('{{types}}', all.length > 0 ? all.join('|') : NO_TYPE)
        .replaceAll('{{back}}', back.length > 0 ? back.join('|') : NO_TYPE)
        .replaceAll('{{fwd}}', forward.length > 0 ? forward.join('|') : NO_TYPE)
        .replaceAll('{{hops}}', String(hops));
      this.texts.set(key, text);
    }
    return { text, forward };
  }

  /** The exact statement and parameters a query runs (the benchmark runs them raw, beside the service). */
  prepare(q: LineageQuery): { text: string; params: Record<string, unknown> } {
    const { text, forward } = this.statement(q.direction, q.maxHops);
    return {
      text,
      params: {
        urn: q.urn,
        forward,
        columns: q.columns,
        fanOut: neo4j.int(q.fanOut),
        visitCap: neo4j.int(q.visitCap),
        maxHops: neo4j.int(q.maxHops),
        groups: q.groups,
        start: neo4j.int(q.start),
        count: neo4j.int(q.count),
        aspects: q.aspects,
        statusAspect: status.name,
      },
    };
  }

  async traverse(q: LineageQuery): Promise<LineagePage> {
    const { text, params } = this.prepare(q);
    const record = await this.neo4j.read(
      'lineage.traverse',
      async (tx) => (await tx.run(text, params)).records[0],
      { timeoutMs: q.deadlineMs, onTimeout: () => new DeadlineExceededError(`Lineage of ${q.urn} did not finish within its deadline of ${q.deadlineMs} ms`) },
    );
    if (!record) return { total: 0, cut: { visitCap: false, fanOut: false, maxHops: false }, rows: [] };
    const page = record.get('page') as { urn: string; type: string; degree: number; path: { urn: string; type: string }[]; aspects: { name: string; value: string }[] }[];
    return {
      total: Number(record.get('total')),
      cut: { visitCap: Boolean(record.get('visitCut')), fanOut: Boolean(record.get('fanOutCut')), maxHops: Boolean(record.get('hopsCut')) },
      rows: page.map((r) => ({
        urn: r.urn,
        type: r.type,
        degree: Number(r.degree),
        path: r.path,
        aspects: new Map(r.aspects.map((a) => [a.name, JSON.parse(a.value) as Record<string, unknown>])),
      })),
    };
  }
}
