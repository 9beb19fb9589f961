import { requireScope } from '../../auth';
import type { EvaluateRequest, TestService } from '../../services/metadata-tests/test-service';
import type { RouteDefinition } from '../route';

const SAMPLE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

/** `testUrns` and its alias `tests` name the tests to run; absent = all tests. */
function parseEvaluateRequest(body: Record<string, unknown>): EvaluateRequest {
  const lists = [body.testUrns, body.tests].filter((l): l is unknown[] => Array.isArray(l));
  return { urn: body.urn, push: body.push === true, testUrns: lists.length > 0 ? lists.flat() : null };
}

/** The metadata-test endpoint. */
export function testRoutes(tests: TestService): RouteDefinition[] {
  return [
    {
      operationId: 'evaluateTests',
      method: 'POST',
      path: '/test',
      action: 'evaluate',
      tag: 'Metadata tests',
      summary: 'Evaluate metadata tests against one entity',
      description:
        'Tests whose `on` selects the entity land in `passing` or `failing`; the others in neither. `testUrns` (alias `tests`) ' +
        'limits the run and unknown test urns are skipped. `push: true` stores the results as the entity\'s `testResults` aspect ' +
        '(replacing it, or merged into it when `testUrns` is given), which projects `IsPassing` / `IsFailing` edges. Pushing needs the write scope.',
      scope: 'read',
      writes: true,
      body: {
        type: 'object',
        required: ['urn'],
        properties: {
          urn: { type: 'string', description: 'Entity to evaluate' },
          push: { type: 'boolean', default: false, description: 'Persist the results as the testResults aspect' },
          testUrns: { type: 'array', maxItems: 1000, items: { type: 'string' }, description: 'Evaluate only these tests' },
          tests: { type: 'array', maxItems: 1000, items: { type: 'string' }, description: 'Alias of testUrns' },
        },
      },
      example: {
        request: { urn: SAMPLE, push: true, testUrns: ['urn:li:test:has-owner'] },
        response: { value: { passing: [{ test: 'urn:li:test:has-owner', type: 'SUCCESS' }], failing: [] } },
      },
      handle: async ({ body, principal }) => {
        const request = parseEvaluateRequest(body);
        // The route needs read; storing the results is a write.
        if (request.push) requireScope(principal, 'write');
        return { value: await tests.evaluate(request, principal) };
      },
    },
  ];
}
