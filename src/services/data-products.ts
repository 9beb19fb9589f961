import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth';
import { dataProductProperties, domains, ownership } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import { makeUrn } from '../model/urn';
import { addCreatorAsOwner } from './creator-owner';
import type { EntityReads } from './entity-reads';
import type { AspectTransform, IngestionService } from './ingestion';
import type { ReferencesService } from './references';
import type { RetrievalService } from './retrieval';

/** The edge a data product's assets project (dataProductProperties.assets[].destinationUrn). */
const CONTAINS = 'DataProductContains';
const DATA_PRODUCT = 'dataProduct';
/** Most data products one asset is looked up in (an asset is in one, as DataHub keeps it). */
const MAX_MEMBERSHIPS = 100;

export interface CreateDataProductInput {
  id?: string | null;
  domainUrn: string;
  properties: { name: string; description?: string | null };
}

type Asset = Record<string, unknown> & { destinationUrn: string };

/**
 * Data products as DataHub's GraphQL manages them (createDataProduct, updateDataProduct, deleteDataProduct,
 * batchSetDataProduct): a data product sits in a domain, is created with its creator as owner, and lists its assets
 * in its properties; an asset is in at most one (setting another moves it). Everything named is checked before one
 * transaction writes it all.
 */
export class DataProducts {
  constructor(
    private readonly registry: Registry,
    private readonly reads: EntityReads,
    private readonly retrieval: RetrievalService,
    private readonly ingestion: IngestionService,
    private readonly references: ReferencesService,
    private readonly now: () => number = Date.now,
  ) {}

  async create(input: CreateDataProductInput, principal: Principal): Promise<string> {
    const urn = this.dataProductUrn(makeUrn(this.registry.urnNamespace, DATA_PRODUCT, [input.id ?? randomUUID()]), 'id');
    const { urn: domain, entity } = this.registry.parseEntityUrn(input.domainUrn, 'domainUrn');
    if (entity.name !== 'domain') throw new InvalidInputError(`domainUrn: ${domain.raw} is not a domain`);
    if (input.properties.name.trim() === '') throw new InvalidInputError('properties.name must not be empty');
    const existing = await this.reads.existing([urn, domain.raw]);
    if (existing.has(urn)) throw new InvalidInputError('This Data Product already exists!');
    if (!existing.has(domain.raw)) throw new InvalidInputError(`Failed to create Data Product: domain ${domain.raw} does not exist`);
    const properties = { name: input.properties.name, ...(input.properties.description ? { description: input.properties.description } : {}), assets: [] };
    await this.ingestion.transformAspects(
      [
        { urn, aspectName: dataProductProperties.name, transform: (current) => (current ? null : properties) },
        { urn, aspectName: domains.name, transform: () => ({ domains: [domain.raw] }) },
        { urn, aspectName: ownership.name, transform: addCreatorAsOwner(principal) },
      ],
      principal,
    );
    return urn;
  }

  async update(rawUrn: string, input: { name?: string | null; description?: string | null }, principal: Principal): Promise<string> {
    const urn = await this.existingDataProduct(rawUrn, 'urn');
    if (input.name !== undefined && input.name !== null && input.name.trim() === '') throw new InvalidInputError('name must not be empty');
    const transform: AspectTransform = (current) => ({
      ...(current ?? { assets: [] }),
      ...(input.name ? { name: input.name } : {}),
      ...(input.description !== undefined && input.description !== null ? { description: input.description } : {}),
    });
    await this.ingestion.transformAspects([{ urn, aspectName: dataProductProperties.name, transform }], principal);
    return urn;
  }

  /** Deletes a data product: every reference to it first, then the data product with its asset edges. */
  async delete(rawUrn: string, principal: Principal): Promise<true> {
    const urn = await this.existingDataProduct(rawUrn, 'urn');
    await this.references.deleteReferences(urn, false, principal);
    await this.ingestion.delete({ urn });
    return true;
  }

  /** Puts each asset in the data product (null: in none), taking it out of any other it was in. */
  async batchSet(rawDataProduct: string | null | undefined, rawAssets: string[], principal: Principal): Promise<true> {
    const target = rawDataProduct ? await this.existingDataProduct(rawDataProduct, 'dataProductUrn') : null;
    const assets = [...new Set(rawAssets.map((u, i) => this.registry.parseEntityUrn(u, `resourceUrns[${i}]`).urn.raw))];
    const existing = await this.reads.existing(assets);
    for (const urn of assets) if (!existing.has(urn)) throw new InvalidInputError(`Failed to set Data Product for resource with urn ${urn}: entity does not exist`);
    // Which data products hold each asset now: the incoming DataProductContains edges.
    const holders = new Map<string, string[]>();
    for (const asset of assets) {
      const page = await this.retrieval.relationships(asset, 'INCOMING', [CONTAINS], 0, MAX_MEMBERSHIPS);
      for (const product of page.entities) if (product !== target) holders.set(product, [...(holders.get(product) ?? []), asset]);
    }
    const stamp = { time: this.now(), actor: principal.actor };
    const changes: { urn: string; aspectName: string; transform: AspectTransform }[] = [...holders].map(([product, leaving]) => ({
      urn: product,
      aspectName: dataProductProperties.name,
      transform: (current) => {
        const list = (current?.assets as Asset[] | undefined) ?? [];
        const kept = list.filter((a) => !leaving.includes(a.destinationUrn));
        return kept.length === list.length ? null : { ...current, assets: kept };
      },
    }));
    if (target) {
      changes.push({
        urn: target,
        aspectName: dataProductProperties.name,
        transform: (current) => {
          const list = (current?.assets as Asset[] | undefined) ?? [];
          const joining = assets.filter((a) => !list.some((x) => x.destinationUrn === a));
          return joining.length === 0 ? null : { ...(current ?? {}), assets: [...list, ...joining.map((destinationUrn) => ({ destinationUrn, created: stamp }))] };
        },
      });
    }
    if (changes.length > 0) await this.ingestion.transformAspects(changes, principal);
    return true;
  }

  /** The urns of a data product's assets, in its own order. */
  async assets(rawUrn: string): Promise<string[]> {
    const urn = this.dataProductUrn(rawUrn, 'urn');
    const value = (await this.reads.aspectsOfMany([urn], [dataProductProperties.name])).get(urn)?.get(dataProductProperties.name);
    return ((value?.assets as Asset[] | undefined) ?? []).map((a) => a.destinationUrn);
  }

  private async existingDataProduct(raw: string, what: string): Promise<string> {
    const urn = this.dataProductUrn(raw, what);
    if (!(await this.reads.existing([urn])).has(urn)) throw new InvalidInputError(`Data Product ${urn} does not exist`);
    return urn;
  }

  private dataProductUrn(raw: string, what: string): string {
    const { urn, entity } = this.registry.parseEntityUrn(raw, what);
    if (entity.name !== DATA_PRODUCT) throw new InvalidInputError(`${what}: ${urn.raw} is not a data product`);
    return urn.raw;
  }
}
