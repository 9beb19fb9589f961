import { container } from '../model/aspects';
import type { Registry } from '../model/registry';
import { tryParseUrn } from '../model/urn';
import type { Hierarchy } from '../services/hierarchy';
import { perRequestLoader } from './graphql-request-loader';
import { GRAPHQL_OBJECT } from './graphql-search';

/** The GraphQL objects of the entity types that can sit in a container. */
function containedObjects(registry: Registry): string[] {
  return Object.entries(GRAPHQL_OBJECT).flatMap(([type, object]) => (registry.entities.get(type)?.aspects.has(container.name) ? [object] : []));
}

/** DataHub's parent chains: parentContainers on every containable entity, Domain.parentDomains, parentNodes of glossary terms and nodes. */
export function hierarchyTypeDefs(registry: Registry): string {
  return /* GraphQL */ `
  type ParentContainersResult {
    count: Int!
    "Nearest first."
    containers: [Container!]!
  }

  type ParentDomainsResult {
    count: Int!
    "Nearest first."
    domains: [Domain!]!
  }

  type ParentNodesResult {
    count: Int!
    "Nearest first."
    nodes: [GlossaryNode!]!
  }

  ${containedObjects(registry)
    .map((object) => `extend type ${object} {\n    "The containers this entity is in, nearest first."\n    parentContainers: ParentContainersResult\n  }`)
    .join('\n\n  ')}

  extend type Domain {
    "The domains this domain is under, nearest first."
    parentDomains: ParentDomainsResult
  }

  extend type GlossaryTerm {
    "The glossary nodes this term is under, nearest first."
    parentNodes: ParentNodesResult
  }

  extend type GlossaryNode {
    "The glossary nodes this node is under, nearest first."
    parentNodes: ParentNodesResult
  }
`;
}

export function hierarchyResolvers({ hierarchy, registry }: { hierarchy: Hierarchy; registry: Registry }) {
  const ref = (urn: string) => ({ urn, type: tryParseUrn(urn)?.entityType });
  // Each kind of chain is read for all the entities of a request tick in one statement.
  const chain = <T>(read: (urns: string[]) => Promise<Map<string, string[]>>, answer: (parents: { urn: string }[]) => T) => {
    const loader = perRequestLoader(async (urns: readonly string[]) => {
      const found = await read([...urns]);
      return urns.map((u) => found.get(u) ?? []);
    });
    return async (e: { urn: string }, _: unknown, ctx: object) => answer((await loader(ctx).load(e.urn)).map(ref));
  };
  const parentContainers = chain((urns) => hierarchy.parentContainers(urns), (containers) => ({ count: containers.length, containers }));
  const parentNodes = chain((urns) => hierarchy.parentNodes(urns), (nodes) => ({ count: nodes.length, nodes }));
  return {
    ...Object.fromEntries(containedObjects(registry).map((object) => [object, { parentContainers }])),
    Domain: { parentDomains: chain((urns) => hierarchy.parentDomains(urns), (domains) => ({ count: domains.length, domains })) },
    GlossaryTerm: { parentNodes },
    GlossaryNode: { parentNodes },
  };
}
