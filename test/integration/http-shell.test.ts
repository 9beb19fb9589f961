import { bearer, mintToken, startTestService, type TestService } from '../support/service';

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

  it('reads a GraphQL body within the same limit: 413 above it, sent whole or in chunks, and 400 for malformed JSON', async () => {
    const headers = bearer((await mintToken()).token);
    const body = (pad: number) => JSON.stringify({ query: '{ __typename }', variables: { pad: 'y'.repeat(pad) } });
    const within = await svc.call('POST', '/api/graphql', body(30_000), headers);
    expect(within).toMatchObject({ status: 200, body: { data: { __typename: 'Query' } } });
    const tooLarge = { status: 413, message: 'Request body too large', exceptionClass: 'PayloadTooLargeError' };
    expect(await svc.call('POST', '/api/graphql', body(100_000), headers)).toMatchObject({ status: 413, body: tooLarge });
    // No content-length: the limit holds while the chunks arrive.
    const big = Buffer.from(body(100_000));
    const chunks = new ReadableStream({
      start(controller) {
        controller.enqueue(big.subarray(0, 40_000));
        controller.enqueue(big.subarray(40_000));
        controller.close();
      },
    });
    const chunked = await fetch(`${svc.url}/api/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: chunks, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toMatchObject(tooLarge);
    const broken = await svc.call('POST', '/api/graphql', '{"query": ', headers);
    expect(broken).toMatchObject({ status: 400, body: { status: 400, message: 'POST body sent invalid JSON.', exceptionClass: 'InvalidInputError' } });
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
