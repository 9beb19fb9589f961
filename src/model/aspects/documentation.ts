import type { AspectBehaviour } from './behaviour';

/** Documentation of an entity from several sources (a schema field's, through GraphQL's SchemaFieldEntity). */
export const documentation: AspectBehaviour = { name: 'documentation' };
