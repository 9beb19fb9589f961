/**
 * Generates schema/entities.json and schema/aspects/*.json from DataHub's model as shipped in the pinned `acryl-datahub`
 * package (test/python/requirements.txt). schema/custom/ holds this service's own additions and is never touched.
 *
 *   npm run schema:generate                      # model from the pinned package's virtualenv (created if missing)
 *   npm run schema:generate -- --from <dir>      # model from a folder of .avsc files
 *   npm run schema:generate -- --check           # exit 1 when the committed files differ from the generator's output
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { convertAspect, snapshotEntities, type ConvertedAspect, type Json } from './avro-to-json-schema';

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const SCHEMA_DIR = join(REPO_ROOT, 'schema');

/**
 * This service's deliberate departures from the model, each a documented behaviour (conformance notes or README).
 * Applied to the generated schema of the named aspect, at a path of property names.
 */
const OVERRIDES: { aspect: string; path: string[]; set: Record<string, Json>; why: string }[] = [
  {
    aspect: 'deprecation',
    path: ['decommissionTime'],
    set: { type: ['integer', 'null'] },
    why: 'GraphQL updateDeprecation writes decommissionTime: null when none is given; clients read it back as null',
  },
  {
    aspect: 'datasetKey',
    path: ['platform'],
    set: { 'x-urn': { entityTypes: ['dataPlatform'] } },
    why: 'a dataset key names a data platform (DataHub types it DataPlatformUrn); field queries like platform:hive rely on it',
  },
  {
    aspect: 'dataPlatformInstance',
    path: ['platform'],
    set: { 'x-urn': { entityTypes: ['dataPlatform'] } },
    why: 'the platform of a dataPlatformInstance is a data platform; field queries like platform:hive rely on it',
  },
  {
    aspect: 'corpGroupInfo',
    path: ['admins', '*'],
    set: { 'x-relationship': { name: 'OwnedBy', entityTypes: ['corpuser'] } },
    why: 'the conformance notes project CorpGroupInfo admins as OwnedBy (older DataHub models did)',
  },
];

/** GraphQL EntityType names that are not the entity name in upper snake case (DataHub's EntityTypeMapper). */
const GRAPHQL_TYPE_EXCEPTIONS: Record<string, string> = {
  corpuser: 'CORP_USER',
  corpGroup: 'CORP_GROUP',
  mlModel: 'MLMODEL',
  mlModelGroup: 'MLMODEL_GROUP',
  mlModelDeployment: 'MLMODEL_DEPLOYMENT',
  mlFeature: 'MLFEATURE',
  mlFeatureTable: 'MLFEATURE_TABLE',
  mlPrimaryKey: 'MLPRIMARY_KEY',
  dataHubPolicy: 'DATAHUB_POLICY',
  dataHubView: 'DATAHUB_VIEW',
  dataHubRole: 'DATAHUB_ROLE',
  dataHubConnection: 'DATAHUB_CONNECTION',
  dataHubExecutionRequest: 'EXECUTION_REQUEST',
  dataHubIngestionSource: 'INGESTION_SOURCE',
  dataHubAccessToken: 'ACCESS_TOKEN',
  dataHubSecret: 'SECRET',
  dataHubPersona: 'DATAHUB_PERSONA',
  dataHubPageTemplate: 'DATAHUB_PAGE_TEMPLATE',
  dataHubPageModule: 'DATAHUB_PAGE_MODULE',
  dataHubFile: 'DATAHUB_FILE',
  dataHubAction: 'DATAHUB_ACTION',
  dataHubOpenAPISchema: 'DATAHUB_OPENAPI_SCHEMA',
  dataHubRetention: 'DATAHUB_RETENTION',
  dataHubStepState: 'DATAHUB_STEP_STATE',
  dataHubUpgrade: 'DATAHUB_UPGRADE',
};

function graphqlType(entity: string): string {
  return GRAPHQL_TYPE_EXCEPTIONS[entity] ?? entity.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** The pinned package's model folder: the test virtualenv (test/python/setup-venv.sh creates it once). */
export function pinnedModelDir(): string {
  const venv = execFileSync('bash', [join(REPO_ROOT, 'test', 'python', 'setup-venv.sh')], { encoding: 'utf8' }).trim().split('\n').pop()!;
  const lib = join(venv, 'lib');
  const python = readdirSync(lib).find((d) => d.startsWith('python'));
  if (!python) throw new Error(`no python library folder in ${lib}`);
  return join(lib, python, 'site-packages', 'datahub', 'metadata', 'schemas');
}

function packageVersion(modelDir: string): string {
  const versionFile = join(modelDir, '..', '..', '_version.py');
  if (!existsSync(versionFile)) return 'unknown';
  return /__version__\s*=\s*"([^"]+)"/.exec(readFileSync(versionFile, 'utf8'))?.[1] ?? 'unknown';
}

function applyOverrides(aspect: ConvertedAspect): void {
  for (const o of OVERRIDES.filter((x) => x.aspect === aspect.name)) {
    let node = aspect.schema as Record<string, Json>;
    for (const step of o.path) node = step === '*' ? (node.items as Record<string, Json>) : (node.properties as Record<string, Record<string, Json>>)[step];
    Object.assign(node, o.set);
  }
}

const json = (value: unknown): string => JSON.stringify(value, null, 2) + '\n';

export interface GeneratedModel {
  /** Path relative to schema/ → file content. */
  files: Map<string, string>;
  skipped: string[];
  stats: { entities: number; aspects: number; timeseries: number; relationships: number; searchable: number };
}

/** Converts a folder of DataHub .avsc files into the registry's files (not written). */
export function generateModel(modelDir: string): GeneratedModel {
  const skipped: string[] = [];
  const aspects: ConvertedAspect[] = [];
  let metadataChangeEvent: unknown = null;
  for (const file of readdirSync(modelDir).filter((f) => f.endsWith('.avsc')).sort()) {
    const avsc = JSON.parse(readFileSync(join(modelDir, file), 'utf8'));
    if (file === 'MetadataChangeEvent.avsc') metadataChangeEvent = avsc;
    const aspect = convertAspect(avsc, skipped);
    if (aspect) {
      applyOverrides(aspect);
      aspects.push(aspect);
    }
  }
  const byName = new Map(aspects.map((a) => [a.name, a]));
  const snapshots = new Map(snapshotEntities(metadataChangeEvent).map((s) => [s.entity, s.snapshot]));
  const entities = aspects
    .filter((a) => a.keyForEntity)
    .map((key) => {
      const listed = [key.name, ...(key.entityAspects ?? [])];
      for (const a of listed) if (!byName.has(a)) skipped.push(`entity ${key.keyForEntity}: aspect ${a} has no schema`);
      const entity: Record<string, Json> = { name: key.keyForEntity!, keyAspect: key.name };
      const snapshot = snapshots.get(key.keyForEntity!);
      if (snapshot) entity.snapshot = snapshot;
      entity.graphqlType = graphqlType(key.keyForEntity!);
      entity.aspects = [...new Set(listed.filter((a) => byName.has(a)))];
      return entity;
    })
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
  const files = new Map<string, string>();
  files.set(
    'entities.json',
    json({
      $comment: `Generated by tools/model/generate.ts from acryl-datahub ${packageVersion(modelDir)} (datahub/metadata/schemas). Do not edit: regenerate with npm run schema:generate; own additions go to schema/custom/.`,
      urnNamespace: 'li',
      entities,
    }),
  );
  let relationships = 0;
  let searchable = 0;
  for (const a of aspects) {
    files.set(`aspects/${a.name}.json`, json(a.schema));
    const text = JSON.stringify(a.schema);
    relationships += (text.match(/"x-relationship"/g) ?? []).length;
    searchable += (text.match(/"x-searchable"/g) ?? []).length;
  }
  return {
    files,
    skipped,
    stats: { entities: entities.length, aspects: aspects.length, timeseries: aspects.filter((a) => a.timeseries).length, relationships, searchable },
  };
}

/** Committed files that differ from the generator's output, and generated-folder files it would not write. */
export function drift(model: GeneratedModel, schemaDir = SCHEMA_DIR): string[] {
  const problems: string[] = [];
  for (const [path, content] of model.files) {
    const file = join(schemaDir, path);
    if (!existsSync(file)) problems.push(`missing: schema/${path}`);
    else if (readFileSync(file, 'utf8') !== content) problems.push(`differs: schema/${path}`);
  }
  for (const f of readdirSync(join(schemaDir, 'aspects'))) {
    if (!model.files.has(`aspects/${f}`)) problems.push(`not generated: schema/aspects/${f} (own additions belong in schema/custom/aspects/)`);
  }
  return problems;
}

function main(argv: string[]): void {
  const fromIndex = argv.indexOf('--from');
  const modelDir = fromIndex >= 0 ? resolve(argv[fromIndex + 1]) : pinnedModelDir();
  const model = generateModel(modelDir);
  if (argv.includes('--check')) {
    const problems = drift(model);
    for (const p of problems) console.error(p);
    console.error(problems.length === 0 ? 'schema/ matches the generator' : `${problems.length} file(s) drift from the generator`);
    process.exit(problems.length === 0 ? 0 : 1);
  }
  rmSync(join(SCHEMA_DIR, 'aspects'), { recursive: true, force: true });
  mkdirSync(join(SCHEMA_DIR, 'aspects'), { recursive: true });
  for (const [path, content] of model.files) writeFileSync(join(SCHEMA_DIR, path), content);
  for (const s of model.skipped) console.error(`skipped: ${s}`);
  const { entities, aspects, timeseries, relationships, searchable } = model.stats;
  console.error(`wrote ${entities} entity types, ${aspects} aspects (${timeseries} time series), ${relationships} relationship and ${searchable} searchable annotations from ${modelDir}`);
}

if (require.main === module) main(process.argv.slice(2));
