import type { AspectBehaviour } from './behaviour';

/** A glossary node's name, definition and parent node (its IsPartOf edge); GraphQL's GlossaryNode.properties. */
export const glossaryNodeInfo: AspectBehaviour = { name: 'glossaryNodeInfo', entityProperties: { nameField: 'name' } };
