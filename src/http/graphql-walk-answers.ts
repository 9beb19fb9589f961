import {
  getNamedType,
  getOperationAST,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  Kind,
  type DocumentNode,
  type GraphQLCompositeType,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import type { LineageResult } from '../services/lineage/lineage-service';

/** Root fields that walk lineage (graphql-lineage.ts). */
export const WALK_FIELDS: ReadonlySet<string> = new Set(['scrollAcrossLineage', 'searchAcrossLineage']);

/**
 * Fields of a result's entity that the answer may select: each is worked out from the entity's urn and its own aspects
 * (graphql-search.ts and graphql-lineage.ts resolve them so), all of which the entity's rev covers. An entity they
 * name (a platform, an owner, a tag) is another entity: of it only what its urn says may be selected (REF_FIELDS).
 */
const ROW_FIELDS: ReadonlySet<string> = new Set([
  'urn', 'type', 'name', 'jobId', 'flowId', 'fieldPath', 'origin', 'cluster', 'platform', 'dataPlatformInstance', 'properties',
  'subTypes', 'tags', 'glossaryTerms', 'ownership', 'domain', 'container', 'dataFlow', 'parent',
]);
/** Fields of an entity named by urn (in a path, or by a result's entity) worked out from the urn alone. */
const REF_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = { '*': new Set(['urn', 'type']), DataPlatform: new Set(['urn', 'type', 'name']) };

/**
 * Where a selection is: the walk's own objects (results, paths); a result's entity or an object of its fields; an
 * entity known by urn only.
 */
type Place = 'walk' | 'row' | 'rowObject' | 'ref';

/**
 * Whether the answer to `operation` is a function of its variables and of what its one lineage walk found, row by
 * row: urns, degrees, paths, and each row's rev (which every write of the entity bumps). Only then may a walk that
 * found the same rows at the same revs be answered with the text answered before. Decided once per compiled query.
 */
export function answerableFromWalk(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): boolean {
  const operation = getOperationAST(document, operationName);
  const root = schema.getQueryType();
  if (!operation || operation.operation !== 'query' || !root) return false;
  const [only, ...others] = operation.selectionSet.selections;
  if (!only || others.length > 0 || only.kind !== Kind.FIELD || !WALK_FIELDS.has(only.name.value) || only.directives?.length || !only.selectionSet) return false;
  const type = root.getFields()[only.name.value]?.type;
  if (!type) return false;
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const isEntity = (t: GraphQLNamedType): boolean => {
    if (isUnionType(t)) return t.getTypes().every(isEntity);
    if (isInterfaceType(t)) return t.name === 'Entity';
    return isObjectType(t) && t.getInterfaces().some((i) => i.name === 'Entity');
  };
  const seen = new Set<string>();
  const allowed = (set: SelectionSetNode, parent: GraphQLCompositeType, place: Place): boolean =>
    set.selections.every((s) => {
      // @include and @skip only: their variables are part of what the answer is kept under.
      if (s.directives?.some((d) => d.name.value !== 'include' && d.name.value !== 'skip')) return false;
      if (s.kind === Kind.INLINE_FRAGMENT) {
        const on = s.typeCondition ? schema.getType(s.typeCondition.name.value) : parent;
        return !!on && isCompositeType(on) && allowed(s.selectionSet, on, place);
      }
      if (s.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(s.name.value);
        const on = fragment ? schema.getType(fragment.typeCondition.name.value) : undefined;
        if (!fragment || !on || !isCompositeType(on)) return false;
        // Checked once per place: a failed check fails the whole answer anyway.
        const mark = `${s.name.value}@${place}`;
        if (seen.has(mark)) return true;
        seen.add(mark);
        return allowed(fragment.selectionSet, on, place);
      }
      const name = s.name.value;
      if (name === '__typename') return true;
      if (s.arguments?.length || isUnionType(parent)) return false;
      const field = parent.getFields()[name];
      if (!field) return false;
      if (place === 'ref' && !(REF_FIELDS[parent.name] ?? REF_FIELDS['*']).has(name)) return false;
      if (place === 'row' && !ROW_FIELDS.has(name)) return false;
      const type = getNamedType(field.type);
      if (!s.selectionSet) return !isCompositeType(type);
      if (!isCompositeType(type)) return false;
      const next: Place = isEntity(type) ? (place === 'walk' && parent.name === 'SearchAcrossLineageResult' && name === 'entity' ? 'row' : 'ref') : place === 'row' ? 'rowObject' : place;
      return allowed(s.selectionSet, type, next);
    });
  const walkType = getNamedType(type);
  return isCompositeType(walkType) && allowed(only.selectionSet, walkType, 'walk');
}

/**
 * What a walk found that its answer shows: bounds, and per row its urn, rev, degree, direction and path. Null when a
 * row's rev is not known (the walk read no aspects, or read them as of a moment).
 */
export function walkFingerprint(result: LineageResult): string | null {
  let text = `${result.start} ${result.count} ${result.total} ${result.truncated} ${result.truncatedBy.join(',')}`;
  for (const r of result.results) {
    if (r.rev === null) return null;
    text += `\n${r.urn} ${r.rev} ${r.degree} ${r.direction} ${r.type}`;
    for (const p of r.path) text += ` ${p.urn}`;
  }
  return text;
}

/** One request's place in the answers: set by the executor for a query answerable from its walk, read by the walk's resolver. */
export interface WalkAnswerSlot {
  readonly answers: WalkAnswers;
  /** The compiled query and its variables. */
  readonly key: string;
  /** What the walk found; set when its answer is to be kept. */
  fingerprint?: string;
  /** The answer kept for what the walk found, when there is one. */
  hit?: string;
}

/**
 * Answers of lineage queries asked again, as the text sent: one per compiled query and variables, with what its walk
 * found. A query asked again still walks (checking its token and every row's rev, as any walk does); when it finds the
 * same rows at the same revs, its answer is the text kept, and it skips building the answer (parsing the rows'
 * aspects, resolving every field, serializing). Bounded by the texts' size (LINEAGE_ANSWER_CACHE_SIZE).
 */
export class WalkAnswers {
  private readonly kept: LRUCache<string, { fingerprint: string; text: string }>;

  constructor(maxBytes: number) {
    this.kept = new LRUCache({ maxSize: maxBytes, sizeCalculation: (v, key) => Math.max(1, v.text.length + v.fingerprint.length + key.length) });
  }

  lookup(key: string, fingerprint: string): string | undefined {
    const kept = this.kept.get(key);
    return kept?.fingerprint === fingerprint ? kept.text : undefined;
  }

  keep(key: string, fingerprint: string, text: string): void {
    this.kept.set(key, { fingerprint, text });
  }
}
