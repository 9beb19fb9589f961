import { domainEvents } from '../../services/history/change-events';
import { canonicalJson } from '../canonical';
import { ValidationError } from '../errors';
import type { AspectBehaviour } from './behaviour';

type Json = Record<string, unknown>;
type Association = Json & { domain: string };

const associationsOf = (value: Json | null): Association[] | null => (Array.isArray(value?.domainAssociations) ? (value.domainAssociations as Association[]) : null);
const domainsOf = (value: Json | null): string[] => (Array.isArray(value?.domains) ? (value.domains as string[]) : []);

/** Propagated associations (attribution.sourceDetail.propagated = "true") sort after the others. */
function propagated(association: Association): boolean {
  const detail = (association.attribution as Json | undefined)?.sourceDetail as Record<string, unknown> | undefined;
  return String(detail?.propagated ?? '').toLowerCase() === 'true';
}

/** Associations for `domains`: the stored ones of domains kept (with their attribution), a bare one for each new domain. */
function associationsFor(domains: string[], previous: Json | null): Association[] {
  const wanted = new Set(domains);
  const kept = (associationsOf(previous) ?? []).filter((a) => wanted.has(a.domain));
  const known = new Set(kept.map((a) => a.domain));
  return [...kept, ...[...wanted].filter((d) => !known.has(d)).map((domain) => ({ domain }))];
}

/**
 * DataHub's DomainsSyncMutationHook: `domains` and `domainAssociations` say the same. The one a write changed is the
 * source (a patch's add_domain changes only the associations; a legacy write only `domains`); both changed and
 * disagreeing is refused. `domains` is then the associations' domains, manual ones before propagated ones.
 */
function syncDomains(proposed: Json, previous: Json | null): Json {
  let associations = associationsOf(proposed);
  const domains = domainsOf(proposed);
  const domainsChanged = canonicalJson(domains) !== canonicalJson(domainsOf(previous));
  if (associations === null) associations = associationsFor(domains, previous);
  else if (domainsChanged && canonicalJson(associations) !== canonicalJson(associationsOf(previous) ?? [])) {
    const fromAssociations = new Set(associations.map((a) => a.domain));
    if (domains.length > 0 && (fromAssociations.size !== new Set(domains).size || domains.some((d) => !fromAssociations.has(d)))) {
      throw new ValidationError("Cannot update both 'domains' and 'domainAssociations' in the same write: use 'domainAssociations' for rich metadata or 'domains' for legacy compatibility, not both");
    }
  } else if (domainsChanged) associations = associationsFor(domains, previous);
  const sorted = [...associations.filter((a) => !propagated(a)), ...associations.filter(propagated)];
  return { ...proposed, domainAssociations: sorted, domains: [...new Set(sorted.map((a) => a.domain))] };
}

/** An entity's domains (GraphQL `domain` shows the first). */
export const domains: AspectBehaviour = {
  name: 'domains',
  patch: { arrayKeys: { domains: [] }, initial: () => ({ domains: [] }) },
  mutate: syncDomains,
  timeline: {
    categories: { dataset: ['DOMAIN'], glossaryTerm: ['DOMAIN'], dataProduct: ['DOMAIN'] },
    changes: (base, target, urn) => domainEvents(base, target, urn),
  },
};
