/**
 * Rate limits through real HTTP: gateways with limits wired (test/support/limits-gateway.ts) in front
 * of fake lookup and ticket services, on a real Redis unless stated.
 */
import { expect } from 'chai';
import { freePort, suiteFixture } from '@tix/kit/testing';
import { FULL_KEY, SCOPED_KEY, startFakeLookup } from '../support/fake-lookup.js';
import { startFakeTickets } from '../support/fake-tickets.js';
import { limitsGatewaysPerTest, testRedisPrefix, type LimitsGateway } from '../support/limits-gateway.js';
import { bearer, request, type JsonResponse } from '../support/test-gateway.js';

function rateHeaders(response: JsonResponse) {
  return {
    limit: response.headers.get('x-ratelimit-limit'),
    remaining: response.headers.get('x-ratelimit-remaining'),
    reset: response.headers.get('x-ratelimit-reset'),
    retryAfter: response.headers.get('retry-after'),
  };
}

describe('rate limits (sliding window)', function () {
  this.timeout(30_000);
  const lookup = suiteFixture(startFakeLookup);
  const tickets = suiteFixture(startFakeTickets);
  const { start: gateway } = limitsGatewaysPerTest(() => ({
    lookup: lookup.address,
    tickets: tickets.address,
  }));
  const projects = (instance: LimitsGateway, key = FULL_KEY) =>
    request(`${instance.apiUrl}/v1/projects`, { headers: bearer(key) });

  afterEach(() => {
    lookup.reset();
    tickets.reset();
  });

  it('allows 100 requests of a key in 60 s; the 101st gets 429 with Retry-After and the envelope', async () => {
    const instance = await gateway();
    const startedAt = Date.now() / 1000;
    const first = await projects(instance);
    expect(first.status).to.equal(200);
    expect(rateHeaders(first)).to.deep.include({ limit: '100', remaining: '99', retryAfter: null });
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset).to.be.within(Math.floor(startedAt) + 59, Math.ceil(startedAt) + 61);
    for (let i = 2; i <= 100; i += 1) {
      const response = await projects(instance);
      expect(response.status, `request ${i}`).to.equal(200);
      expect(response.headers.get('x-ratelimit-remaining')).to.equal(String(100 - i));
    }
    const refused = await projects(instance);
    expect(refused.status).to.equal(429);
    expect(refused.body.ok).to.equal(false);
    expect(refused.body.error.code).to.equal(429);
    expect(refused.body.error.message).to.match(/^Rate limit exceeded/);
    const headers = rateHeaders(refused);
    expect(headers).to.deep.include({ limit: '100', remaining: '0', reset: String(reset) });
    expect(Number(headers.retryAfter)).to.be.within(58, 60);
    expect(refused.headers.get('x-correlation-id')).to.be.a('string');
    // Another key has its own bucket.
    expect((await projects(instance, SCOPED_KEY)).status).to.equal(200);
  });

  it('two gateways sharing Redis allow 100 in all, not 200', async () => {
    const prefix = testRedisPrefix();
    const [a, b] = [await gateway({ redisKeyPrefix: prefix }), await gateway({ redisKeyPrefix: prefix })];
    const statuses: number[] = [];
    for (let i = 0; i < 120; i += 1) statuses.push((await projects(i % 2 === 0 ? a : b)).status);
    expect(statuses.filter((status) => status === 200)).to.have.length(100);
    expect(statuses.slice(100).every((status) => status === 429)).to.equal(true);
    // Concurrent requests across both replicas cannot overshoot either.
    const other = await Promise.all(
      Array.from({ length: 130 }, (_, i) => projects(i % 2 === 0 ? a : b, SCOPED_KEY)),
    );
    expect(other.filter((response) => response.status === 200)).to.have.length(100);
    expect(other.filter((response) => response.status === 429)).to.have.length(30);
  });

  it('/tickets/{id}/status has its own bucket of 200 per minute, apart from the key bucket', async () => {
    const instance = await gateway();
    const move = () =>
      request(`${instance.apiUrl}/v1/tickets/5/status?project_id=1`, {
        method: 'PATCH',
        headers: { ...bearer(FULL_KEY), 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: 'closed' }),
      });
    for (let i = 1; i <= 200; i += 1) {
      const response = await move();
      expect(response.status, `move ${i}: ${JSON.stringify(response.body)}`).to.equal(200);
      expect(response.headers.get('x-ratelimit-limit')).to.equal('200');
    }
    const refused = await move();
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('x-ratelimit-limit')).to.equal('200');
    expect(tickets.calls.MoveTicket).to.equal(200);
    // The key's own bucket was not used by the moves.
    const other = await projects(instance);
    expect(rateHeaders(other)).to.deep.include({ limit: '100', remaining: '99' });
  });

  it('limits anonymous callers and failed authentication by address, with headers on 401 and 404', async () => {
    const instance = await gateway();
    const anonymous = await request(`${instance.apiUrl}/v1/projects`);
    expect(anonymous.status).to.equal(401);
    expect(rateHeaders(anonymous)).to.deep.include({ limit: '30', remaining: '29' });
    const badKey = await request(`${instance.apiUrl}/v1/projects`, {
      headers: bearer('tix_not_a_real_key_999'),
    });
    expect(badKey.status).to.equal(401);
    expect(badKey.headers.get('x-ratelimit-remaining')).to.equal('28');
    // Outside any router (unknown path on the API host): still counted, still headed.
    const unknown = await request(`${instance.apiUrl}/nowhere`);
    expect(unknown.status).to.equal(404);
    expect(unknown.headers.get('x-ratelimit-remaining')).to.equal('27');
    // With a key, an unknown /v1 path counts against the key.
    const keyed404 = await request(`${instance.apiUrl}/v1/nowhere`, { headers: bearer(FULL_KEY) });
    expect(keyed404.status).to.equal(404);
    expect(rateHeaders(keyed404)).to.deep.include({ limit: '100', remaining: '99' });

    for (let i = 4; i <= 30; i += 1)
      expect((await request(`${instance.apiUrl}/v1/projects`)).status).to.equal(401);
    const refused = await request(`${instance.apiUrl}/v1/projects`, {
      headers: bearer('tix_not_a_real_key_999'),
    });
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
    // A valid key is not affected by its address's anonymous bucket.
    expect((await projects(instance)).status).to.equal(200);
  });

  it('never counts probes or CORS preflights', async () => {
    const instance = await gateway({ limits: { anonymous: { limit: 1, windowMs: 60_000 } } });
    expect((await request(`${instance.apiUrl}/v1/projects`)).status).to.equal(401);
    for (let i = 0; i < 3; i += 1) {
      const health = await request(`${instance.apiUrl}/healthz`);
      expect(health.status).to.equal(200);
      expect(health.headers.get('x-ratelimit-limit')).to.equal(null);
      const preflight = await fetch(`${instance.apiUrl}/v1/tickets`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('x-ratelimit-limit')).to.equal(null);
    }
    expect((await request(`${instance.apiUrl}/readyz`)).status).to.equal(200);
    expect((await request(`${instance.apiUrl}/v1/projects`)).status).to.equal(429);
  });

  it('session host: sign-in endpoints allow 10 per address; a signed-in session gets 250', async () => {
    const instance = await gateway();
    const csrf = await request(`${instance.appUrl}/api/csrf-token`);
    expect(rateHeaders(csrf)).to.deep.include({ limit: '30', remaining: '29' });
    const cookie = csrf.headers.get('set-cookie')!.split(';')[0]!;
    const login = (password: string) =>
      request(`${instance.appUrl}/api/auth/login`, {
        method: 'POST',
        headers: { cookie, 'X-CSRF-Token': csrf.body.data.token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'alice@example.com', password }),
      });
    for (let i = 1; i <= 9; i += 1) {
      const failed = await login('wrong');
      expect(failed.status).to.equal(401);
      expect(rateHeaders(failed)).to.deep.include({ limit: '10', remaining: String(10 - i) });
    }
    const signedIn = await login('correct horse battery');
    expect(signedIn.status).to.equal(200);
    expect((await login('correct horse battery')).status).to.equal(429);

    const session = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const me = await request(`${instance.appUrl}/api/auth/me`, { headers: { cookie: session } });
    expect(me.status).to.equal(200);
    expect(rateHeaders(me)).to.deep.include({ limit: '250', remaining: '249' });
  });

  it('session host: forgot-password counts 5 per hour per address, signed in or not', async () => {
    const instance = await gateway();
    const csrf = await request(`${instance.appUrl}/api/csrf-token`);
    const anonymous = {
      cookie: csrf.headers.get('set-cookie')!.split(';')[0]!,
      'X-CSRF-Token': csrf.body.data.token as string,
      'Content-Type': 'application/json',
    };
    const forgot = (headers: Record<string, string>) =>
      request(`${instance.appUrl}/api/auth/forgot-password`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ email: 'alice@example.com' }),
      });
    for (let i = 1; i <= 3; i += 1) {
      const answer = await forgot(anonymous);
      expect(answer.status).to.equal(202);
      expect(rateHeaders(answer)).to.deep.include({ limit: '5', remaining: String(5 - i) });
    }
    const signedIn = await request(`${instance.appUrl}/api/auth/login`, {
      method: 'POST',
      headers: anonymous,
      body: JSON.stringify({ email: 'alice@example.com', password: 'correct horse battery' }),
    });
    expect(signedIn.status).to.equal(200);
    // A fresh session does not buy a fresh budget: the same address's bucket goes on.
    const session = {
      cookie: signedIn.headers.get('set-cookie')!.split(';')[0]!,
      'X-CSRF-Token': signedIn.body.data.csrf_token as string,
      'Content-Type': 'application/json',
    };
    expect(rateHeaders(await forgot(session))).to.deep.include({ limit: '5', remaining: '1' });
    expect((await forgot(session)).status).to.equal(202);
    const refused = await forgot(session);
    expect(refused.status).to.equal(429);
    expect(Number(rateHeaders(refused).retryAfter)).to.be.within(3500, 3600);
  });

  it('session host: the data export counts 3 per hour per user, across their sessions', async () => {
    const instance = await gateway();
    const signIn = async () => {
      const csrf = await request(`${instance.appUrl}/api/csrf-token`);
      const login = await request(`${instance.appUrl}/api/auth/login`, {
        method: 'POST',
        headers: {
          cookie: csrf.headers.get('set-cookie')!.split(';')[0]!,
          'X-CSRF-Token': csrf.body.data.token as string,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ email: 'alice@example.com', password: 'correct horse battery' }),
      });
      expect(login.status).to.equal(200);
      return { cookie: login.headers.get('set-cookie')!.split(';')[0]! };
    };
    const exportAs = (headers: Record<string, string>) =>
      request(`${instance.appUrl}/api/me/data-export`, { headers });
    const first = await signIn();
    for (let i = 1; i <= 2; i += 1) {
      expect(rateHeaders(await exportAs(first))).to.deep.include({ limit: '3', remaining: String(3 - i) });
    }
    // Signing in again does not buy a fresh budget: the user's bucket goes on.
    const second = await signIn();
    expect(rateHeaders(await exportAs(second))).to.deep.include({ limit: '3', remaining: '0' });
    const refused = await exportAs(second);
    expect(refused.status).to.equal(429);
    expect(Number(rateHeaders(refused).retryAfter)).to.be.within(3500, 3600);
  });

  it('fails open when Redis is unreachable: limits in process, readyz says degraded, never 5xx', async () => {
    const instance = await gateway({ redisUrl: `redis://127.0.0.1:${await freePort()}` });
    const ready = await request(`${instance.apiUrl}/readyz`);
    expect(ready.status).to.equal(200);
    expect(ready.body.data.rate_limits).to.equal('degraded_in_memory');
    const statuses: number[] = [];
    for (let i = 0; i < 101; i += 1) statuses.push((await projects(instance)).status);
    expect(statuses.filter((status) => status === 200)).to.have.length(100);
    expect(statuses[100]).to.equal(429);
  });

  it('reports where limits live in /readyz', async () => {
    const shared = await gateway();
    expect((await request(`${shared.apiUrl}/readyz`)).body.data.rate_limits).to.equal('redis');
    const local = await gateway({ redisUrl: null });
    expect((await request(`${local.apiUrl}/readyz`)).body.data.rate_limits).to.equal('in_memory');
  });

  it('RATE_LIMITS_ENABLED=false: no headers, no refusals', async () => {
    const instance = await gateway({
      limits: { rateLimitsEnabled: false, apiKey: { limit: 1, windowMs: 60_000 } },
    });
    for (let i = 0; i < 3; i += 1) {
      const response = await projects(instance);
      expect(response.status).to.equal(200);
      expect(response.headers.get('x-ratelimit-limit')).to.equal(null);
    }
  });
});
