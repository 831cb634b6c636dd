/**
 * The webhook routes against the real lookup and webhook services (fresh databases): the spec's
 * webhook endpoints and the delivery log through the gateway, with project context, scopes,
 * ownership and validation answered as the spec's envelopes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { eventually, expectError, suiteFixture } from '@tix/kit/testing';
import { startTestWebhookServer } from '@tix/webhook-service/testing';
import { apiCaller } from '../support/test-gateway.js';
import { apiKeyMaker, createAlphaAndBeta } from '../support/lookup-seed.js';
import { startRealServices } from '../support/real-services.js';

describe('webhook routes + real webhook and lookup services (fresh databases)', function () {
  this.timeout(60_000);
  /** A receiver answering `receiverStatus` to every delivery. */
  let receiver: http.Server;
  let receiverUrl = '';
  let receiverStatus = 500;
  const ids = { alpha: 0, beta: 0 };
  const keys = { ada: '', al: '', readOnly: '', scopedBeta: '' };

  const fleet = suiteFixture(() =>
    startRealServices({
      label: 'gateway_webhooks',
      seed: async (admin) => {
        Object.assign(ids, await createAlphaAndBeta(admin));
        await admin.CreateUser({ name: 'Ada', email: 'ada@example.com', role: 'admin' });
        await admin.CreateUser({ name: 'Al', email: 'al@example.com', role: 'agent' });
        const key = (email: string, scopes: string[], project_slug?: string) =>
          apiKeyMaker(
            admin,
            email,
            (named, slug) => `${email} ${named.join(' ')} ${slug ?? ''}`,
          )(scopes, project_slug);
        keys.ada = await key('ada@example.com', ['tickets:read', 'tickets:write']);
        keys.al = await key('al@example.com', ['tickets:read', 'tickets:write']);
        keys.readOnly = await key('ada@example.com', ['tickets:read']);
        keys.scopedBeta = await key('ada@example.com', ['tickets:read', 'tickets:write'], 'beta');
      },
      peers: {
        webhooks: () => startTestWebhookServer({ label: 'gateway_webhooks', attemptTimeoutMs: 1_000 }),
      },
    }),
  );

  before(async () => {
    receiver = http.createServer((incoming, outgoing) => {
      incoming.resume();
      incoming.on('end', () => outgoing.writeHead(receiverStatus).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/log`;
  });

  after(async () => {
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const call = apiCaller(
    () => fleet.gateway,
    () => keys.ada,
  );

  async function create(body: Record<string, unknown>, key = keys.ada): Promise<Record<string, any>> {
    const response = await call('POST', '/webhooks', body, key);
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    // Location names the subscription: GET /webhooks/{id} (in the request's project context).
    expect(response.headers.get('location')).to.equal(`/v1/webhooks/${response.body.data.webhook.id}`);
    return response.body.data.webhook as Record<string, any>;
  }

  it('creates (201, secret shown once), lists without the secret, deletes (200 Webhook deleted)', async () => {
    const created = await create({
      url: 'http://127.0.0.1:9/hook',
      events: ['ticket.created', 'comment.created'],
      project_id: ids.alpha,
    });
    expect(created).to.deep.equal({
      id: created.id,
      url: 'http://127.0.0.1:9/hook',
      events: ['ticket.created', 'comment.created'],
      is_active: true,
      created_at: created.created_at,
      project_id: ids.alpha,
      secret: created.secret,
    });
    expect(created.secret).to.match(/^whsec_/);
    const { secret: _secret, ...listed } = created;
    expect((await call('GET', `/webhooks?project_id=${ids.alpha}`)).body).to.deep.equal({
      ok: true,
      data: { webhooks: [listed], count: 1 },
    });
    expect((await call('GET', '/webhooks?project=alpha', undefined, keys.al)).body).to.deep.equal({
      ok: true,
      data: { webhooks: [], count: 0 },
    });
    expectError(
      await call('DELETE', `/webhooks/${created.id}?project_id=${ids.alpha}`, undefined, keys.al),
      404,
      'Webhook not found',
    );
    expect((await call('DELETE', `/webhooks/${created.id}?project_id=${ids.alpha}`)).body).to.deep.equal({
      ok: true,
      data: { message: 'Webhook deleted' },
    });
    expectError(
      await call('DELETE', `/webhooks/${created.id}?project_id=${ids.alpha}`),
      404,
      'Webhook not found',
    );
    expect((await call('GET', `/webhooks?project_id=${ids.alpha}`)).body.data).to.deep.equal({
      webhooks: [],
      count: 0,
    });
  });

  it('project context: body project_id for unscoped keys, the scope for scoped ones', async () => {
    const body = { url: 'http://127.0.0.1:9/a', events: ['ticket.updated'] };
    expectError(await call('POST', '/webhooks', body), 400, 'Project ID is required.');
    const scoped = await create({ ...body, project_id: ids.beta }, keys.scopedBeta);
    expect(scoped.project_id).to.equal(ids.beta);
    expectError(
      await call('POST', '/webhooks', { ...body, project_id: ids.alpha }, keys.scopedBeta),
      404,
      'Project not found',
    );
    expectError(await call('POST', '/webhooks', body, keys.scopedBeta), 422, 'Validation failed', {
      project_id: ['Project ID is required'],
    });
    expectError(
      await call('POST', `/webhooks?project_id=${ids.alpha}`, { ...body, project_id: ids.beta }),
      422,
      'Validation failed',
      { project_id: ['project_id must be the project of the request'] },
    );
    expectError(await call('POST', '/webhooks', { ...body, project_id: 999_999 }), 404, 'Project not found');
    expect((await call('GET', '/webhooks', undefined, keys.scopedBeta)).body.data.count).to.equal(1);
  });

  it('scopes: GETs need tickets:read, writes tickets:write (403)', async () => {
    expectError(
      await call(
        'POST',
        '/webhooks',
        { url: 'http://x.test/', events: ['ticket.created'], project_id: ids.alpha },
        keys.readOnly,
      ),
      403,
      'Missing required scope: tickets:write',
    );
    expectError(
      await call('DELETE', `/webhooks/1?project_id=${ids.alpha}`, undefined, keys.readOnly),
      403,
      'Missing required scope: tickets:write',
    );
    expect(
      (await call('GET', `/webhooks?project_id=${ids.alpha}`, undefined, keys.readOnly)).status,
    ).to.equal(200);
  });

  it('validation: 422 per field, from the gateway (shapes) and the service (meanings); 400 for ids', async () => {
    expectError(await call('POST', '/webhooks', { project_id: ids.alpha }), 422, 'Validation failed', {
      url: ['URL is required'],
      events: ['Events are required'],
    });
    expectError(
      await call('POST', '/webhooks', {
        url: 'gopher://x.test/',
        events: ['ticket.created', 'comment.deleted'],
        project_id: ids.alpha,
        secret: 'too short',
      }),
      422,
      'Validation failed',
      {
        url: ['URL must be an absolute http or https URL'],
        events: [
          'Unknown event types: "comment.deleted". Allowed: ticket.created, ticket.updated, ticket.status_changed, ' +
            'ticket.assigned, comment.created, ticket.deleted, ticket.merged, ticket.restored',
        ],
        secret: ['Secret must be 16 to 256 printable ASCII characters without spaces'],
      },
    );
    expectError(await call('DELETE', `/webhooks/abc?project_id=${ids.alpha}`), 400, 'Invalid webhook id');
    expectError(
      await call('GET', `/webhooks/0/deliveries?project_id=${ids.alpha}`),
      400,
      'Invalid webhook id',
    );
    expectError(
      await call('POST', `/webhooks/1/deliveries/nope/redeliver?project_id=${ids.alpha}`),
      400,
      'Invalid delivery id',
    );
    expectError(await call('PATCH', `/webhooks/1?project_id=${ids.alpha}`, {}), 422, 'Validation failed', {
      body: ['Give at least one of url, events, is_active'],
    });
  });

  it('the delivery log: paginated newest first, 404 for another user, redeliver 202 with the new delivery', async () => {
    const hook = await create({ url: receiverUrl, events: ['ticket.created'], project_id: ids.alpha });
    const eventIds = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b'];
    const failedCount = async () => {
      const log = await call('GET', `/webhooks/${hook.id}/deliveries?project_id=${ids.alpha}`);
      return (log.body.data.deliveries as { status: string }[]).filter((entry) => entry.status === 'failed')
        .length;
    };
    receiverStatus = 500;
    for (const [index, id] of eventIds.entries()) {
      await fleet.webhooks.fanOut({
        id,
        type: 'ticket.created',
        occurred_at: '2026-11-21T10:00:00.000Z',
        source: 'tickets',
        project_id: ids.alpha,
        data: { id: 1 },
      });
      // One at a time, so that "newest first" is well defined.
      await eventually(async () => (await failedCount()) === index + 1, 10_000);
    }
    const page = await call('GET', `/webhooks/${hook.id}/deliveries?project_id=${ids.alpha}&per_page=1`);
    expect(page.status).to.equal(200);
    expect(page.body.data.pagination).to.deep.equal({ total: 2, page: 1, per_page: 1, total_pages: 2 });
    const [newest] = page.body.data.deliveries;
    expect(newest).to.deep.equal({
      id: newest.id,
      webhook_id: hook.id,
      event: 'ticket.created',
      event_id: eventIds[1],
      status: 'failed',
      attempts: [1, 2, 3].map((number, index) => ({
        number,
        response_code: 500,
        duration_ms: newest.attempts[index].duration_ms,
        error: 'HTTP 500',
        attempted_at: newest.attempts[index].attempted_at,
        response_body: '',
        response_body_truncated: false,
      })),
      created_at: newest.created_at,
      updated_at: newest.updated_at,
      request_body: newest.request_body,
      request_body_truncated: false,
    });
    expect(JSON.parse(newest.request_body)).to.include({ event: 'ticket.created' });
    expectError(
      await call('GET', `/webhooks/${hook.id}/deliveries?project_id=${ids.alpha}`, undefined, keys.al),
      404,
      'Webhook not found',
    );
    receiverStatus = 200;
    const redelivered = await call(
      'POST',
      `/webhooks/${hook.id}/deliveries/${newest.id}/redeliver?project_id=${ids.alpha}`,
    );
    expect(redelivered.status, JSON.stringify(redelivered.body)).to.equal(202);
    expect(redelivered.body.data.delivery).to.deep.include({
      webhook_id: hook.id,
      event_id: eventIds[1],
      event: 'ticket.created',
      status: 'pending',
      attempts: [],
    });
    expectError(
      await call(
        'POST',
        `/webhooks/${hook.id}/deliveries/00000000-0000-4000-8000-0000000000ff/redeliver?project_id=${ids.alpha}`,
      ),
      404,
      'Delivery not found',
    );
    const all = await eventually(async () => {
      const log = await call('GET', `/webhooks/${hook.id}/deliveries?project_id=${ids.alpha}`);
      return log.body.data.deliveries[0]?.status === 'delivered' ? log : undefined;
    }, 10_000);
    expect(all.body.data.pagination.total).to.equal(3);
    expect(all.body.data.deliveries[0]).to.deep.include({
      id: redelivered.body.data.delivery.id,
      event_id: eventIds[1],
      status: 'delivered',
    });
  });
});
