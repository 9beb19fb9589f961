import type { AspectBehaviour } from './behaviour';

/** A saved view: name, PERSONAL or GLOBAL, and the entity types and filter a search given it applies (services/views.ts). */
export const dataHubViewInfo: AspectBehaviour = { name: 'dataHubViewInfo' };
