/**
 * Webhooks through the real fleet (gateway -> ticket service -> outbox -> RabbitMQ -> webhook
 * service -> a local receiver), as an integrator sees them: subscribe, change tickets through the
 * API, receive each event once with both signatures valid over the raw body and the ticket exactly
 * as the API answered it; the delivery log; redelivery; nothing after DELETE.
 */
import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import {
  createKey,
  createProject,
  createTicket,
  createTicketType,
  type ProjectFixture,
} from '../support/fixtures.js';
import { request } from '../support/http.js';
import { deliveryVerifies, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

describe('webhooks through the fleet', function () {
  this.timeout(60_000);
  let project: ProjectFixture;
  let typeId: number;
  let key: string;
  let receiver: WebhookReceiver;

  before(async () => {
    project = await createProject();
    typeId = (await createTicketType(project.slug)).id;
    key = (await createKey({ project: project.slug, scopes: 'tickets:read,tickets:write' })).key;
  });
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(() => receiver.close());

  async function subscribe(events: string[], withKey = key) {
    const response = await request('/v1/webhooks', {
      method: 'POST',
      key: withKey,
      body: { url: receiver.url, events, project_id: project.id },
    });
    expect(response.status, response.text).to.equal(201);
    return response.body.data.webhook as { id: number; secret: string };
  }

  it('delivers ticket events once each, signed, carrying the ticket as the API answered it', async () => {
    const hook = await subscribe([
      'ticket.created',
      'ticket.updated',
      'ticket.status_changed',
      'ticket.assigned',
    ]);
    const ticket = await createTicket(key, { ticket_type_id: typeId, title: 'Hooked' });
    await eventually(() => receiver.received.length >= 1, 15_000);
    const me = (await request('/v1/users', { key })).body.data.users[0];
    const updated = await request(`/v1/tickets/${ticket.id}`, {
      method: 'PUT',
      key,
      body: { status: 'waiting', assigned_to: me.id, version: ticket.version },
    });
    expect(updated.status, updated.text).to.equal(200);
    await eventually(() => receiver.received.length >= 4, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 500)); // nothing more may follow

    const events = receiver.events();
    expect(events.map((event) => event.event).sort()).to.deep.equal(
      ['ticket.assigned', 'ticket.created', 'ticket.status_changed', 'ticket.updated'].sort(),
    );
    expect(events.find((event) => event.event === 'ticket.created')!.data).to.deep.equal(ticket);
    for (const name of ['ticket.updated', 'ticket.status_changed', 'ticket.assigned']) {
      expect(events.find((event) => event.event === name)!.data, name).to.deep.equal(
        updated.body.data.ticket,
      );
    }
    for (const entry of receiver.received) {
      expect(deliveryVerifies(hook.secret, entry)).to.equal(true);
      expect(entry.headers['x-webhook-event']).to.equal(JSON.parse(entry.raw.toString()).event);
    }
    expect(new Set(receiver.received.map((entry) => entry.headers['webhook-id'])).size).to.equal(4);

    const log = await request(`/v1/webhooks/${hook.id}/deliveries`, { key });
    expect(log.status, log.text).to.equal(200);
    expect(log.body.data.pagination.total).to.equal(4);
    expect(log.body.data.deliveries.map((delivery: { status: string }) => delivery.status)).to.deep.equal(
      Array(4).fill('delivered'),
    );
    expect((await request(`/v1/webhooks/${hook.id}`, { method: 'DELETE', key })).status).to.equal(200);
  });

  it('a failing receiver: 3 attempts, failed in the log; redeliver sends it again', async () => {
    const hook = await subscribe(['ticket.created']);
    receiver.answer(500);
    await createTicket(key, { ticket_type_id: typeId, title: 'Failing' });
    const failed = await eventually(async () => {
      const log = await request(`/v1/webhooks/${hook.id}/deliveries`, { key });
      const newest = log.body.data.deliveries[0] as
        { id: string; status: string; attempts: unknown[] } | undefined;
      return newest?.status === 'failed' ? newest : undefined;
    }, 15_000);
    expect(receiver.received).to.have.length(3);
    expect(
      (failed.attempts as { response_code: number }[]).map((attempt) => attempt.response_code),
    ).to.deep.equal([500, 500, 500]);
    receiver.answer(200);
    const again = await request(`/v1/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`, {
      method: 'POST',
      key,
    });
    expect(again.status, again.text).to.equal(202);
    await eventually(() => receiver.received.some((entry) => entry.status === 200), 15_000);
    expect(receiver.received[3]!.raw.equals(receiver.received[0]!.raw)).to.equal(true);
    expect(receiver.received[3]!.headers['webhook-id']).to.equal(receiver.received[0]!.headers['webhook-id']);
    await request(`/v1/webhooks/${hook.id}`, { method: 'DELETE', key });
  });

  it('after DELETE nothing more arrives (another subscriber still gets the same events)', async () => {
    const hook = await subscribe(['ticket.created']);
    const other = await startWebhookReceiver();
    try {
      const otherKey = (await createKey({ project: project.slug, scopes: 'tickets:read,tickets:write' })).key;
      const response = await request('/v1/webhooks', {
        method: 'POST',
        key: otherKey,
        body: { url: other.url, events: ['ticket.created'], project_id: project.id },
      });
      expect(response.status, response.text).to.equal(201);
      const deleted = await request(`/v1/webhooks/${hook.id}`, { method: 'DELETE', key });
      expect(deleted.body).to.deep.equal({ ok: true, data: { message: 'Webhook deleted' } });
      await createTicket(key, { ticket_type_id: typeId, title: 'After delete' });
      await eventually(() => other.received.length === 1, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.received).to.have.length(0);
    } finally {
      await other.close();
    }
  });
});
