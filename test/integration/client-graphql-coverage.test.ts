import { join } from 'node:path';
import { NoUnusedFragmentsRule, parse, specifiedRules, validate, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { graphqlSchema, plainArgumentsForArgumentlessFields, type GraphqlSchemaDependencies } from '../../src/http/graphql';
import { EntityTypeNames } from '../../src/model/entity-type-names';
import { Registry } from '../../src/model/registry';
import { CLIENT_SETUP_TIMEOUT_MS, datahubClient, runProcess } from '../support/datahub-client';

/**
 * Every GraphQL document the pinned official client sends (test/python/graphql_documents.py reads them out of the
 * installed package) is checked against this service's schema: each one validates, but for the ones listed below, each
 * with why it is not served. A client upgrade that sends something new, or a change here that breaks a document the
 * client sends, fails this test; so does serving one that is listed (then it comes off the list).
 */
const NOT_SERVED: Record<string, string> = {
  'secret/datahub_secrets_client.py#getSecretValues': 'secrets are a DataHub deployment feature (encrypted secrets for its executors); no executor here',
  'cli/iceberg_cli.py#createIcebergSecrets': 'secrets (the Iceberg CLI stores catalog credentials as secrets)',
  'cli/iceberg_cli.py#updateIcebergSecrets': 'secrets, as above',
  'cli/iceberg_cli.py#getIcebergWarehouses': "the deprecated `search` query and DataPlatformInstance.instanceId (the Iceberg CLI's warehouse listing)",
  'cli/search_cli.py#testSemanticSearchEnabled': 'semantic (embedding) search is not offered; `datahub search diagnose` reports it unavailable',
  'cli/gql/semantic_search.gql#semanticSearch': 'semantic search, as above',
  'ingestion/graph/client.py#getInviteToken': "user sign-up through the frontend (the graph client's create_user)",
  'ingestion/graph/client.py#batchAssignRole': 'roles and policies are not modelled: tokens carry scopes',
  'ingestion/graph/connections.py#GetConnection': 'connections (credentials DataHub keeps for its own assertions and sources)',
  'ingestion/graph/entity_versioning.py#(anonymous)@32': 'entity versioning (linkAssetVersion: version sets) is not modelled yet',
  'ingestion/graph/entity_versioning.py#(anonymous)@40': 'entity versioning (unlinkAssetVersion), as above',
  'ingestion/source/datahub_documents/datahub_documents_source.py#getDocumentPlatform': 'the Document entity (knowledge articles) is not modelled',
  'ingestion/source/datahub_documents/datahub_documents_source.py#hydrateDocuments': 'the Document entity, as above',
};

/**
 * Documents the client sends with `strip_unsupported_fields`: it introspects this schema first and drops what it does
 * not find, so these errors are expected and nothing else.
 */
const STRIPPED: Record<string, string[]> = {
  'cli/gql/search.gql#search': ['Unknown type "Document".'],
};

/** String templates filled in with Python's str.format or f-strings: not GraphQL until the client fills them. */
const TEMPLATES = [
  'api/entities/forms/forms_graphql_constants.py', // batchAssignForm (served) and createDynamicFormAssignment (not)
  'cli/graphql_cli.py', // introspection of one type (served) and operations the user names
  'ingestion/graph/client.py',
];

let documents: { file: string; line: number; doc: string }[] = [];
let schema: GraphQLSchema;

beforeAll(async () => {
  const client = await datahubClient('http://127.0.0.1:1');
  try {
    const run = await runProcess(join(client.venv, 'bin', 'python'), [join(__dirname, '..', 'python', 'graphql_documents.py')], client.env());
    if (run.code !== 0) throw new Error(`graphql_documents.py failed: ${run.stderr}`);
    documents = JSON.parse(run.stdout);
  } finally {
    await client.close();
  }
  const registry = Registry.load(join(__dirname, '../../schema'), 'li');
  const deps = { lineage: { urnNamespace: 'li' }, search: { names: new EntityTypeNames(registry), urnNamespace: 'li' }, registry, version: 'test' } as unknown as GraphqlSchemaDependencies;
  plainArgumentsForArgumentlessFields();
  schema = graphqlSchema(deps);
}, CLIENT_SETUP_TIMEOUT_MS);

/** A document's id: its file and first operation's name (or line, when anonymous). */
function idOf(d: { file: string; line: number }, text: string): string {
  const operation = parse(text).definitions.find((def): def is OperationDefinitionNode => def.kind === 'OperationDefinition');
  return `${d.file}#${operation?.name?.value ?? `(anonymous)@${d.line}`}`;
}

describe("the official client's GraphQL documents against this schema", () => {
  it('finds the documents the client sends (the search CLI, the graph client, lineage, GC, forms…)', () => {
    expect(documents.length).toBeGreaterThan(30);
    expect(documents.map((d) => d.file)).toEqual(expect.arrayContaining(['cli/gql/search.gql', 'sdk/lineage_client.py', 'ingestion/source/gc/dataprocess_cleanup.py', 'cli/ingest_cli.py']));
  });

  it('validates every document but the ones listed as not served, and every listed one still fails', () => {
    const rules = specifiedRules.filter((r) => r !== NoUnusedFragmentsRule);
    const failing: Record<string, string[]> = {};
    const served: string[] = [];
    for (const d of documents) {
      let id: string;
      try {
        id = idOf(d, d.doc);
      } catch {
        expect(TEMPLATES).toContain(d.file);
        continue;
      }
      const errors = validate(schema, parse(d.doc), rules).map((e) => e.message);
      if (errors.length > 0) failing[id] = errors;
      else served.push(id);
    }
    // Shown in full on a failure: what a newly failing document asks for.
    expect(Object.fromEntries(Object.entries(failing).filter(([id]) => !(id in NOT_SERVED) && !(id in STRIPPED)))).toEqual({});
    for (const [id, errors] of Object.entries(STRIPPED)) expect([id, failing[id]]).toEqual([id, errors]);
    expect(Object.keys(NOT_SERVED).filter((id) => !(id in failing))).toEqual([]);
    expect(served).toEqual(expect.arrayContaining(['cli/search_cli.py#ping', 'cli/ingest_cli.py#updateIngestionSource', 'ingestion/graph/client.py#scrollUrnsWithFilters', 'api/graphql/assertion.py#dataset']));
  });
});
