import type { Principal } from '../auth';
import { forms } from '../model/aspects';
import { withFormAssigned } from '../model/aspects/forms';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import type { AspectStore } from '../stores/graph/aspect-store';
import type { IngestionService } from './ingestion';

const FORMS = forms.name;

/**
 * Assigning a form to entities, as DataHub's `batchAssignForm` does (`datahub forms upsert` with `entities.urns`): each
 * entity's `forms` aspect gets the form among its incomplete forms, unless it is assigned already (complete or not).
 */
export class FormAssignmentService {
  constructor(
    private readonly registry: Registry,
    private readonly store: AspectStore,
    private readonly ingestion: IngestionService,
  ) {}

  /** The form and every entity must exist, and every entity type must carry forms; all are checked before any write. */
  async batchAssignForm(input: { formUrn: unknown; entityUrns: unknown[] }, principal: Principal): Promise<true> {
    const form = this.registry.parseEntityUrn(input.formUrn, 'formUrn');
    if (form.entity.name !== 'form') throw new InvalidInputError(`Invalid urn '${form.urn.raw}': not a form urn`);
    const entities = input.entityUrns.map((raw, i) => {
      const target = this.registry.parseEntityUrn(raw, `entityUrns[${i}]`);
      this.registry.aspectFor(target.entity, FORMS);
      return target.urn.raw;
    });
    const urns = [...new Set(entities)];
    const existing = await this.store.existing([form.urn.raw, ...urns]);
    for (const urn of [form.urn.raw, ...urns]) if (!existing.has(urn)) throw new InvalidInputError(`Failed to assign form ${form.urn.raw}: entity ${urn} does not exist`);
    const assign = (current: Record<string, unknown> | null) => withFormAssigned(current, form.urn.raw);
    if (urns.length > 0) await this.ingestion.transformAspects(urns.map((urn) => ({ urn, aspectName: FORMS, transform: assign })), principal);
    return true;
  }
}
