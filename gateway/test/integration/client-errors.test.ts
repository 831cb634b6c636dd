/**
 * POST /api/client-errors over real HTTP: a browser with a session (signed in or not) reports an
 * error with its CSRF token; the report is counted and acknowledged with 202, never echoed; bad
 * reports get the envelope's 422, and a missing token (no session at all included) 403.
 */
import { expect } from 'chai';
import { metricsRegistry } from '@tix/kit';
import { expectError, metricValue, suiteFixture } from '@tix/kit/testing';
import { startFakeLookupGateway } from '../support/fake-lookup.js';
import { request } from '../support/test-gateway.js';

describe('browser error reports (POST /api/client-errors)', () => {
  const fake = suiteFixture(() => startFakeLookupGateway());
  let browser: { Cookie: string; 'X-CSRF-Token': string };

  before(async () => {
    const start = await request(`${fake.gateway.appUrl}/api/csrf-token`);
    browser = {
      Cookie: start.headers.get('set-cookie')!.split(';')[0]!,
      'X-CSRF-Token': start.body.data.token as string,
    };
  });

  const report = (body: unknown, headers: Record<string, string> = browser) =>
    request(`${fake.gateway.appUrl}/api/client-errors`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const counted = async () =>
    metricValue(await metricsRegistry.metrics(), 'tix_client_errors_total', { signed_in: 'false' });

  it('acknowledges a report with 202, counts it, and never echoes it', async () => {
    const before = await counted();
    const secret = 'TypeError: <script>alert(1)</script> at board.js:41';
    const response = await report({ message: secret, stack: 'at x', url: '/board', release: 'r1' });
    expect(response.status).to.equal(202);
    expect(response.body).to.deep.equal({ ok: true, data: { message: 'Recorded' } });
    expect(JSON.stringify(response.body)).to.not.contain('script');
    expect(await counted()).to.equal(before + 1);
  });

  it('refuses a report without a message, with an oversized field, or without the CSRF token', async () => {
    expectError(await report({ stack: 'at x' }), 422, 'Validation failed', ['message']);
    expectError(await report({ message: 'x'.repeat(2_001) }), 422, 'Validation failed', {
      message: ['Message must be at most 2000 characters'],
    });
    expectError(await report({ message: 'x' }, { Cookie: browser.Cookie }), 403, 'Invalid CSRF token');
  });

  it('is open before signing in, but not to a caller without any session', async () => {
    const response = await request(`${fake.gateway.appUrl}/api/client-errors`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: 'x' }),
    });
    // No session means no CSRF token: the sign-in gate lets it by, the CSRF check refuses it.
    expectError(response, 403, 'Invalid CSRF token');
  });
});
