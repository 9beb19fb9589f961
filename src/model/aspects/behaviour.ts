import type { ChangeCategory, Generator } from '../../services/history/change-events';
import type { BrowsePathContext } from '../browse-paths';
import type { Registry } from '../registry';
import type { Urn } from '../urn';

type Json = Record<string, unknown>;

/** How DataHub's patch template of an aspect treats it. */
export interface PatchTemplate {
  /** Key fields of keyed arrays; `[]` = an array of strings keyed by itself. */
  arrayKeys?: Record<string, string[]>;
  /** What a missing aspect starts from, so required fields exist after the patch. */
  initial?(namespace: string): Json;
  /**
   * Templates of what a field holds: of each element of a keyed array (editableSchemaFieldInfo's globalTags), or of an
   * object field (formInfo's actors), as DataHub's templates nest theirs.
   */
  inner?: Record<string, PatchTemplate>;
  /** Required fields filled in after the patch when absent (a field's glossaryTerms created by a patch: auditStamp). */
  complete?(value: Json, namespace: string): void;
  /** fineGrainedLineages are keyed as DataHub's UpstreamLineageTemplate keys them. */
  fineGrainedLineages?: boolean;
}

/**
 * What one aspect does beyond its schema, in one place: the registry attaches it to the aspect's spec
 * (`spec.behaviour`), and callers ask the spec instead of comparing aspect names.
 */
export interface AspectBehaviour {
  readonly name: string;
  patch?: PatchTemplate;
  /** Column-level lineage the value implies: DownstreamOf edges between schemaField urns (via: a query they pass through). */
  columnEdges?(value: Json, namespace: string): { source: string; target: string; via?: string }[];
  /** The value an entity gets when it lacks the aspect; the context is what the same request says of the entity. */
  defaultValue?(urn: Urn, context?: BrowsePathContext): Json;
  /** What a value written in the same request tells the default browse paths of its entity. */
  browseContext?(value: Json, context: BrowsePathContext): void;
  /**
   * DataHub's mutation hook for the aspect: the value to store, from the one written (an upsert's or a patch's result)
   * and the one stored before it (null: none), read in the write's transaction. Throws a ValidationError to refuse.
   */
  mutate?(proposed: Json, previous: Json | null): Json;
  /** A semantic check beyond the schema, at ingest; throws a ValidationError. */
  validate?(value: Json, registry: Registry): void;
  /** The browse paths a value lists: the search document lists its entity under them. */
  browsePaths?(value: Json): string[];
  /**
   * An object field of the search document whose keys the values name (DataHub's `structuredProperties.<name>`), mapped
   * by the engine as keys appear: `entries` gives each key's values.
   */
  searchObject?: { field: string; entries(value: Json): Record<string, (string | number)[]> };
  /** The schema field paths a value declares. */
  fieldPaths?(value: Json): string[];
  /** Aspects the legacy snapshot of an entity carrying this aspect also holds as direct members. */
  snapshotMembers?: readonly string[];
  /**
   * The aspect is the properties of the entity types that carry it: their name, description and custom properties, as
   * GraphQL's `properties` and lineage results show them. `nameField` holds the entity's name (DataHub's `_entityName`).
   */
  entityProperties?: { nameField?: string };
  /** DataHub's timeline: the change categories whose events this aspect's versions give, per entity type, and the events. */
  timeline?: { categories: Readonly<Record<string, readonly ChangeCategory[]>>; changes: Generator };
}
