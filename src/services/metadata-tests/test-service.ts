import { testResults } from '../../model/aspects';
import type { Principal } from '../../auth';
import { InvalidInputError, NotFoundError, ValidationError } from '../../model/errors';
import type { Registry } from '../../model/registry';
import type { AspectStore } from '../../stores/graph/aspect-store';
import type { TestStore } from '../../stores/graph/test-store';
import type { IngestionService } from '../ingestion';
import { catalogOf, parseTestDefinition, TestDefinitionError, type DefinitionCatalog, type TestDefinition } from './definition';
import { evaluateTest, type TestOutcome } from './evaluate';

const TEST_ENTITY = 'test';
const RESULTS_ASPECT = testResults.name;

export interface EvaluateRequest {
  urn: unknown;
  push: boolean;
  /** null = every test; a list (even empty) = only these, unknown ones skipped. */
  testUrns: unknown[] | null;
}

export interface TestResult {
  test: string;
  type: TestOutcome;
}

export interface TestResults {
  passing: TestResult[];
  failing: TestResult[];
}

/** The catalog definitions are checked against: the registry's entity types and their versioned aspects. */
export function registryCatalog(registry: Registry): DefinitionCatalog {
  return catalogOf(registry.entities.values(), (aspect) => registry.aspects.get(aspect)?.timeseries ?? false);
}

function byTest(a: TestResult, b: TestResult): number {
  return a.test < b.test ? -1 : a.test > b.test ? 1 : 0;
}

/** Evaluates metadata tests against an entity and optionally records the results as its testResults aspect. */
export class TestService {
  private readonly catalog: DefinitionCatalog;

  constructor(
    private readonly registry: Registry,
    private readonly aspects: AspectStore,
    private readonly tests: TestStore,
    private readonly ingestion: IngestionService,
  ) {
    this.catalog = registryCatalog(registry);
  }

  async evaluate(request: EvaluateRequest, principal: Principal): Promise<TestResults> {
    const { urn, entity } = this.registry.parseEntityUrn(request.urn);
    const testUrns = request.testUrns?.map((raw, i) => this.testUrn(raw, i)) ?? null;
    // Fail before reading anything when the results could not be stored on this entity type.
    if (request.push) this.registry.aspectFor(entity, RESULTS_ASPECT);
    const merge = request.push && testUrns !== null;

    const definitions = await this.definitions(testUrns);
    const needed = new Set([entity.keyAspect, ...definitions.flatMap((d) => d.definition.aspects)]);
    const stored = (await this.aspects.latestMany([urn.raw], [...needed])).get(urn.raw);
    if (!stored) throw new NotFoundError(`Entity ${urn.raw} does not exist`);

    const view = { urn: urn.raw, entityType: entity.name, aspects: stored.aspects };
    const results: TestResults = { passing: [], failing: [] };
    for (const { urn: test, definition } of definitions) {
      const outcome = evaluateTest(definition, view);
      if (outcome === 'SUCCESS') results.passing.push({ test, type: outcome });
      else if (outcome === 'FAILURE') results.failing.push({ test, type: outcome });
    }

    if (request.push && (!merge || definitions.length > 0)) {
      const evaluated = new Set(definitions.map((d) => d.urn));
      // Merged with the results stored when the entity is locked: a concurrent push of other tests is kept.
      const record = (stored: Record<string, unknown> | null) => (merge ? mergeResults(stored, evaluated, results) : results) as unknown as Record<string, unknown>;
      await this.ingestion.patchAspect(urn.raw, RESULTS_ASPECT, record, principal);
    }
    return results;
  }

  private testUrn(raw: unknown, i: number): string {
    const { urn } = this.registry.parseEntityUrn(raw, `testUrns[${i}]`);
    if (urn.entityType !== TEST_ENTITY) throw new InvalidInputError(`testUrns[${i}] '${urn.raw}' is not a test urn (urn:${this.registry.urnNamespace}:${TEST_ENTITY}:<id>)`);
    return urn.raw;
  }

  /** All definitions (or the requested ones) in one round trip, each parsed once; stored ones that no longer parse are skipped. */
  private async definitions(testUrns: string[] | null): Promise<{ urn: string; definition: TestDefinition }[]> {
    if (testUrns !== null && testUrns.length === 0) return [];
    const infos = await this.tests.testInfos(testUrns ? [...new Set(testUrns)] : null);
    const parsed: { urn: string; definition: TestDefinition }[] = [];
    for (const info of infos) {
      try {
        parsed.push({ urn: info.urn, definition: parseTestDefinition((info.value.definition as { json?: unknown } | undefined)?.json, this.catalog) });
      } catch (err) {
        // Written before the schema changed (or by hand): such a test applies to nothing until it is fixed.
        if (!(err instanceof TestDefinitionError)) throw err;
      }
    }
    return parsed;
  }
}

/** Existing results with the evaluated tests' entries replaced by this run's (a test now ineligible drops out). */
function mergeResults(existing: unknown, evaluated: Set<string>, fresh: TestResults): TestResults {
  const previous = (existing ?? {}) as Partial<TestResults>;
  const keep = (list: TestResult[] | undefined) => (list ?? []).filter((r) => !evaluated.has(r.test));
  return {
    passing: [...keep(previous.passing), ...fresh.passing].sort(byTest),
    failing: [...keep(previous.failing), ...fresh.failing].sort(byTest),
  };
}
