import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { Registry } from '../../src/model/registry';

/**
 * What an aspect does beyond its schema lives in its module (src/model/aspects/), attached to the registry's specs.
 * Aspect names live there too: code elsewhere asks the specs or imports a module (`status.name`). The scan below looks
 * for string literals in src/ that are aspect names of the registry, outside those modules and outside `example`s
 * (API documentation).
 */

const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');
const MODULES = join(SRC, 'model', 'aspects');

/** Literals that name something else that happens to share an aspect's name, by file. */
const ALLOWED: Record<string, { literals: string[]; why: string }> = {
  'src/model/entity-type-names.ts': { literals: ['container', 'dataPlatformInstance'], why: 'entity type names' },
  'src/services/search/query-builder.ts': { literals: ['glossaryTerms', 'browsePaths'], why: 'search document field names' },
  'src/stores/search/mappings.ts': { literals: ['browsePaths'], why: 'a search document field name' },
  'src/services/metadata-tests/definition.ts': { literals: ['operation'], why: "a key of a test definition's rules" },
  'src/services/write-path/prepare.ts': { literals: ['systemMetadata'], why: 'a proposal field' },
  'src/stores/graph/aspect-store.ts': { literals: ['systemMetadata'], why: 'a stored property of an aspect version' },
  'src/stores/graph/run-store.ts': { literals: ['systemMetadata'], why: 'a stored property of an aspect version' },
  'src/http/openapi.ts': { literals: ['status'], why: 'a field of the error body' },
  'src/services/assertions.ts': { literals: ['status'], why: "a time-series field of an assertion's run event" },
  'src/http/graphql-walk-answers.ts': { literals: ['origin', 'dataPlatformInstance', 'subTypes', 'glossaryTerms', 'ownership', 'container'], why: 'GraphQL field names' },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path === MODULES ? [] : sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Inside `example: …` of a route definition or schema: documentation, not behaviour. */
function inExample(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isPropertyAssignment(at) && ts.isIdentifier(at.name) && (at.name.text === 'example' || at.name.text === 'examples')) return true;
  }
  return false;
}

function aspectLiterals(file: string, aspects: Set<string>): { literal: string; line: number }[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: { literal: string; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && aspects.has(node.text) && !inExample(node)) {
      found.push({ literal: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const registry = Registry.load(join(ROOT, 'schema'));

describe("entity properties: the aspect modules say which aspect is an entity type's properties", () => {
  it('each entity type GraphQL shows properties of has its aspect and name field on its spec', () => {
    const properties = Object.fromEntries([...registry.entities.values()].flatMap((e) => (e.properties ? [[e.name, e.properties]] : [])));
    expect(properties).toEqual({
      dataset: { aspect: 'datasetProperties', nameField: 'name' },
      chart: { aspect: 'chartInfo', nameField: 'title' },
      dashboard: { aspect: 'dashboardInfo', nameField: 'title' },
      dataJob: { aspect: 'dataJobInfo', nameField: 'name' },
      dataFlow: { aspect: 'dataFlowInfo', nameField: 'name' },
      container: { aspect: 'containerProperties', nameField: 'name' },
      corpuser: { aspect: 'corpUserInfo', nameField: 'displayName' },
      corpGroup: { aspect: 'corpGroupInfo', nameField: 'displayName' },
      domain: { aspect: 'domainProperties', nameField: 'name' },
      tag: { aspect: 'tagProperties', nameField: 'name' },
      glossaryTerm: { aspect: 'glossaryTermInfo', nameField: 'name' },
      glossaryNode: { aspect: 'glossaryNodeInfo', nameField: 'name' },
      dataProduct: { aspect: 'dataProductProperties', nameField: 'name' },
      dataPlatform: { aspect: 'dataPlatformInfo', nameField: 'name' },
      dataProcessInstance: { aspect: 'dataProcessInstanceProperties', nameField: 'name' },
      mlModel: { aspect: 'mlModelProperties', nameField: 'name' },
      mlModelGroup: { aspect: 'mlModelGroupProperties', nameField: 'name' },
      mlFeatureTable: { aspect: 'mlFeatureTableProperties' },
      mlFeature: { aspect: 'mlFeatureProperties' },
      mlPrimaryKey: { aspect: 'mlPrimaryKeyProperties' },
    });
  });

  it('an entity type with two properties aspects is refused when the registry loads', () => {
    const schema = (name: string) => JSON.parse(readFileSync(join(ROOT, 'schema', 'aspects', `${name}.json`), 'utf8'));
    const entities = { entities: [{ name: 'dataset', keyAspect: 'datasetKey', aspects: ['datasetProperties', 'chartInfo'] }] };
    expect(() => new Registry('li', entities, ['datasetKey', 'datasetProperties', 'chartInfo'].map(schema))).toThrow(/more than one properties aspect: datasetProperties, chartInfo/);
  });
});

describe('aspect names outside the aspect modules', () => {
  const aspects = new Set(registry.aspects.keys());

  const found = new Map(sourceFiles(SRC).map((file) => [relative(ROOT, file).split('\\').join('/'), aspectLiterals(file, aspects)]));

  it('no code outside src/model/aspects/ names an aspect by a string literal', () => {
    const offending = [...found].flatMap(([path, literals]) =>
      literals.filter(({ literal }) => !ALLOWED[path]?.literals.includes(literal)).map(({ literal, line }) => `${path}:${line} '${literal}'`),
    );
    expect(offending).toEqual([]);
  });

  it('every allowance is still needed', () => {
    const unused = Object.entries(ALLOWED).flatMap(([path, { literals }]) =>
      literals.filter((l) => !found.get(path)?.some((f) => f.literal === l)).map((l) => `${path} '${l}'`),
    );
    expect(unused).toEqual([]);
  });

  it('the scan finds what it looks for', () => {
    expect(aspectLiterals(join(MODULES, 'status.ts'), aspects)).toEqual([{ literal: 'status', line: expect.any(Number) }]);
  });
});
