/**
 * The gateway counts and times every request by method, route pattern and status: the pattern the
 * request matched (/v1/tickets/:id), never its URL, also when the handler failed; anything answered
 * before a route matched is "unmatched". Real HTTP through the gateway's app, read back from the
 * process's registry as /metrics would show it.
 */
import http from 'node:http';
import { expect } from 'chai';
import { metricsRegistry } from '@tix/kit';
import { metricValue } from '@tix/kit/testing';
import { useFakeTicketGateway } from '../support/fake-ticket-gateway.js';
import { request } from '../support/test-gateway.js';

type Labels = { method: string; route: string; status: string };

describe('gateway HTTP metrics', () => {
  const harness = useFakeTicketGateway();
  let baseline = '';
  beforeEach(async () => {
    baseline = await metricsRegistry.metrics();
  });
  /** Requests counted with `labels` since the test began. */
  const counted = async (labels: Labels) =>
    metricValue(await metricsRegistry.metrics(), 'tix_http_requests_total', labels) -
    metricValue(baseline, 'tix_http_requests_total', labels);
  const timed = async (labels: Labels) =>
    metricValue(await metricsRegistry.metrics(), 'tix_http_request_duration_seconds_count', labels) -
    metricValue(baseline, 'tix_http_request_duration_seconds_count', labels);

  it('labels a request with its route pattern and status, never the raw path', async () => {
    const first = await harness.call('GET', '/tickets/41');
    const second = await harness.call('GET', '/tickets/42');
    expect(first.status).to.equal(second.status);
    const labels = { method: 'GET', route: '/v1/tickets/:id', status: String(first.status) };
    expect(await counted(labels)).to.equal(2);
    expect(await timed(labels)).to.equal(2);
    const text = await metricsRegistry.metrics();
    expect(text).not.to.contain('/v1/tickets/41');
    expect(text).not.to.contain('/v1/tickets/42');
  });

  it('keeps the route of a request whose handler failed (the error envelope comes later)', async () => {
    const response = await harness.call('POST', '/tickets', { body: { title: 42 } });
    expect(response.status).to.be.within(400, 499);
    expect(await counted({ method: 'POST', route: '/v1/tickets', status: String(response.status) })).to.equal(
      1,
    );
  });

  it('counts a known path asked with the wrong method under its pattern, as 405', async () => {
    const response = await harness.call('PUT', '/tickets/7/status');
    expect(response.status).to.equal(405);
    expect(await counted({ method: 'PUT', route: '/v1/tickets/:id/status', status: '405' })).to.equal(1);
  });

  it('counts unknown paths and refusals before routing as "unmatched"', async () => {
    const unknown = await harness.call('GET', '/no/such/thing');
    expect(unknown.status).to.equal(404);
    const anonymous = await request(`${harness.gateway.apiUrl}/v1/tickets/1`);
    expect(anonymous.status).to.equal(401);
    expect(await counted({ method: 'GET', route: 'unmatched', status: '404' })).to.equal(1);
    expect(await counted({ method: 'GET', route: 'unmatched', status: '401' })).to.equal(1);
  });

  it('covers the probes and the session host, and folds unknown methods into OTHER', async () => {
    expect((await request(`${harness.gateway.apiUrl}/healthz`)).status).to.equal(200);
    expect((await request(`${harness.gateway.appUrl}/api/csrf-token`)).status).to.equal(200);
    const status = await new Promise<number>((resolve, reject) => {
      const sent = http.request(`${harness.gateway.apiUrl}/healthz`, { method: 'PROPFIND' }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      sent.on('error', reject);
      sent.end();
    });
    expect(await counted({ method: 'GET', route: '/healthz', status: '200' })).to.equal(1);
    expect(await counted({ method: 'GET', route: '/api/csrf-token', status: '200' })).to.equal(1);
    expect(await counted({ method: 'OTHER', route: '/healthz', status: String(status) })).to.equal(1);
  });
});
