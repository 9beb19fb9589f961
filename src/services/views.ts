import { randomUUID } from 'node:crypto';
import { hasScope, type Principal } from '../auth';
import { dataHubViewInfo } from '../model/aspects';
import { ForbiddenError, InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import { makeUrn } from '../model/urn';
import type { EntityReads } from './entity-reads';
import type { IngestionService } from './ingestion';
import { parseFilter, type Filter } from './search/query-builder';

const VIEW = 'dataHubView';
const VIEW_TYPES = ['PERSONAL', 'GLOBAL'] as const;
type ViewType = (typeof VIEW_TYPES)[number];

/** A criterion as DataHub stores it in a view (rest.li Criterion) and as GraphQL's FacetFilter shows it. */
export interface ViewCriterion {
  field: string;
  values: string[];
  condition: string;
  negated: boolean;
}

/** A view's definition as GraphQL shows it: model entity type names, and one operator over its criteria. */
export interface ViewDefinition {
  entityTypes: string[];
  filter: { operator: 'AND' | 'OR'; filters: ViewCriterion[] };
}

export interface View {
  urn: string;
  viewType: ViewType;
  name: string;
  description: string | null;
  definition: ViewDefinition;
}

export interface ViewInput {
  viewType?: string;
  name?: string | null;
  description?: string | null;
  definition?: { entityTypes: string[]; filter: { operator: string; filters: { field: string; values?: string[] | null; value?: string | null; condition?: string | null; negated?: boolean | null }[] } } | null;
}

/** What applying a view to a search does: the entity types it keeps (null: any), and its filter. */
export interface AppliedView {
  types: string[] | null;
  filter: Filter;
}

interface StoredView {
  name: string;
  description?: string;
  type: ViewType;
  definition: { entityTypes: string[]; filter: { or: { and: ViewCriterion[] }[] } };
  created: { time: number; actor: string };
  lastModified: { time: number; actor: string };
}

/**
 * DataHub's saved views (createView, updateView, deleteView, listMyViews, listGlobalViews, and `viewUrn` on searches):
 * a dataHubView entity whose dataHubViewInfo holds a name, PERSONAL or GLOBAL, and a definition (entity types and a
 * filter) that a search given the view applies on top of its own. A global view is managed with the admin scope; a
 * personal one by whoever created it. Views are few: they are listed from Neo4j (every dataHubViewInfo), so a view is
 * listed the moment it is written.
 */
export class Views {
  constructor(
    private readonly registry: Registry,
    private readonly reads: EntityReads,
    private readonly ingestion: IngestionService,
    private readonly stored: (entityType: string, aspect: string) => Promise<{ urn: string; value: string }[]>,
    /** Model entity type names from GraphQL's EntityType names (DATASET → dataset). */
    private readonly modelType: (graphqlName: string) => string | null,
    private readonly now: () => number = Date.now,
  ) {}

  async create(input: ViewInput, principal: Principal): Promise<View> {
    const viewType = this.viewType(input.viewType);
    this.mayManage(viewType, null, principal);
    if (!input.name || input.name.trim() === '') throw new InvalidInputError('name must not be empty');
    if (!input.definition) throw new InvalidInputError('definition is required');
    const stamp = { time: this.now(), actor: principal.actor };
    const value: StoredView = {
      name: input.name,
      ...(input.description ? { description: input.description } : {}),
      type: viewType,
      definition: this.storedDefinition(input.definition),
      created: stamp,
      lastModified: stamp,
    };
    const urn = makeUrn(this.registry.urnNamespace, VIEW, [randomUUID()]);
    await this.ingestion.transformAspects([{ urn, aspectName: dataHubViewInfo.name, transform: () => value as unknown as Record<string, unknown> }], principal);
    return this.toView(urn, value);
  }

  async update(rawUrn: string, input: ViewInput, principal: Principal): Promise<View> {
    const { urn, view } = await this.existing(rawUrn);
    this.mayManage(view.type, view, principal);
    if (input.name !== undefined && input.name !== null && input.name.trim() === '') throw new InvalidInputError('name must not be empty');
    const definition = input.definition ? this.storedDefinition(input.definition) : null;
    let updated: StoredView | null = null;
    await this.ingestion.transformAspects(
      [
        {
          urn,
          aspectName: dataHubViewInfo.name,
          transform: (current) => {
            const base = (current ?? view) as unknown as StoredView;
            updated = {
              ...base,
              ...(input.name ? { name: input.name } : {}),
              ...(input.description !== undefined && input.description !== null ? { description: input.description } : {}),
              ...(definition ? { definition } : {}),
              lastModified: { time: this.now(), actor: principal.actor },
            };
            return updated as unknown as Record<string, unknown>;
          },
        },
      ],
      principal,
    );
    return this.toView(urn, updated ?? view);
  }

  async delete(rawUrn: string, principal: Principal): Promise<true> {
    const { urn, view } = await this.existing(rawUrn);
    this.mayManage(view.type, view, principal);
    await this.ingestion.delete({ urn });
    return true;
  }

  /** The caller's views (listMyViews): those it created, of one type if asked, names matching `query`. */
  listMine(input: { start?: number | null; count?: number | null; query?: string | null; viewType?: string | null }, principal: Principal) {
    const type = input.viewType ? this.viewType(input.viewType) : null;
    return this.list(input, (v) => v.created.actor === principal.actor && (type === null || v.type === type));
  }

  /** Every global view (listGlobalViews), names matching `query`. */
  listGlobal(input: { start?: number | null; count?: number | null; query?: string | null }) {
    return this.list(input, (v) => v.type === 'GLOBAL');
  }

  /** A search's `viewUrn`: the view's entity types and filter; an unknown view is refused. */
  async apply(rawUrn: string): Promise<AppliedView> {
    const { view } = await this.existing(rawUrn, 'viewUrn');
    const types = view.definition.entityTypes;
    return { types: types.length > 0 ? types : null, filter: view.definition.filter.or.length > 0 ? parseFilter(view.definition.filter) : [] };
  }

  private async list(input: { start?: number | null; count?: number | null; query?: string | null }, keep: (v: StoredView) => boolean) {
    const start = Math.max(input.start ?? 0, 0);
    const count = Math.min(Math.max(input.count ?? 20, 0), 1000);
    const needle = input.query && input.query !== '*' ? input.query.toLowerCase() : null;
    const views = (await this.stored(VIEW, dataHubViewInfo.name))
      .map(({ urn, value }) => ({ urn, view: JSON.parse(value) as StoredView }))
      .filter(({ view }) => keep(view) && (needle === null || view.name.toLowerCase().includes(needle)))
      .sort((a, b) => a.view.name.localeCompare(b.view.name) || (a.urn < b.urn ? -1 : 1));
    const page = views.slice(start, start + count);
    return { start, count: page.length, total: views.length, views: page.map(({ urn, view }) => this.toView(urn, view)) };
  }

  private async existing(rawUrn: string, what = 'urn'): Promise<{ urn: string; view: StoredView }> {
    const { urn, entity } = this.registry.parseEntityUrn(rawUrn, what);
    if (entity.name !== VIEW) throw new InvalidInputError(`${what}: ${urn.raw} is not a view`);
    const value = (await this.reads.aspectsOfMany([urn.raw], [dataHubViewInfo.name])).get(urn.raw)?.get(dataHubViewInfo.name);
    if (!value) throw new InvalidInputError(`View ${urn.raw} does not exist`);
    return { urn: urn.raw, view: value as unknown as StoredView };
  }

  /** A global view needs the admin scope; a personal one its creator (or an admin). */
  private mayManage(type: ViewType, view: StoredView | null, principal: Principal): void {
    if (hasScope(principal, 'admin')) return;
    if (type === 'GLOBAL') throw new ForbiddenError(`Unauthorized to manage global views: ${principal.actor} lacks the admin scope`);
    if (view && view.created.actor !== principal.actor) throw new ForbiddenError(`Unauthorized to change the view of ${view.created.actor}`);
  }

  private viewType(raw: string | null | undefined): ViewType {
    if (!VIEW_TYPES.includes(raw as ViewType)) throw new InvalidInputError(`viewType must be one of ${VIEW_TYPES.join(', ')}`);
    return raw as ViewType;
  }

  /** GraphQL's definition as DataHub stores it: AND is one group of every criterion, OR a group per criterion. */
  private storedDefinition(input: NonNullable<ViewInput['definition']>): StoredView['definition'] {
    const entityTypes = input.entityTypes.map((t) => {
      const model = this.modelType(t);
      if (!model || !this.registry.entities.has(model)) throw new InvalidInputError(`definition.entityTypes: unknown entity type ${t}`);
      return model;
    });
    if (input.filter.operator !== 'AND' && input.filter.operator !== 'OR') throw new InvalidInputError('definition.filter.operator must be AND or OR');
    const criteria = input.filter.filters.map((f) => ({
      field: f.field,
      values: f.values && f.values.length > 0 ? f.values : f.value ? [f.value] : [],
      condition: f.condition ?? 'EQUAL',
      negated: f.negated === true,
    }));
    const or = criteria.length === 0 ? [] : input.filter.operator === 'AND' ? [{ and: criteria }] : criteria.map((c) => ({ and: [c] }));
    // Checked as a search would read it: a field or condition no search can apply is refused now, not at every search.
    if (or.length > 0) parseFilter({ or });
    return { entityTypes, filter: { or } };
  }

  private toView(urn: string, view: StoredView): View {
    const groups = view.definition.filter.or;
    const filter: ViewDefinition['filter'] =
      groups.length <= 1 ? { operator: 'AND', filters: groups[0]?.and ?? [] } : { operator: 'OR', filters: groups.map((g) => g.and[0]).filter((c): c is ViewCriterion => c !== undefined) };
    return { urn, viewType: view.type, name: view.name, description: view.description ?? null, definition: { entityTypes: view.definition.entityTypes, filter } };
  }
}

/** A search filter with a view's applied: every group of the one with every group of the other (AND of the two ORs). */
export function withView(filter: Filter, view: Filter): Filter {
  if (view.length === 0) return filter;
  if (filter.length === 0) return view;
  return filter.flatMap((group) => view.map((viewGroup) => [...group, ...viewGroup]));
}
