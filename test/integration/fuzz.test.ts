import { runFuzz } from '../fuzzing/runner';
import { startTestService, TEST_TOKEN_SECRET, type TestService } from '../support/service';

/**
 * A short fuzzing run (`test/fuzzing/fuzz.ts` runs long ones against the service in its own process): generated malformed and
 * hostile requests, and one-field mutations of valid ones, against every operation of the OpenAPI document. Every answer
 * is checked (no 5xx, no hang, the JSON error body, no internals), then the stored data: the sample dataset byte for byte,
 * every settled pre-existing entity by fingerprint. Any violation fails the test with its reproducer.
 */
describe('fuzzing every endpoint', () => {
  let svc: TestService;
  const bodyLimitBytes = 256 * 1024;
  const seed = Number(process.env.FUZZ_SEED ?? 20261121);

  beforeAll(async () => {
    svc = await startTestService({ BODY_LIMIT: `${bodyLimitBytes}b` });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('answers 2,000 generated requests correctly and changes nothing it should not', async () => {
    const report = await runFuzz({
      url: svc.url,
      seed,
      requests: 2000,
      concurrency: 4,
      timeoutMs: 10_000,
      bodyLimitBytes,
      tokenSecret: TEST_TOKEN_SECRET,
      driver: svc.graph.driver,
    });

    // Shown in full when it fails: each violation carries `npx tsx test/fuzzing/fuzz.ts --seed <seed> --replay <index>`.
    expect({ count: report.violationCount, reasons: report.violationReasons, first: report.violations.slice(0, 5) }).toEqual({ count: 0, reasons: {}, first: [] });
    expect(report.serviceAlive).toBe(true);
    expect(report.data.sampleIdentical).toBe(true);
    expect(report.data.diff.unexplained).toEqual([]);
    expect(report.data.runEntities.left).toBe(0);
    // Every documented operation was fuzzed, and valid requests got through to real work.
    expect(report.endpoints.filter((e) => !report.perEndpoint[e])).toEqual([]);
    expect(report.statuses['200']).toBeGreaterThan(200);
  }, 300_000);
});
