/** 402 quotas through real HTTP (Redis counters; the month comes from an injected clock). */
import { expectError } from '@tix/kit/testing';
import { expect } from 'chai';
import { AppError } from '@tix/kit';
import { FULL_KEY, SCOPED_KEY, startFakeLookup, type FakeLookup } from '../support/fake-lookup.js';
import { READ_WRITE_KEY } from '../support/fake-ticket-gateway.js';
import { limitsGatewaysPerTest, type LimitsGateway } from '../support/limits-gateway.js';
import { bearer, request } from '../support/test-gateway.js';

describe('402 quotas', function () {
  this.timeout(30_000);
  let lookup: FakeLookup;
  const { start: gateway } = limitsGatewaysPerTest(() => ({ lookup: lookup.address }));
  const users = (instance: LimitsGateway, key = FULL_KEY) =>
    request(`${instance.apiUrl}/v1/users`, { headers: bearer(key) });

  before(async () => {
    lookup = await startFakeLookup();
  });
  beforeEach(() => {
    // Two keys of user 10, one of user 11.
    lookup.override('AuthenticateApiKey', (input: { key: string }) => {
      const keys: Record<string, number[]> = {
        [FULL_KEY]: [1, 10],
        [READ_WRITE_KEY]: [4, 10],
        [SCOPED_KEY]: [2, 11],
      };
      const found = keys[input.key];
      if (!found) throw AppError.unauthenticated('API key is not valid');
      return { key_id: found[0], user_id: found[1], role: 'agent', scopes: ['tickets:read'] };
    });
  });
  afterEach(() => lookup.reset());
  after(() => lookup.stop());

  it('QUOTA_MONTHLY_LIMIT: per key owner per UTC month, 402 with scalar details, new month resets', async () => {
    // A month still to come: Redis expires the counters at the month's end in real time, so a month
    // already past would find them gone (the test failed from 2026-12-02 on, with 2026-11).
    let now = Date.UTC(2099, 10, 30, 23, 0);
    const instance = await gateway({ limits: { quotaMonthlyLimit: 3 }, now: () => now });
    expect((await users(instance, FULL_KEY)).status).to.equal(200);
    expect((await users(instance, READ_WRITE_KEY)).status).to.equal(200);
    // Failed calls count too (404 here): they were served.
    expect((await request(`${instance.apiUrl}/v1/nowhere`, { headers: bearer(FULL_KEY) })).status).to.equal(
      404,
    );
    const refused = await users(instance, READ_WRITE_KEY);
    expectError(refused, 402, 'Monthly API call limit reached', {
      quota: 'monthly',
      limit: 3,
      used: 3,
      reset_at: '2099-12-01T00:00:00Z',
    });
    expect(refused.headers.get('x-ratelimit-limit')).to.equal('100');
    // Another owner is not affected; refusals did not count.
    expect((await users(instance, SCOPED_KEY)).status).to.equal(200);
    now = Date.UTC(2099, 11, 1, 0, 0, 1);
    expect((await users(instance, FULL_KEY)).status).to.equal(200);
  });

  it('QUOTA_FREE_ALLOWANCE: a lifetime allowance per owner, reset_at null', async () => {
    let now = Date.UTC(2026, 0, 15);
    const instance = await gateway({ limits: { quotaFreeAllowance: 2 }, now: () => now });
    expect((await users(instance)).status).to.equal(200);
    expect((await users(instance)).status).to.equal(200);
    now = Date.UTC(2027, 5, 1);
    const refused = await users(instance);
    expect(refused.status).to.equal(402);
    expect(refused.body.error).to.deep.equal({
      code: 402,
      message: 'Free API allowance exhausted',
      validation_errors: { quota: 'free_allowance', limit: 2, used: 2, reset_at: null },
    });
  });

  it('is off by default: no counting, no 402', async () => {
    const instance = await gateway({});
    for (let i = 0; i < 5; i += 1) expect((await users(instance)).status).to.equal(200);
  });
});
