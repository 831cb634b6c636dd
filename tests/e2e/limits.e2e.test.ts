/**
 * Limits at the spec's defaults on a real gateway process: the shared test fleet's gateway runs with
 * raised limits (support/fleet.ts), so this suite starts a second gateway (gateway/src/main.ts) in
 * front of the same services, with no RATE_LIMIT_* overrides and the limits in Redis.
 */
import { expect } from 'chai';
import { createKey, createProject, createTicketType, createUser, unique } from '../support/fixtures.js';
import { fleet } from '../support/fleet.js';
import { request, type ApiResponse, type RequestOptions } from '../support/http.js';
import { startSpecLimitsGateway, type SpecLimitsGateway } from '../support/spec-limits-gateway.js';

describe('limits at spec defaults (own gateway process, Redis)', function () {
  this.timeout(60_000);
  let gateway: SpecLimitsGateway | undefined;
  let apiUrl: string;
  let appUrl: string;

  const call = (pathAndQuery: string, options: Omit<RequestOptions, 'baseUrl'>): Promise<ApiResponse> =>
    request(pathAndQuery, { ...options, baseUrl: apiUrl });

  before(async () => {
    gateway = await startSpecLimitsGateway();
    ({ apiUrl, appUrl } = gateway);
  });
  after(() => gateway?.stop());

  /** A CSRF token and the anonymous session cookie it belongs to, from this gateway's session host. */
  async function anonymousBrowser(): Promise<Record<string, string>> {
    const start = await request('/api/csrf-token', { baseUrl: appUrl });
    return {
      cookie: start.headers.get('set-cookie')!.split(';')[0]!,
      'x-csrf-token': start.body.data.token as string,
    };
  }

  const expectRefused = (response: ApiResponse, limit: string) => {
    expect(response.status, response.text).to.equal(429);
    expect(response.body.error?.code).to.equal(429);
    expect(response.headers.get('x-ratelimit-limit')).to.equal(limit);
    expect(response.headers.get('x-ratelimit-remaining')).to.equal('0');
    expect(Number(response.headers.get('retry-after'))).to.be.within(1, 60);
  };

  it('a signed-in session gets 250 requests in 60 s; the 251st is refused with 429 and the headers', async () => {
    const password = 'limits passphrase 1';
    const user = await createUser('viewer', { password });
    const login = await request('/api/auth/login', {
      baseUrl: appUrl,
      method: 'POST',
      body: { email: user.email, password },
      headers: await anonymousBrowser(),
    });
    expect(login.status, login.text).to.equal(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    for (let i = 1; i <= 250; i += 1) {
      const response = await request('/api/projects', { baseUrl: appUrl, headers: { cookie } });
      expect(response.status, `request ${i}: ${response.text}`).to.equal(200);
      expect(response.headers.get('x-ratelimit-limit')).to.equal('250');
    }
    expectRefused(await request('/api/projects', { baseUrl: appUrl, headers: { cookie } }), '250');
  });

  it('sign-in allows 10 attempts per address in 60 s, then answers 429 with the headers', async () => {
    const headers = await anonymousBrowser();
    const attempt = () =>
      request('/api/auth/login', {
        baseUrl: appUrl,
        method: 'POST',
        body: { email: 'nobody@example.com', password: 'wrong password' },
        headers,
      });
    // The session test signed in once from this address already: at most 9 attempts remain.
    let refused: ApiResponse | undefined;
    for (let i = 1; i <= 11 && refused === undefined; i += 1) {
      const response = await attempt();
      if (response.status === 429) refused = response;
      else {
        expect(response.status, response.text).to.equal(401);
        expect(response.headers.get('x-ratelimit-limit')).to.equal('10');
      }
    }
    expect(refused, 'no 429 within 11 attempts').to.not.equal(undefined);
    expectRefused(refused!, '10');
  });

  it('readyz reports the limits in Redis', async () => {
    const ready = await fetch(`${apiUrl}/readyz`).then((response) => response.json() as Promise<any>);
    expect(ready.data.rate_limits).to.equal('redis');
  });

  it('the 101st request of a key within 60 s is refused with 429 and Retry-After', async () => {
    const { key } = await createKey();
    for (let i = 1; i <= 100; i += 1) {
      const response = await call('/v1/projects', { key });
      expect(response.status, `request ${i}: ${response.text}`).to.equal(200);
      expect(response.headers.get('x-ratelimit-limit')).to.equal('100');
      expect(response.headers.get('x-ratelimit-remaining')).to.equal(String(100 - i));
    }
    const refused = await call('/v1/projects', { key });
    expect(refused.status).to.equal(429);
    expect(refused.body).to.deep.include({ ok: false });
    expect(refused.body.error?.code).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect(Number(refused.headers.get('x-ratelimit-reset'))).to.be.greaterThan(Date.now() / 1000);
    // The fleet's own gateway (other limits, other store) is unaffected.
    const elsewhere = await fetch(`${fleet().apiUrl}/v1/projects`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(elsewhere.status).to.equal(200);
  });

  it('20 concurrent creates with one Idempotency-Key make exactly one ticket', async () => {
    const project = await createProject();
    await createTicketType(project.slug, { isDefault: true });
    const { key } = await createKey({ project: project.slug });
    const types = await call('/v1/ticket-types', { key });
    const title = unique('Idempotent ');
    const body = { ticket_type_id: types.body.data.ticket_types[0].id, title };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        call('/v1/tickets', { key, method: 'POST', body, headers: { 'Idempotency-Key': 'e2e-create' } }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.every((status) => status === 201 || status === 409),
      String(statuses),
    ).to.equal(true);
    const created = answers.filter((answer) => answer.status === 201);
    expect(new Set(created.map((answer) => Number(answer.body.data.ticket.id))).size).to.equal(1);

    const replay = await call('/v1/tickets', {
      key,
      method: 'POST',
      body,
      headers: { 'Idempotency-Key': 'e2e-create' },
    });
    expect(replay.status).to.equal(201);
    expect(replay.headers.get('x-idempotency-replay')).to.equal('true');
    expect(replay.text).to.equal(created[0]!.text);

    const search = await call(`/v1/tickets?q=${encodeURIComponent(title)}`, { key });
    expect(search.status).to.equal(200);
    expect(search.body.data.tickets).to.have.length(1);
    expect(search.body.data.tickets[0].id).to.equal(created[0]!.body.data.ticket.id);

    const mismatch = await call('/v1/tickets', {
      key,
      method: 'POST',
      body: { ...body, title: `${title} (changed)` },
      headers: { 'Idempotency-Key': 'e2e-create' },
    });
    expect(mismatch.status).to.equal(409);
  });
});
