import type { Principal } from '../auth';
import type { AspectTransform } from './ingestion';

/** DataHub's ownership type of a creator made owner (OwnerUtils.addCreatorAsOwner). */
const CREATOR_OWNERSHIP = { type: 'TECHNICAL_OWNER', typeUrn: 'urn:li:ownershipType:__system__technical_owner' };

/** An `ownership` transform that adds the caller as a technical owner, unless it owns the entity already. */
export function addCreatorAsOwner(principal: Principal): AspectTransform {
  return (current) => {
    const owners = Array.isArray(current?.owners) ? (current!.owners as Record<string, unknown>[]) : [];
    if (owners.some((o) => o.owner === principal.actor)) return null;
    return { ...(current ?? {}), owners: [...owners, { owner: principal.actor, ...CREATOR_OWNERSHIP }] };
  };
}
