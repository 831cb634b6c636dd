/**
 * Metrics through the running fleet: every process serves /metrics on its own port, labelled with its
 * name; a ticket created through the gateway shows up as an HTTP request on its route pattern, as gRPC
 * calls on both sides (gateway -> tickets -> lookup), and as an event through the tickets outbox.
 */
import { expect } from 'chai';
import { eventually, metricValue, scrapeMetrics } from '@tix/kit/testing';
import { createKey, createProject, createTicketType } from '../support/fixtures.js';
import { fleet } from '../support/fleet.js';
import { request } from '../support/http.js';

describe('metrics of the fleet', () => {
  const scrape = (name: 'gateway' | 'tickets' | 'lookup') => {
    const url = fleet().metricsUrls[name];
    if (!url) throw new Error(`${name} serves no /metrics`);
    return scrapeMetrics(url);
  };

  it('every process serves /metrics on its own port, labelled with its name', async () => {
    for (const name of ['gateway', ...fleet().services] as const) {
      const url = fleet().metricsUrls[name];
      expect(url, name).to.be.a('string');
      const text = await scrapeMetrics(url!);
      expect(metricValue(text, 'process_resident_memory_bytes', { service: name }), name).to.be.greaterThan(
        0,
      );
    }
  });

  it('a ticket created through the gateway is counted at every hop', async () => {
    const project = await createProject();
    const type = await createTicketType(project.slug, { isDefault: true });
    const { key } = await createKey({ project: project.slug });
    const [gatewayBefore, ticketsBefore] = await Promise.all([scrape('gateway'), scrape('tickets')]);

    const created = await request(`/v1/tickets?project=${project.slug}`, {
      method: 'POST',
      key,
      body: { title: 'Metrics are counted', ticket_type_id: type.id },
    });
    expect(created.status, created.text).to.equal(201);

    const delta = (after: string, before: string, name: string, labels: Record<string, string>) =>
      metricValue(after, name, labels) - metricValue(before, name, labels);
    const gatewayAfter = await scrape('gateway');
    expect(
      delta(gatewayAfter, gatewayBefore, 'tix_http_requests_total', {
        method: 'POST',
        route: '/v1/tickets',
        status: '201',
      }),
    ).to.equal(1);
    expect(
      delta(gatewayAfter, gatewayBefore, 'tix_grpc_client_calls_total', {
        target_service: 'tickets',
        method: 'CreateTicket',
        code: 'OK',
      }),
    ).to.equal(1);
    expect(gatewayAfter).not.to.contain(`/v1/tickets?project=`);

    const ticketsAfter = await eventually(async () => {
      const text = await scrape('tickets');
      return metricValue(text, 'tix_outbox_published_total') >
        metricValue(ticketsBefore, 'tix_outbox_published_total')
        ? text
        : undefined;
    });
    expect(
      delta(ticketsAfter, ticketsBefore, 'tix_grpc_server_handled_total', {
        method: 'CreateTicket',
        code: 'OK',
      }),
    ).to.equal(1);
    expect(
      metricValue(ticketsAfter, 'tix_grpc_client_calls_total', { target_service: 'lookup' }),
    ).to.be.greaterThan(0);
  });
});
