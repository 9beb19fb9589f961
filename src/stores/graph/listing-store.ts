import neo4j from 'neo4j-driver';
import type { Neo4jExecutor } from './neo4j-executor';

export interface AspectCountQuery {
  aspect: string;
  /** The entity types that carry the aspect. */
  entityTypes: string[];
  /** A urnLike pattern: its literal prefix as the urn range [from, to) the urn index seeks, and the pattern as an anchored regular expression. */
  urnLike: { from: string; to: string; urnRegex: string } | null;
}

/** Listings and counts over the catalog (cypher/listing.cypher). */
export class ListingStore {
  constructor(private readonly neo4j: Neo4jExecutor) {}

  async listUrns(entityType: string, keyAspect: string, start: number, count: number): Promise<{ total: number; urns: string[] }> {
    const [record] = await this.neo4j.query('listing.listUrns', 'listing/listUrns', { entityType, keyAspect, start: neo4j.int(start), count: neo4j.int(count) });
    return { total: Number(record?.get('total') ?? 0), urns: (record?.get('page') as string[] | undefined) ?? [] };
  }

  async countAspect(query: AspectCountQuery): Promise<number> {
    const params = { aspect: query.aspect, entityTypes: query.entityTypes, ...query.urnLike };
    const [record] = await this.neo4j.query('listing.countAspect', query.urnLike ? 'listing/countAspectLike' : 'listing/countAspect', params);
    return Number(record?.get('count') ?? 0);
  }

  /** The latest value (stored JSON) of `aspect` of every entity of `entityType`, by urn. */
  async latestOfType(entityType: string, aspect: string): Promise<{ urn: string; value: string }[]> {
    const records = await this.neo4j.query('listing.latestOfType', 'listing/latestOfType', { entityType, aspect });
    return records.map((r) => ({ urn: r.get('urn') as string, value: r.get('value') as string }));
  }
}
