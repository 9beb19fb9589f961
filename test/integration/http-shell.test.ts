import { startTestService, type TestService } from '../support/service';

describe('service shell', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ BODY_LIMIT: '64kb' });
  });
  afterAll(async () => svc.close());

  it('reports the service and each backend healthy', async () => {
    const { status, body } = await svc.call('GET', '/health');
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'UP', service: { status: 'UP' }, neo4j: { status: 'UP' }, search: { status: 'UP', engine: 'opensearch' } });
  });

  it('answers /config as the official client expects, at the root and under /gms', async () => {
    for (const path of ['/config', '/gms/config']) {
      const { status, body } = await svc.call('GET', path);
      expect(status).toBe(200);
      expect(body.noCode).toBe('true');
      expect(body.retention).toBe('true');
      expect(body.versions['acryldata/datahub']).toBeUndefined();
      expect(Object.keys(body.versions)).toHaveLength(1);
    }
  });

  it('answers unknown paths with a JSON 404', async () => {
    const { status, body } = await svc.call('GET', '/no/such/thing');
    expect(status).toBe(404);
    expect(body).toEqual({ status: 404, message: expect.stringContaining('/no/such/thing'), exceptionClass: 'NotFoundError' });
  });

  it('rejects a body above the limit with 413 and malformed JSON with 400', async () => {
    const big = await svc.call('POST', '/aspects?action=ingestProposal', JSON.stringify({ proposal: { x: 'y'.repeat(100_000) } }));
    expect(big.status).toBe(413);
    expect(big.body.exceptionClass).toBe('PayloadTooLargeError');
    const broken = await svc.call('POST', '/aspects?action=ingestProposal', '{"proposal": ');
    expect(broken.status).toBe(400);
    expect(broken.body.message).toMatch(/Malformed JSON/);
  });

  it('gives every response a request id and never a stack trace', async () => {
    const { headers, body } = await svc.call('POST', '/aspects?action=nope', {});
    expect(headers.get('x-request-id')).toMatch(/.+/);
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
    expect(body.status).toBe(400);
  });

  it('answers a known path with the wrong method with 405', async () => {
    const { status } = await svc.call('DELETE', '/relationships');
    expect(status).toBe(405);
  });
});
