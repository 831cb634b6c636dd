import { expect } from 'chai';
import { AppError } from '@tix/kit';
import { expectError, freePort, suiteFixture } from '@tix/kit/testing';
import { startFakeLookupGateway, FULL_KEY, NO_TICKETS_READ_KEY } from '../support/fake-lookup.js';
import { bearer, request, startTestGateway, type JsonResponse } from '../support/test-gateway.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The whole envelope, and the headers every error carries. */
function expectErrorResponse(response: JsonResponse, status: number, message: string): void {
  expectError(response, status, message);
  expect(response.headers.get('x-correlation-id')).to.match(UUID);
  expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
}

describe('error paths answer the envelope with X-Correlation-ID (real HTTP, fake lookup over gRPC)', () => {
  const fake = suiteFixture(() => startFakeLookupGateway({ bodyLimitBytes: 2048 }));
  afterEach(() => fake.lookup.reset());

  it('404 names the method and path of an unknown route', async () => {
    expectErrorResponse(
      await request(`${fake.gateway.apiUrl}/v1/nope`, { headers: bearer(FULL_KEY) }),
      404,
      'Route GET /v1/nope not found',
    );
    expectErrorResponse(
      await request(`${fake.gateway.apiUrl}/elsewhere?x=1`),
      404,
      'Route GET /elsewhere not found',
    );
  });

  it('405 with an Allow header for a known path asked with another method', async () => {
    const response = await request(`${fake.gateway.apiUrl}/v1/projects`, {
      method: 'DELETE',
      headers: bearer(FULL_KEY),
    });
    expectErrorResponse(response, 405, 'Method DELETE not allowed on /v1/projects');
    expect(response.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
  });

  it('400 Malformed JSON body', async () => {
    const response = await request(`${fake.gateway.apiUrl}/v1/projects`, {
      method: 'POST',
      headers: { ...bearer(FULL_KEY), 'Content-Type': 'application/json' },
      body: '{"title": ',
    });
    expectErrorResponse(response, 400, 'Malformed JSON body');
  });

  it('400 naming the limit for JSON nested deeper than 32 levels, in any field or none', async () => {
    const nested = (depth: number, open = '{"a":', close = '}') =>
      `${open.repeat(depth)}1${close.repeat(depth)}`;
    const post = (body: string) =>
      request(`${fake.gateway.apiUrl}/v1/projects`, {
        method: 'POST',
        headers: { ...bearer(FULL_KEY), 'Content-Type': 'application/json' },
        body,
      });
    const message = 'JSON nested deeper than 32 levels (objects and arrays)';
    // Depth counts the outer object: {"custom_fields": <32 levels>} is 33.
    for (const body of [
      `{"custom_fields":${nested(32)}}`,
      `{"zzz_unknown":${nested(32, '[', ']')}}`,
      nested(33, '[', ']'),
    ]) {
      expectErrorResponse(await post(body), 400, message);
    }
    // At the limit the body is parsed and reaches the route (which answers on its own terms).
    const atLimit = await post(`{"name":"n","zzz":${nested(31)}}`);
    expect(atLimit.status).to.not.equal(400);
    // Brackets inside strings are text, not nesting.
    const inText = await post(JSON.stringify({ name: '['.repeat(100), description: '{'.repeat(100) }));
    expect(inText.status).to.not.equal(400);
  });

  it('400 for a body that is not valid UTF-8, 415 for JSON declared in another charset', async () => {
    const invalid = await request(`${fake.gateway.apiUrl}/v1/projects`, {
      method: 'POST',
      headers: { ...bearer(FULL_KEY), 'Content-Type': 'application/json' },
      body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]),
    });
    expectErrorResponse(invalid, 400, 'Request body is not valid UTF-8');
    const latin1 = await request(`${fake.gateway.apiUrl}/v1/projects`, {
      method: 'POST',
      headers: { ...bearer(FULL_KEY), 'Content-Type': 'application/json; charset=ISO-8859-1' },
      body: '{"name":"caf\u00e9"}',
    });
    expectErrorResponse(latin1, 415, 'JSON must be sent as UTF-8');
  });

  it('413 for a body over BODY_LIMIT, 415 for a non-JSON body on POST', async () => {
    const tooLarge = await request(`${fake.gateway.apiUrl}/v1/projects`, {
      method: 'POST',
      headers: { ...bearer(FULL_KEY), 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: 'x'.repeat(4096) }),
    });
    expectErrorResponse(tooLarge, 413, 'Request body too large (limit 2048 bytes)');
    const notJson = await request(`${fake.gateway.apiUrl}/v1/projects`, {
      method: 'POST',
      headers: { ...bearer(FULL_KEY), 'Content-Type': 'text/plain' },
      body: 'hello',
    });
    expectErrorResponse(notJson, 415, 'Content-Type must be application/json');
  });

  it('401 without a key, 401 Invalid API key for unknown and malformed keys', async () => {
    const missing = await request(`${fake.gateway.apiUrl}/v1/projects`);
    expectErrorResponse(missing, 401, 'API key required');
    expect(missing.headers.get('www-authenticate')).to.equal('Bearer');
    expectErrorResponse(
      await request(`${fake.gateway.apiUrl}/v1/projects`, { headers: bearer('tix_unknown_key_999') }),
      401,
      'Invalid API key',
    );
    expectErrorResponse(
      await request(`${fake.gateway.apiUrl}/v1/projects`, {
        headers: { 'X-API-Key': 'tix_unknown_key_999' },
      }),
      401,
      'Invalid API key',
    );
    expectErrorResponse(
      await request(`${fake.gateway.apiUrl}/v1/projects`, { headers: { Authorization: 'Bearer ' } }),
      401,
      'Invalid API key',
    );
    const callsBefore = fake.lookup.calls.AuthenticateApiKey ?? 0;
    // Not a plausible key at all: refused without asking lookup.
    expectErrorResponse(
      await request(`${fake.gateway.apiUrl}/v1/projects`, { headers: bearer('short') }),
      401,
      'Invalid API key',
    );
    expect(fake.lookup.calls.AuthenticateApiKey ?? 0).to.equal(callsBefore);
  });

  it('403 names the missing scope', async () => {
    expectErrorResponse(
      await request(`${fake.gateway.apiUrl}/v1/ticket-types?project_id=1`, {
        headers: bearer(NO_TICKETS_READ_KEY),
      }),
      403,
      'Missing required scope: tickets:read',
    );
  });

  it('400 Project ID is required. and 404 Project not found', async () => {
    expectErrorResponse(
      await request(`${fake.gateway.apiUrl}/v1/ticket-types`, { headers: bearer(FULL_KEY) }),
      400,
      'Project ID is required.',
    );
    expectErrorResponse(
      await request(`${fake.gateway.apiUrl}/v1/ticket-types?project_id=99`, { headers: bearer(FULL_KEY) }),
      404,
      'Project not found',
    );
    expectErrorResponse(
      await request(`${fake.gateway.apiUrl}/v1/ticket-types?project=nope`, { headers: bearer(FULL_KEY) }),
      404,
      'Project not found',
    );
  });

  it('400 with validation_errors for a malformed project_id', async () => {
    const response = await request(`${fake.gateway.apiUrl}/v1/ticket-types?project_id=1abc`, {
      headers: bearer(FULL_KEY),
    });
    expectError(response, 400, 'Invalid project_id', { project_id: ['must be an integer'] });
  });

  it('500 Internal server error when a handler throws unexpectedly (no internals leak)', async () => {
    // Project "broken" has a ticket type whose field schema is not JSON: the presenter throws.
    const response = await request(`${fake.gateway.apiUrl}/v1/ticket-types?project=broken`, {
      headers: bearer(FULL_KEY),
    });
    expectErrorResponse(response, 500, 'Internal server error');
  });

  it('500 when the service fails unexpectedly, with its message hidden', async () => {
    fake.lookup.override('ListUsers', () => Promise.reject(new TypeError('password=hunter2 in stack')));
    expectErrorResponse(
      await request(`${fake.gateway.apiUrl}/v1/users`, { headers: bearer(FULL_KEY) }),
      500,
      'Internal server error',
    );
  });

  it('a service AppError keeps its kind and message', async () => {
    fake.lookup.override('ListUsers', () => Promise.reject(AppError.conflict('Rare simultaneous write')));
    expectErrorResponse(
      await request(`${fake.gateway.apiUrl}/v1/users`, { headers: bearer(FULL_KEY) }),
      409,
      'Rare simultaneous write',
    );
  });

  it('504 when the service is slower than the deadline', async () => {
    const slowGateway = await startTestGateway({
      services: { lookup: fake.lookup.address },
      deadlineMs: 200,
    });
    fake.lookup.override(
      'ListUsers',
      () => new Promise((resolve) => setTimeout(() => resolve({ users: [] }), 1_000)),
    );
    try {
      expectErrorResponse(
        await request(`${slowGateway.apiUrl}/v1/users`, { headers: bearer(FULL_KEY) }),
        504,
        'Service did not answer in time',
      );
    } finally {
      await slowGateway.close();
    }
  });

  it('503 when the service is down (and when it is not deployed)', async () => {
    const downGateway = await startTestGateway({ services: { lookup: `127.0.0.1:${await freePort()}` } });
    const absentGateway = await startTestGateway({ services: {} });
    try {
      expectErrorResponse(
        await request(`${downGateway.apiUrl}/v1/projects`, { headers: bearer(FULL_KEY) }),
        503,
        'Service temporarily unavailable',
      );
      expectErrorResponse(
        await request(`${absentGateway.apiUrl}/v1/projects`, { headers: bearer(FULL_KEY) }),
        503,
        'The lookup service is not deployed',
      );
    } finally {
      await downGateway.close();
      await absentGateway.close();
    }
  });

  it('echoes a well-formed X-Correlation-ID and passes it to the service; replaces a malformed one', async () => {
    const good = await request(`${fake.gateway.apiUrl}/v1/users`, {
      headers: { ...bearer(FULL_KEY), 'X-Correlation-ID': 'client-trace-42' },
    });
    expect(good.status).to.equal(200);
    expect(good.headers.get('x-correlation-id')).to.equal('client-trace-42');
    expect(fake.lookup.lastContext.ListUsers?.correlationId).to.equal('client-trace-42');

    const bad = await request(`${fake.gateway.apiUrl}/v1/users`, {
      headers: { ...bearer(FULL_KEY), 'X-Correlation-ID': 'has spaces; and {braces}' },
    });
    expect(bad.headers.get('x-correlation-id')).to.match(UUID);
    expect(fake.lookup.lastContext.ListUsers?.correlationId).to.equal(bad.headers.get('x-correlation-id'));
  });
});
