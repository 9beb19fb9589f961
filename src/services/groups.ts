import { randomUUID } from 'node:crypto';
import { requireScope, type Principal } from '../auth';
import { corpGroupInfo, groupMembership, nativeGroupMembership, origin } from '../model/aspects';
import { InvalidInputError } from '../model/errors';
import type { Registry } from '../model/registry';
import { makeUrn } from '../model/urn';
import type { EntityReads } from './entity-reads';
import type { AspectTransform, IngestionService } from './ingestion';
import type { ReferencesService } from './references';
import type { AcrossEntitiesSearch } from './search/across-entities';

export const USER = 'corpuser';
export const GROUP = 'corpGroup';
/** Where a user's membership of a group is kept: native groups (made here) in nativeGroupMembership, others in groupMembership. */
const NATIVE = { aspect: nativeGroupMembership.name, field: 'nativeGroups' };
const EXTERNAL = { aspect: groupMembership.name, field: 'groups' };

export interface CreateGroupInput {
  id?: string | null;
  name: string;
  description?: string | null;
}

/**
 * Users and groups as DataHub's GraphQL manages them (listUsers, listGroups, createGroup, addGroupMembers,
 * removeGroupMembers, removeGroup, removeUser; changes need admin scope, DataHub's manage-identities privilege). A group made here is native: a member's membership is kept on the user
 * (nativeGroupMembership), as DataHub's GroupService keeps it; an ingested group's in groupMembership.
 */
export class Groups {
  constructor(
    private readonly registry: Registry,
    private readonly reads: EntityReads,
    private readonly search: AcrossEntitiesSearch,
    private readonly ingestion: IngestionService,
    private readonly references: ReferencesService,
    private readonly now: () => number = Date.now,
  ) {}

  list(kind: 'users' | 'groups', request: { start: number; count: number; query: string }): Promise<{ total: number; urns: string[] }> {
    return this.search.urnPage({ type: kind === 'users' ? USER : GROUP, input: request.query, filter: [], start: request.start, count: request.count });
  }

  async create(input: CreateGroupInput, principal: Principal): Promise<string> {
    requireScope(principal, 'admin');
    const urn = this.urnOf(makeUrn(this.registry.urnNamespace, GROUP, [input.id ?? randomUUID()]), GROUP, 'id');
    if (input.name.trim() === '') throw new InvalidInputError('name must not be empty');
    if ((await this.reads.existing([urn])).has(urn)) throw new InvalidInputError('This Group already exists!');
    const info = { displayName: input.name, ...(input.description ? { description: input.description } : {}), admins: [], members: [], groups: [], created: { time: this.now(), actor: principal.actor } };
    await this.ingestion.transformAspects(
      [
        { urn, aspectName: corpGroupInfo.name, transform: (current) => (current ? null : info) },
        { urn, aspectName: origin.name, transform: (current) => (current ? null : { type: 'NATIVE' }) },
      ],
      principal,
    );
    return urn;
  }

  addMembers(rawGroup: string, rawUsers: string[], principal: Principal): Promise<true> {
    return this.changeMembers(rawGroup, rawUsers, principal, 'add');
  }

  removeMembers(rawGroup: string, rawUsers: string[], principal: Principal): Promise<true> {
    return this.changeMembers(rawGroup, rawUsers, principal, 'remove');
  }

  /** Deletes a group or a user: every reference to it first (memberships, ownerships), then the entity itself. */
  async remove(rawUrn: string, kind: typeof USER | typeof GROUP, principal: Principal): Promise<true> {
    requireScope(principal, 'admin');
    const urn = this.urnOf(rawUrn, kind, 'urn');
    if (!(await this.reads.existing([urn])).has(urn)) throw new InvalidInputError(`${urn} does not exist`);
    await this.references.deleteReferences(urn, false, principal);
    await this.ingestion.delete({ urn });
    return true;
  }

  private async changeMembers(rawGroup: string, rawUsers: string[], principal: Principal, how: 'add' | 'remove'): Promise<true> {
    requireScope(principal, 'admin');
    const group = this.urnOf(rawGroup, GROUP, 'groupUrn');
    const users = [...new Set(rawUsers.map((u, i) => this.urnOf(u, USER, `userUrns[${i}]`)))];
    const stored = await this.reads.aspectsOfMany([group, ...users], [origin.name, corpGroupInfo.name, this.registry.entity(USER).keyAspect]);
    if (!stored.has(group)) throw new InvalidInputError(`Failed to change members: group ${group} does not exist`);
    if (how === 'add') for (const user of users) if (!stored.has(user)) throw new InvalidInputError(`Failed to add members: user ${user} does not exist`);
    // A group with no origin was written by ingestion without one; DataHub treats only NATIVE-origin groups as native.
    const native = stored.get(group)?.get(origin.name)?.type === 'NATIVE';
    const kinds = how === 'add' ? [native ? NATIVE : EXTERNAL] : [NATIVE, EXTERNAL];
    const changes = users.flatMap((urn) =>
      kinds.map((kind) => ({
        urn,
        aspectName: kind.aspect,
        transform: ((current) => {
          const list = Array.isArray(current?.[kind.field]) ? (current![kind.field] as string[]) : [];
          if (how === 'add') return list.includes(group) ? null : { ...(current ?? {}), [kind.field]: [...list, group] };
          return list.includes(group) ? { ...current, [kind.field]: list.filter((g) => g !== group) } : null;
        }) satisfies AspectTransform,
      })),
    );
    await this.ingestion.transformAspects(changes, principal);
    return true;
  }

  private urnOf(raw: string, type: string, what: string): string {
    const { urn, entity } = this.registry.parseEntityUrn(raw, what);
    if (entity.name !== type) throw new InvalidInputError(`${what}: ${urn.raw} is not a ${type === USER ? 'user' : 'group'} urn`);
    return urn.raw;
  }
}
