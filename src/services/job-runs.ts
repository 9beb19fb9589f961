import type { Registry } from '../model/registry';
import type { AcrossEntitiesSearch } from './search/across-entities';
import { parseFilter } from './search/query-builder';

/** Search fields of a run (DataHub's names): the job or flow it is a run of, and when it started in the source system. */
const PARENT_TEMPLATE_FIELD = 'parentTemplate';
const CREATED_FIELD = 'created';
const RUN_ENTITY_TYPE = 'dataProcessInstance';

export interface RunsPage {
  start: number;
  count: number;
  total: number;
  urns: string[];
}

/**
 * The runs of a data job or flow, as DataHub's DataJobRunsResolver lists them: the data process instances whose
 * parentTemplate it is, newest first by their `created` time, soft-deleted ones left out. The search index orders
 * them; each run's fields are read from Neo4j by whoever shows them.
 */
export class JobRuns {
  constructor(
    private readonly registry: Registry,
    private readonly search: AcrossEntitiesSearch,
  ) {}

  async of(parentUrn: string, start: number, count: number): Promise<RunsPage> {
    const { urn } = this.registry.parseEntityUrn(parentUrn);
    const page = await this.search.urnPage({
      type: RUN_ENTITY_TYPE,
      filter: parseFilter({ or: [{ and: [{ field: PARENT_TEMPLATE_FIELD, values: [urn.raw], condition: 'EQUAL' }] }] }),
      sort: [{ field: CREATED_FIELD, order: 'DESCENDING' }],
      start,
      count,
    });
    return { start, count: page.urns.length, total: page.total, urns: page.urns };
  }
}
