import { container, domainProperties, glossaryNodeInfo, glossaryTermInfo } from '../model/aspects';
import type { HierarchyStore } from '../stores/graph/hierarchy-store';

/**
 * Where entities sit: their chains of containers, of parent domains and of glossary nodes, nearest first, each read in
 * one statement for a whole request's entities (the edges the containing aspects projected).
 */
export class Hierarchy {
  constructor(private readonly store: HierarchyStore) {}

  parentContainers(urns: string[]): Promise<Map<string, string[]>> {
    return this.store.parents(urns, [container.name]);
  }

  parentDomains(urns: string[]): Promise<Map<string, string[]>> {
    return this.store.parents(urns, [domainProperties.name]);
  }

  /** A term's node, then that node's parents (glossaryNodeInfo); a node's own parents the same way. */
  parentNodes(urns: string[]): Promise<Map<string, string[]>> {
    return this.store.parents(urns, [glossaryTermInfo.name, glossaryNodeInfo.name]);
  }

  /** Whether any domain sits directly under this one. */
  async hasChildDomains(urn: string): Promise<boolean> {
    return (await this.store.children(urn, [domainProperties.name], 1)).length > 0;
  }

  /** Whether any term or node sits directly under this glossary node. */
  async hasGlossaryChildren(urn: string): Promise<boolean> {
    return (await this.store.children(urn, [glossaryTermInfo.name, glossaryNodeInfo.name], 1)).length > 0;
  }

  /** Each entity's siblings, whichever side wrote the siblings aspect (DataHub's siblingsSearch finds both). */
  siblings(urns: string[]): Promise<Map<string, string[]>> {
    return this.store.siblings(urns);
  }
}
