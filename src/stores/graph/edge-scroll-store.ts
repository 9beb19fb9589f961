import { status } from '../../model/aspects';
import neo4j from 'neo4j-driver';
import type { Neo4jExecutor } from './neo4j-executor';

export interface EdgeRow {
  source: string;
  sourceType: string;
  type: string;
  destination: string;
  destinationType: string;
}

export interface LineageEdgeRow extends EdgeRow {
  upstream: string;
  downstream: string;
}

/** The cursor of an edge page: the last row's (source, type, destination). */
export type EdgeCursor = [string, string, string];

export interface EdgeQuery {
  types: string[] | null;
  sourceTypes: string[] | null;
  destinationTypes: string[] | null;
  sourceUrns: string[] | null;
  destinationUrns: string[] | null;
  includeRemoved: boolean;
  after: EdgeCursor | null;
  count: number;
}

export interface LineageEdgeQuery {
  /** Lineage relationship names and, of those, the ones whose destination is the upstream end. */
  types: string[];
  upstreamTypes: string[];
  urns: string[] | null;
  direction: 'UPSTREAM' | 'DOWNSTREAM' | null;
  includeRemoved: boolean;
  after: EdgeCursor | null;
  count: number;
}

/** Edge pages in (source, type, destination) order (cypher/edge-scroll.cypher). */
export class EdgeScrollStore {
  constructor(private readonly neo4j: Neo4jExecutor) {}

  async edges(q: EdgeQuery): Promise<EdgeRow[]> {
    const statement = q.sourceUrns ? 'edge-scroll/fromSources' : q.destinationUrns ? 'edge-scroll/toDestinations' : 'edge-scroll/all';
    const records = await this.neo4j.query('scroll.relationships', statement, { ...q, count: neo4j.int(q.count), statusAspect: status.name });
    return records.map((r) => ({
      source: r.get('source'),
      sourceType: r.get('sourceType'),
      type: r.get('type'),
      destination: r.get('destination'),
      destinationType: r.get('destinationType'),
    }));
  }

  async lineage(q: LineageEdgeQuery): Promise<LineageEdgeRow[]> {
    const records = await this.neo4j.query('scroll.lineage', q.urns ? 'edge-scroll/lineageAround' : 'edge-scroll/lineageAll', { ...q, count: neo4j.int(q.count), statusAspect: status.name });
    return records.map((r) => ({
      source: r.get('source'),
      sourceType: r.get('sourceType'),
      type: r.get('type'),
      destination: r.get('destination'),
      destinationType: r.get('destinationType'),
      upstream: r.get('upstream'),
      downstream: r.get('downstream'),
    }));
  }
}
