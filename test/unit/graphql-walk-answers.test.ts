import { parse, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { join } from 'node:path';
import { NO_TOKEN } from '../../src/auth/revocation-check';
import { answerText, executeAnsweringRequestErrors, QueryExecutor } from '../../src/http/graphql-execution';
import { graphqlSchema, plainArgumentsForArgumentlessFields, type GraphqlSchemaDependencies } from '../../src/http/graphql';
import { answerableFromWalk, walkFingerprint, WalkAnswers } from '../../src/http/graphql-walk-answers';
import { EntityTypeNames } from '../../src/model/entity-type-names';
import { Registry } from '../../src/model/registry';
import type { LineageResult } from '../../src/services/lineage/lineage-service';
import { SDK_LINEAGE_QUERY } from '../support/sdk-queries';

/**
 * A lineage query asked again is answered with the text kept for it when its walk finds the same rows at the same
 * revs, and only when everything it selects is worked out from those rows.
 */
const registry = Registry.load(join(__dirname, '../../schema'), 'li');
const urn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,db.t${i},PROD)`;
const start = urn(1);

/** The walk's rows: description and rev per row, changed by the tests. */
const rows = [0, 1, 2].map((k) => ({ description: `Table ${k}`, rev: 5 }));
let aspectReads = 0;
/** The next walk answers a row without its urn (an error deeper in the answer: graphql-js answers it again). */
let breakNextWalk = false;

function walk(request: { urn: string }): LineageResult {
  const broken = breakNextWalk;
  breakNextWalk = false;
  const results = rows.map((r, k) => {
    const u = broken && k === 0 ? (null as unknown as string) : urn(10 + k);
    const value = { description: r.description };
    const aspects = {
      get: (name: string) => {
        aspectReads++;
        return name === 'datasetProperties' ? value : undefined;
      },
    };
    return { urn: u, type: 'dataset', degree: 1, path: [{ urn: request.urn, type: 'dataset' }, { urn: u, type: 'dataset' }], aspects, rev: r.rev, direction: 'DOWNSTREAM' as const };
  });
  return { start: 0, count: results.length, total: results.length, truncated: false, truncatedBy: [], maxHops: 1, aspectsRead: ['datasetProperties', 'dataPlatformInstance', 'status'], results };
}

const deps = {
  deprecation: {},
  lineage: { lineage: async (request: { urn: string }) => walk(request), urnNamespace: 'li' },
  search: { names: new EntityTypeNames(registry), urnNamespace: 'li' },
  reads: { aspectsOfMany: async (urns: string[]) => new Map(urns.map((u) => [u, new Map([['datasetProperties', { description: `read for ${u}` }]])])) },
  registry,
} as unknown as GraphqlSchemaDependencies;

let schema: GraphQLSchema;
beforeAll(() => {
  plainArgumentsForArgumentlessFields();
  schema = graphqlSchema(deps);
});

const answerable = (text: string) => answerableFromWalk(schema, parse(text), undefined);
const walkOf = (selection: string) => `query q($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { ${selection} } }`;

describe('which lineage queries are answerable from their walk', () => {
  test("the SDK's lineage query, fragments and a row's own fields", () => {
    expect(answerable(SDK_LINEAGE_QUERY)).toBe(true);
    expect(answerable(`${walkOf('total searchResults { entity { ...own } }')} fragment own on Dataset { urn name platform { urn name } properties { description customProperties { key value } } ownership { owners { owner { ... on CorpUser { urn } } type } } tags { tags { tag { urn } } } }`)).toBe(true);
  });

  test('not when a field reads another entity than the row, takes arguments, or there is more than one walk', () => {
    // A path's entity is not a row: its properties are not covered by the rows' revs.
    expect(answerable(walkOf('searchResults { paths { path { urn ... on Dataset { properties { description } } } } }'))).toBe(false);
    // An owner's, tag's or platform's own properties.
    expect(answerable(walkOf('searchResults { entity { ... on Dataset { ownership { owners { owner { ... on CorpUser { properties { displayName } } } } } } } }'))).toBe(false);
    expect(answerable(walkOf('searchResults { entity { ... on Dataset { tags { tags { tag { name } } } } } }'))).toBe(false);
    expect(answerable(walkOf('searchResults { entity { ... on Dataset { platform { properties { displayName } } } } }'))).toBe(false);
    expect(answerable(`query q($input: ScrollAcrossLineageInput!) { a: scrollAcrossLineage(input: $input) { total } b: scrollAcrossLineage(input: $input) { total } }`)).toBe(false);
    expect(answerable(`query q($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { total } __typename }`)).toBe(false);
    expect(answerable(`query q($u: String!) { dataset(urn: $u) { urn } }`)).toBe(false);
    expect(answerable(`mutation m { updateDeprecation(input: {urn: "${start}", deprecated: true}) }`)).toBe(false);
  });
});

describe('a walk fingerprint', () => {
  test('changes with a row’s rev or path, and is null when a rev is unknown', () => {
    const base = walk({ urn: start });
    const text = walkFingerprint(base)!;
    expect(walkFingerprint(walk({ urn: start }))).toBe(text);
    const written = walk({ urn: start });
    written.results[1].rev = 6;
    expect(walkFingerprint(written)).not.toBe(text);
    const moved = walk({ urn: start });
    moved.results[1].path = [{ urn: start, type: 'dataset' }, { urn: urn(99), type: 'dataset' }, moved.results[1].path[1]];
    expect(walkFingerprint(moved)).not.toBe(text);
    const unknown = walk({ urn: start });
    unknown.results[0].rev = null;
    expect(walkFingerprint(unknown)).toBeNull();
  });
});

describe('answers kept for lineage queries asked again', () => {
  const document = parse(SDK_LINEAGE_QUERY);
  const variables = { input: { urn: start, direction: 'DOWNSTREAM', count: 3 } };
  const executor = new QueryExecutor(undefined, new WalkAnswers(1 << 20));
  /** As the service answers: executed, then serialized through the result's answer text. */
  const ask = async (variableValues: Record<string, unknown> = variables) => {
    const result = (await executor.execute({ schema, document, variableValues, contextValue: { revocation: NO_TOKEN } })) as ExecutionResult;
    return answerText(result, () => JSON.stringify({ ...result, extensions: {} }));
  };
  const reference = async (variableValues: Record<string, unknown> = variables) =>
    JSON.stringify({ ...(await executeAnsweringRequestErrors({ schema, document, variableValues, contextValue: { revocation: NO_TOKEN } })), extensions: {} });

  test('the same rows at the same revs are answered with the text kept; a row written since is read again', async () => {
    const answers: string[] = [];
    const reads: number[] = [];
    for (let run = 1; run <= 4; run++) {
      aspectReads = 0;
      answers.push(await ask());
      reads.push(aspectReads);
    }
    const expected = await reference();
    expect(answers).toEqual([expected, expected, expected, expected]);
    expect(JSON.parse(expected).data.scrollAcrossLineage.searchResults[1].entity.properties.description).toBe('Table 1');
    // Compiled at the second run, which keeps its answer; the third and fourth read no aspect.
    expect(reads[0]).toBeGreaterThan(0);
    expect(reads[1]).toBeGreaterThan(0);
    expect(reads.slice(2)).toEqual([0, 0]);

    rows[1] = { description: 'Table 1, described again', rev: 6 };
    aspectReads = 0;
    const after = await ask();
    expect(aspectReads).toBeGreaterThan(0);
    expect(after).toBe(await reference());
    expect(JSON.parse(after).data.scrollAcrossLineage.searchResults[1].entity.properties.description).toBe('Table 1, described again');
    aspectReads = 0;
    expect(await ask()).toBe(after);
    expect(aspectReads).toBe(0);
  });

  test('other variables have answers of their own', async () => {
    const fewer = { input: { ...variables.input, count: 2 } };
    aspectReads = 0;
    const first = await ask(fewer);
    expect(aspectReads).toBeGreaterThan(0);
    expect(first).toBe(await reference(fewer));
    expect(await ask(fewer)).toBe(first);
    expect(await ask()).toBe(await reference());
  });

  test('an answer graphql-js builds again (the compiled one had an error deeper) is built whole, even when its walk finds an answer kept', async () => {
    const kept = await ask();
    expect(await ask()).toBe(kept);
    breakNextWalk = true;
    expect(await ask()).toBe(await reference());
    expect(JSON.parse(kept).data.scrollAcrossLineage.searchResults).toHaveLength(3);
  });

  test('a description that changed without a new rev is not seen: the rev is what says a row changed', async () => {
    // (Every write bumps its entity's rev: this only shows the answer kept depends on nothing else.)
    await ask();
    rows[0] = { ...rows[0], description: 'changed behind the rev' };
    aspectReads = 0;
    expect(JSON.parse(await ask()).data.scrollAcrossLineage.searchResults[0].entity.properties.description).toBe('Table 0');
    expect(aspectReads).toBe(0);
  });
});
