/**
 * Webhook tooling through the real fleet, as an integrator uses it with a real
 * local receiver: read one subscription; PATCH its url, events and is_active (a paused one gets
 * nothing, not even later); a signed ping answered with its outcome; secret rotation with both
 * signatures during the overlap; the delivery log's filters and body excerpts; bulk redelivery of
 * failed deliveries; ticket.deleted, ticket.restored and ticket.merged delivered; the OpenAPI
 * document's `webhooks` section, one payload type per event in a client generated from it.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import { SUBSCRIBABLE_EVENT_TYPES } from '@tix/protos';
import { fleet } from '../support/fleet.js';
import {
  createKey,
  createProject,
  createUser,
  createTicket,
  createTicketType,
  type ProjectFixture,
} from '../support/fixtures.js';
import { request } from '../support/http.js';
import {
  hexSignatureValid,
  standardSignatureMatches,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhook-receiver.js';
import { signIn } from '../support/session.js';

describe('webhook tooling through the fleet', function () {
  this.timeout(90_000);
  let project: ProjectFixture;
  let typeId: number;
  let key: string;
  let receiver: WebhookReceiver;

  before(async () => {
    project = await createProject();
    typeId = (await createTicketType(project.slug)).id;
    key = (await createKey({ project: project.slug, role: 'admin' })).key;
  });
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    // No subscription of one test may see the next test's events.
    const listed = await request('/v1/webhooks', { key });
    for (const hook of listed.body.data.webhooks as { id: number }[]) {
      await request(`/v1/webhooks/${hook.id}`, { method: 'DELETE', key });
    }
    await receiver.close();
  });

  async function subscribe(events: string[], url = receiver.url) {
    const response = await request('/v1/webhooks', {
      method: 'POST',
      key,
      body: { url, events, project_id: project.id },
    });
    expect(response.status, response.text).to.equal(201);
    return response.body.data.webhook as { id: number; secret: string };
  }

  const newTicket = (title: string, extra: Record<string, unknown> = {}) =>
    createTicket(key, { ticket_type_id: typeId, title, ...extra });

  async function deliveries(id: number, query = '') {
    const response = await request(`/v1/webhooks/${id}/deliveries${query}`, { key });
    expect(response.status, response.text).to.equal(200);
    return response.body.data as { deliveries: any[]; pagination: { total: number } };
  }

  it('GET /webhooks/{id}: the subscription without its secret; 404 for another user, 400 for a bad id', async () => {
    const hook = await subscribe(['ticket.created']);
    const found = await request(`/v1/webhooks/${hook.id}`, { key });
    expect(found.status, found.text).to.equal(200);
    expect(found.body.data.webhook).to.deep.equal({
      id: hook.id,
      url: receiver.url,
      events: ['ticket.created'],
      is_active: true,
      created_at: (hook as any).created_at,
      project_id: project.id,
      previous_secret_expires_at: null,
    });
    const agent = (await createKey({ project: project.slug, scopes: 'tickets:read,tickets:write' })).key;
    const hidden = await request(`/v1/webhooks/${hook.id}`, { key: agent });
    expect(hidden.status).to.equal(404);
    expect(hidden.body.error!.message).to.equal('Webhook not found');
    expect((await request('/v1/webhooks/abc', { key })).status).to.equal(400);
    const readOnly = (await createKey({ project: project.slug, scopes: 'tickets:read' })).key;
    const refused = await request(`/v1/webhooks/${hook.id}`, {
      method: 'PATCH',
      key: readOnly,
      body: { is_active: false },
    });
    expect(refused.status).to.equal(403);
  });

  it('PATCH changes url and events (validated like create) and pauses: nothing is queued or sent until resumed', async () => {
    const first = await subscribe(['ticket.created']);
    const other = await startWebhookReceiver();
    try {
      for (const [body, field] of [
        [{}, 'body'],
        [{ url: 'ftp://x.test/' }, 'url'],
        [{ events: ['ticket.created', 'comment.updated'] }, 'events'],
        [{ events: [] }, 'events'],
        [{ is_active: 'no' }, 'is_active'],
      ] as const) {
        const refused = await request(`/v1/webhooks/${first.id}`, { method: 'PATCH', key, body });
        expect(refused.status, JSON.stringify(body)).to.equal(422);
        expect(refused.body.error!.validation_errors, JSON.stringify(body)).to.have.property(field);
      }
      const moved = await request(`/v1/webhooks/${first.id}`, {
        method: 'PATCH',
        key,
        body: { url: other.url, events: ['ticket.created', 'ticket.updated'] },
      });
      expect(moved.status, moved.text).to.equal(200);
      expect(moved.body.data.webhook).to.include({ url: other.url, is_active: true });
      expect(moved.body.data.webhook.events).to.deep.equal(['ticket.created', 'ticket.updated']);
      await newTicket('To the new URL');
      await eventually(() => other.received.length === 1, 15_000);
      expect(receiver.received).to.have.length(0);

      const paused = await request(`/v1/webhooks/${first.id}`, {
        method: 'PATCH',
        key,
        body: { is_active: false },
      });
      expect(paused.status, paused.text).to.equal(200);
      expect(paused.body.data.webhook.is_active).to.equal(false);
      const whilePaused = await newTicket('While paused');
      // A marker subscription proves the event went through the fleet while the paused one got nothing.
      const marker = await subscribe(['ticket.updated']);
      const touched = await request(`/v1/tickets/${whilePaused.id}`, {
        method: 'PUT',
        key,
        body: { title: 'While paused, edited', version: whilePaused.version },
      });
      expect(touched.status, touched.text).to.equal(200);
      await eventually(() => receiver.received.length === 1, 15_000);
      await delay(500);
      expect(other.received).to.have.length(1);
      expect((await deliveries(first.id)).pagination.total).to.equal(1);
      const redeliverPaused = await request(`/v1/webhooks/${first.id}/deliveries/redeliver`, {
        method: 'POST',
        key,
        body: { since: new Date(Date.now() - 60_000).toISOString() },
      });
      expect(redeliverPaused.status).to.equal(409);
      await request(`/v1/webhooks/${marker.id}`, { method: 'DELETE', key });

      const resumed = await request(`/v1/webhooks/${first.id}`, {
        method: 'PATCH',
        key,
        body: { is_active: true },
      });
      expect(resumed.body.data.webhook.is_active).to.equal(true);
      await newTicket('After resume');
      await eventually(() => other.received.length === 2, 15_000);
      expect(other.received.map((entry) => entry.json.data.title)).to.deep.equal([
        'To the new URL',
        'After resume',
      ]);
    } finally {
      await other.close();
    }
  });

  it('ping: a signed ping delivery, its outcome answered, nothing in the delivery log', async () => {
    const hook = await subscribe(['ticket.created']);
    receiver.answer(200, 'pong');
    const ping = await request(`/v1/webhooks/${hook.id}/ping`, { method: 'POST', key });
    expect(ping.status, ping.text).to.equal(200);
    expect(ping.body.data.ping).to.include({
      ok: true,
      response_code: 200,
      error: null,
      response_body: 'pong',
      response_body_truncated: false,
    });
    expect(receiver.received).to.have.length(1);
    const [entry] = receiver.received;
    expect(entry!.json).to.deep.include({
      event: 'ping',
      data: { webhook_id: hook.id, project_id: project.id },
    });
    expect(entry!.headers['x-webhook-event']).to.equal('ping');
    expect(entry!.headers['webhook-id']).to.equal(ping.body.data.ping.event_id);
    expect(ping.body.data.ping.request_body).to.equal(entry!.raw.toString('utf8'));
    expect(hexSignatureValid(hook.secret, entry!)).to.equal(true);
    expect(standardSignatureMatches(hook.secret, entry!)).to.deep.equal([true]);

    receiver.answer(503, 'down for maintenance');
    const failed = await request(`/v1/webhooks/${hook.id}/ping`, { method: 'POST', key });
    expect(failed.status).to.equal(200);
    expect(failed.body.data.ping).to.include({
      ok: false,
      response_code: 503,
      error: 'HTTP 503',
      response_body: 'down for maintenance',
    });
    expect(receiver.received).to.have.length(2); // one attempt, no retries
    expect((await deliveries(hook.id)).pagination.total).to.equal(0);
  });

  it('rotate-secret: the new secret once; during the overlap webhook-signature carries both, X-Webhook-Signature the new', async () => {
    const hook = await subscribe(['ticket.created']);
    for (const overlap of [-1, 604_801, 1.5, '60']) {
      const refused = await request(`/v1/webhooks/${hook.id}/rotate-secret`, {
        method: 'POST',
        key,
        body: { overlap_seconds: overlap },
      });
      expect(refused.status, String(overlap)).to.equal(422);
      expect(refused.body.error!.validation_errors).to.have.property('overlap_seconds');
    }
    const rotated = await request(`/v1/webhooks/${hook.id}/rotate-secret`, {
      method: 'POST',
      key,
      body: { overlap_seconds: 3600 },
    });
    expect(rotated.status, rotated.text).to.equal(200);
    const fresh = rotated.body.data.webhook.secret as string;
    expect(fresh)
      .to.match(/^whsec_/)
      .and.not.equal(hook.secret);
    const expires = Date.parse(rotated.body.data.webhook.previous_secret_expires_at);
    expect(expires - Date.now()).to.be.within(3_500_000, 3_600_500);
    expect((await request(`/v1/webhooks/${hook.id}`, { key })).body.data.webhook).to.not.have.property(
      'secret',
    );

    await newTicket('During the overlap');
    await eventually(() => receiver.received.length === 1, 15_000);
    const during = receiver.received[0]!;
    expect(hexSignatureValid(fresh, during)).to.equal(true);
    expect(hexSignatureValid(hook.secret, during)).to.equal(false);
    expect(standardSignatureMatches(fresh, during)).to.deep.equal([true, false]);
    expect(standardSignatureMatches(hook.secret, during)).to.deep.equal([false, true]);

    // A rotation without overlap: only the newest secret signs from now on.
    const again = await request(`/v1/webhooks/${hook.id}/rotate-secret`, {
      method: 'POST',
      key,
      body: { overlap_seconds: 0 },
    });
    expect(again.status, again.text).to.equal(200);
    expect(again.body.data.webhook.previous_secret_expires_at).to.equal(null);
    const newest = again.body.data.webhook.secret as string;
    const ping = await request(`/v1/webhooks/${hook.id}/ping`, { method: 'POST', key });
    expect(ping.body.data.ping.ok).to.equal(true);
    const after = receiver.received.at(-1)!;
    expect(standardSignatureMatches(newest, after)).to.deep.equal([true]);
    expect(hexSignatureValid(newest, after)).to.equal(true);
  });

  it('the delivery log: filters by status, event and time (400 on bad values), bodies cut at 4 KiB and flagged', async () => {
    const hook = await subscribe(['ticket.created', 'ticket.updated']);
    const start = new Date().toISOString();
    receiver.answer(200, 'x'.repeat(5000));
    const big = await newTicket('Long one', { description: 'd'.repeat(4900) });
    await eventually(
      async () => (await deliveries(hook.id, '?status=delivered')).pagination.total === 1,
      15_000,
    );
    receiver.answer(500, 'nope');
    await request(`/v1/tickets/${big.id}`, {
      method: 'PUT',
      key,
      body: { title: 'Long one, edited', version: big.version },
    });
    await eventually(
      async () => (await deliveries(hook.id, '?status=failed')).pagination.total === 1,
      15_000,
    );

    const delivered = (await deliveries(hook.id, '?status=delivered')).deliveries[0];
    expect(delivered.event).to.equal('ticket.created');
    expect(delivered.request_body_truncated).to.equal(true);
    expect(Buffer.byteLength(delivered.request_body)).to.equal(4096);
    expect(receiver.received[0]!.raw.toString('utf8').startsWith(delivered.request_body)).to.equal(true);
    expect(delivered.attempts[0].response_body).to.equal('x'.repeat(4096));
    expect(delivered.attempts[0].response_body_truncated).to.equal(true);

    const failed = (await deliveries(hook.id, '?status=failed&event=ticket.updated')).deliveries;
    expect(failed).to.have.length(1);
    expect(failed[0].attempts.map((attempt: any) => attempt.response_body)).to.deep.equal([
      'nope',
      'nope',
      'nope',
    ]);
    expect((await deliveries(hook.id, '?event=ticket.created')).pagination.total).to.equal(1);
    expect((await deliveries(hook.id, `?since=${encodeURIComponent(start)}`)).pagination.total).to.equal(2);
    expect((await deliveries(hook.id, `?until=${encodeURIComponent(start)}`)).pagination.total).to.equal(0);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await deliveries(hook.id, `?since=${encodeURIComponent(future)}`)).pagination.total).to.equal(0);

    for (const query of [
      '?status=lost',
      '?event=ticket.exploded',
      '?since=yesterday',
      '?until=2026-13-01T00:00:00Z',
      `?since=${encodeURIComponent(future)}&until=${encodeURIComponent(start)}`,
      '?colour=blue',
    ]) {
      const refused = await request(`/v1/webhooks/${hook.id}/deliveries${query}`, { key });
      expect(refused.status, query).to.equal(400);
      expect(refused.body.ok, query).to.equal(false);
    }
  });

  it('bulk redelivery: every failed delivery since a time, once; a second call queues nothing', async () => {
    const hook = await subscribe(['ticket.created']);
    receiver.answer(500);
    const since = new Date(Date.now() - 1_000).toISOString();
    await newTicket('Bulk one');
    await newTicket('Bulk two');
    await eventually(
      async () => (await deliveries(hook.id, '?status=failed')).pagination.total === 2,
      20_000,
    );
    expect(receiver.received).to.have.length(6);

    for (const [body, field] of [
      [{}, 'since'],
      [{ since: 'last week' }, 'since'],
      [{ since, status: 'delivered' }, 'status'],
    ] as const) {
      const refused = await request(`/v1/webhooks/${hook.id}/deliveries/redeliver`, {
        method: 'POST',
        key,
        body,
      });
      expect(refused.status, JSON.stringify(body)).to.equal(422);
      expect(refused.body.error!.validation_errors).to.have.property(field);
    }
    const later = new Date(Date.now() + 60_000).toISOString();
    const none = await request(`/v1/webhooks/${hook.id}/deliveries/redeliver`, {
      method: 'POST',
      key,
      body: { since: later },
    });
    expect(none.body.data).to.deep.equal({ queued: 0, remaining: 0 });

    receiver.answer(200);
    const bulk = await request(`/v1/webhooks/${hook.id}/deliveries/redeliver`, {
      method: 'POST',
      key,
      body: { since, status: 'failed' },
    });
    expect(bulk.status, bulk.text).to.equal(202);
    expect(bulk.body.data).to.deep.equal({ queued: 2, remaining: 0 });
    await eventually(
      async () => (await deliveries(hook.id, '?status=delivered')).pagination.total === 2,
      15_000,
    );
    const delivered = receiver.received.slice(6);
    expect(delivered.map((entry) => entry.json.data.title).sort()).to.deep.equal(['Bulk one', 'Bulk two']);
    // The same events (webhook-id) as the failed attempts.
    const failedIds = new Set(receiver.received.slice(0, 6).map((entry) => entry.headers['webhook-id']));
    for (const entry of delivered) expect(failedIds.has(entry.headers['webhook-id'])).to.equal(true);

    const again = await request(`/v1/webhooks/${hook.id}/deliveries/redeliver`, {
      method: 'POST',
      key,
      body: { since },
    });
    expect(again.body.data).to.deep.equal({ queued: 0, remaining: 0 });
  });

  it('ticket.deleted, ticket.restored and ticket.merged are subscribable and delivered with the ticket', async () => {
    await subscribe(['ticket.deleted', 'ticket.restored', 'ticket.merged']);
    const doomed = await newTicket('Deleted then restored');
    expect((await request(`/v1/tickets/${doomed.id}`, { method: 'DELETE', key })).status).to.equal(200);
    await eventually(() => receiver.received.length === 1, 15_000);
    const restored = await request(`/v1/tickets/${doomed.id}/restore`, { method: 'POST', key });
    expect(restored.status, restored.text).to.equal(200);
    await eventually(() => receiver.received.length === 2, 15_000);
    const original = await newTicket('Original');
    const duplicate = await newTicket('Duplicate');
    const merged = await request(`/v1/tickets/${duplicate.id}/merge`, {
      method: 'POST',
      key,
      body: { target_id: original.id },
    });
    expect(merged.status, merged.text).to.equal(200);
    await eventually(() => receiver.received.length === 3, 15_000);
    await delay(500);
    const events = receiver.received.map((entry) => entry.json);
    expect(events.map((event) => event.event)).to.deep.equal([
      'ticket.deleted',
      'ticket.restored',
      'ticket.merged',
    ]);
    expect(events[0]!.data.id).to.equal(doomed.id);
    expect(events[1]!.data).to.deep.equal(restored.body.data.ticket);
    expect(events[2]!.data.id).to.equal(duplicate.id);
    expect(events[2]!.data.merged_into_id).to.equal(original.id);
  });

  it('the session host: an admin reads, pauses, pings and rotates; an agent is refused', async () => {
    const hook = await subscribe(['ticket.created']);
    const inProject = `project=${project.slug}`;
    const password = 'correct horse battery staple';
    const admin = await signIn((await createUser('admin', { password })).email, password);
    const agent = await signIn((await createUser('agent', { password })).email, password);
    const found = await admin.call('GET', `/webhooks/${hook.id}?${inProject}`);
    expect(found.status, found.text).to.equal(200);
    expect(found.body.data.webhook.id).to.equal(hook.id);
    const paused = await admin.call('PATCH', `/webhooks/${hook.id}?${inProject}`, { is_active: false });
    expect(paused.body.data.webhook.is_active).to.equal(false);
    const ping = await admin.call('POST', `/webhooks/${hook.id}/ping?${inProject}`);
    expect(ping.body.data.ping.ok, ping.text).to.equal(true);
    const rotated = await admin.call('POST', `/webhooks/${hook.id}/rotate-secret?${inProject}`, {});
    expect(rotated.body.data.webhook.secret, rotated.text).to.match(/^whsec_/);
    const since = new Date(Date.now() - 60_000).toISOString();
    for (const [method, path, body] of [
      ['GET', `/webhooks/${hook.id}`, undefined],
      ['PATCH', `/webhooks/${hook.id}`, { is_active: true }],
      ['POST', `/webhooks/${hook.id}/ping`, undefined],
      ['POST', `/webhooks/${hook.id}/rotate-secret`, {}],
      ['POST', `/webhooks/${hook.id}/deliveries/redeliver`, { since }],
    ] as const) {
      const refused = await agent.call(method, `${path}?${inProject}`, body);
      expect(refused.status, `${method} ${path}`).to.equal(403);
    }
  });

  it('the OpenAPI document validates its webhooks: one entry per event, and a generated client has each payload type', async () => {
    const response = await fetch(`${fleet().appUrl}/api/openapi`);
    expect(response.status).to.equal(200);
    const document = (await response.json()) as any;
    const events = [...SUBSCRIBABLE_EVENT_TYPES, 'ping'];
    expect(Object.keys(document.webhooks).sort()).to.deep.equal([...events].sort());
    for (const event of events) {
      const ref = document.webhooks[event].post.requestBody.content['application/json'].schema.$ref as string;
      const schema = document.components.schemas[ref.split('/').at(-1)!];
      expect(schema.properties.event.enum, event).to.deep.equal([event]);
      expect(schema.required, event).to.include.members(['event', 'timestamp', 'data']);
    }
    // The console's generator (openapi-typescript), run on the served document.
    const here = path.dirname(fileURLToPath(import.meta.url));
    const fromWeb = createRequire(path.resolve(here, '../../gateway/web/package.json'));
    const { default: openapiTS, astToString } = (await import(fromWeb.resolve('openapi-typescript'))) as {
      default: (schema: unknown) => Promise<unknown>;
      astToString: (ast: unknown) => string;
    };
    const types = astToString(await openapiTS(document));
    const at = types.indexOf('export interface webhooks');
    expect(at, 'a webhooks interface').to.be.at.least(0);
    const webhooks = types.slice(at);
    for (const event of events) {
      expect(webhooks, event).to.include(`"${event}": {`);
    }
    expect(types).to.match(
      /TicketMergedEvent: \{[\s\S]*?event: "ticket\.merged";[\s\S]*?data: components\["schemas"\]\["Ticket"\]/,
    );
    expect(types).to.match(/CommentCreatedEvent: \{[\s\S]*?data: components\["schemas"\]\["Comment"\]/);
  });
});
