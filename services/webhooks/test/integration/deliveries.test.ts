/**
 * Events in, signed POSTs out: real DomainEvents published to a fresh RabbitMQ vhost, the whole
 * service on a fresh database, a real local receiver. Covers the spec's delivery behaviour (payload,
 * both signatures, 3 attempts with its spacing, failed in the log, subscription stays active),
 * redelivery, deletion stopping even scheduled retries, idempotency by event id, poison messages.
 */
import { expect } from 'chai';
import amqp from 'amqplib';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { createTestVhost, eventually, type TestVhost } from '@tix/kit/testing';
import { SUBSCRIBABLE_EVENT_TYPES, type DomainEvent, type webhook } from '@tix/protos';
import { startTestWebhookServer, type TestWebhookServer } from '../../src/testing.js';
import {
  asUser,
  domainEvent,
  EVENT_TIMESTAMP,
  openPublisher,
  signaturesValid,
  sleep,
  startReceiver,
  type Receiver,
} from './support.js';

const PROJECT = 7;
const OWNER = asUser(11);

describe('webhook deliveries (real broker, database and receiver)', function () {
  this.timeout(60_000);
  let vhost: TestVhost;
  let service: TestWebhookServer;
  let client: ServiceClient<'webhooks'>;
  let receiver: Receiver;
  let publisher: Awaited<ReturnType<typeof openPublisher>>;

  async function subscribe(
    events: string[] = [...SUBSCRIBABLE_EVENT_TYPES],
    url = receiver.url,
  ): Promise<webhook.Webhook__Output> {
    return client.CreateWebhook({ project_id: PROJECT, url, events }, OWNER);
  }

  async function deliveriesOf(id: number): Promise<webhook.Delivery__Output[]> {
    const page = await client.ListDeliveries({ project_id: PROJECT, webhook_id: id }, OWNER);
    return page.deliveries;
  }

  before(async () => {
    vhost = await createTestVhost('webhooks_deliveries');
    service = await startTestWebhookServer({ amqpUrl: vhost.url, attemptTimeoutMs: 1_000, leaseMs: 3_000 });
    client = createServiceClient('webhooks', service.address, { deadlineMs: 10_000 });
    publisher = await openPublisher(vhost.url);
    await eventually(() => service.consumer?.isConsuming(), 10_000);
  });

  beforeEach(async () => {
    receiver = await startReceiver();
  });

  afterEach(async () => {
    // No test's subscriptions may see the next test's events.
    const { webhooks } = await client.ListWebhooks({ project_id: PROJECT }, OWNER);
    for (const hook of webhooks) await client.DeleteWebhook({ project_id: PROJECT, id: hook.id }, OWNER);
    await receiver.close();
  });

  after(async () => {
    await publisher?.close();
    client?.close();
    await service?.stop();
    await vhost?.drop();
  });

  it('delivers each subscribable event type once, with the payload and both signatures valid', async () => {
    const hook = await subscribe();
    const events = SUBSCRIBABLE_EVENT_TYPES.map((type, index) =>
      domainEvent(type, PROJECT, {
        id: index + 1,
        title: `Ticket ${index + 1}`,
        note: 'caf\u00e9 \u{1F600}',
      }),
    );
    for (const event of events) await publisher.publishEvent(event);
    await eventually(() => receiver.requests.length >= events.length, 10_000);
    await sleep(300); // nothing more may follow
    expect(receiver.requests).to.have.length(events.length);
    for (const event of events) {
      const [request] = receiver.byEventId(event.id);
      expect(request, event.type).to.not.equal(undefined);
      expect(request!.method).to.equal('POST');
      expect(request!.path).to.equal('/hook');
      expect(request!.headers['content-type']).to.equal('application/json');
      expect(request!.headers['x-webhook-event']).to.equal(event.type);
      expect(request!.headers['user-agent']).to.equal('Tix-Webhooks/1');
      expect(JSON.parse(request!.raw.toString('utf8'))).to.deep.equal({
        event: event.type,
        timestamp: EVENT_TIMESTAMP,
        data: event.data,
      });
      expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).to.be.below(60);
      expect(signaturesValid(hook.secret!, request!)).to.deep.equal({ hex: true, standard: true });
      const wrong = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      expect(signaturesValid(wrong, request!)).to.deep.equal({ hex: false, standard: false });
    }
    const log = await deliveriesOf(hook.id);
    expect(log).to.have.length(events.length);
    expect(log.every((delivery) => delivery.status === 'delivered')).to.equal(true);
  });

  it('delivers a v1.1 event (actor, changes, defaulted_fields) with the same bytes as before: no envelope fields', async () => {
    const hook = await subscribe(['ticket.updated']);
    const plain = domainEvent('ticket.updated', PROJECT, { id: 41, status: 'closed' });
    const v11: DomainEvent = {
      ...plain,
      actor: { kind: 'api_key', user_id: 11, api_key_id: 5 },
      changes: { status: { from: 'open', to: 'closed' } },
      defaulted_fields: [],
    };
    await publisher.publishEvent(v11);
    await eventually(() => receiver.requests.length >= 1, 10_000);
    const [request] = receiver.byEventId(v11.id);
    const body = request!.raw.toString('utf8');
    // Byte-identical to the body of the same event without the v1.1 fields (the contract before).
    expect(body).to.equal(
      JSON.stringify({ event: 'ticket.updated', timestamp: EVENT_TIMESTAMP, data: plain.data }),
    );
    expect(JSON.parse(body)).to.have.all.keys('event', 'timestamp', 'data');
    expect(JSON.parse(body).data).not.to.have.any.keys('actor', 'changes', 'defaulted_fields');
    expect(signaturesValid(hook.secret!, request!)).to.deep.equal({ hex: true, standard: true });
  });

  it('consumes events nobody may subscribe to (comment.updated, attachment.created) and sends nothing', async () => {
    const hook = await subscribe();
    const deleted = domainEvent('comment.updated', PROJECT, { id: 1 });
    const merged = domainEvent('attachment.created', PROJECT, { id: 1 });
    const marker = domainEvent('ticket.created', PROJECT, { id: 2 });
    for (const event of [deleted, merged, marker]) await publisher.publishEvent(event);
    await eventually(() => receiver.byEventId(marker.id).length === 1, 10_000);
    expect(receiver.requests.map((request) => request.headers['webhook-id'])).to.deep.equal([marker.id]);
    expect(await deliveriesOf(hook.id)).to.have.length(1);
  });

  it('only matches its project and its event types', async () => {
    const hook = await subscribe(['ticket.updated']);
    const otherProject = domainEvent('ticket.updated', PROJECT + 1, { id: 1 });
    const otherType = domainEvent('ticket.created', PROJECT, { id: 1 });
    const wanted = domainEvent('ticket.updated', PROJECT, { id: 1 });
    for (const event of [otherProject, otherType, wanted]) await publisher.publishEvent(event);
    await eventually(() => receiver.byEventId(wanted.id).length === 1, 10_000);
    await sleep(200);
    expect(receiver.requests).to.have.length(1);
    expect((await deliveriesOf(hook.id)).map((delivery) => delivery.event_id)).to.deep.equal([wanted.id]);
  });

  it('500, 500, 200: exactly three attempts with the spec spacing, then delivered', async () => {
    const hook = await subscribe(['ticket.created']);
    receiver.script([500, 500, 200]);
    const event = domainEvent('ticket.created', PROJECT, { id: 3 });
    await publisher.publishEvent(event);
    await eventually(() => receiver.requests.length >= 3, 10_000);
    await sleep(300);
    const attempts = receiver.byEventId(event.id);
    expect(attempts).to.have.length(3);
    expect(attempts[1]!.at - attempts[0]!.at)
      .to.be.at.least(50)
      .and.below(1_000);
    expect(attempts[2]!.at - attempts[1]!.at)
      .to.be.at.least(100)
      .and.below(1_000);
    expect(new Set(attempts.map((request) => request.raw.toString('hex'))).size, 'same body').to.equal(1);
    const [delivery] = await deliveriesOf(hook.id);
    expect(delivery!.status).to.equal('delivered');
    expect(
      delivery!.attempts.map((attempt) => [attempt.number, attempt.response_code, attempt.error]),
    ).to.deep.equal([
      [1, 500, 'HTTP 500'],
      [2, 500, 'HTTP 500'],
      [3, 200, undefined],
    ]);
  });

  it('a receiver that always fails sees 3 attempts; the delivery is failed; the subscription stays active', async () => {
    const hook = await subscribe(['ticket.assigned']);
    receiver.script([], 503);
    const event = domainEvent('ticket.assigned', PROJECT, { id: 4 });
    await publisher.publishEvent(event);
    await eventually(async () => (await deliveriesOf(hook.id))[0]?.status === 'failed', 10_000);
    await sleep(300);
    expect(receiver.byEventId(event.id)).to.have.length(3);
    const [delivery] = await deliveriesOf(hook.id);
    expect(delivery).to.include({
      webhook_id: hook.id,
      event_id: event.id,
      event: 'ticket.assigned',
      status: 'failed',
    });
    expect(delivery!.attempts.map((attempt) => attempt.number)).to.deep.equal([1, 2, 3]);
    for (const attempt of delivery!.attempts) {
      expect(attempt.response_code).to.equal(503);
      expect(attempt.duration_ms).to.be.a('number').at.least(0);
      expect(Date.parse(attempt.attempted_at)).to.be.a('number').not.NaN;
    }
    const { webhooks } = await client.ListWebhooks({ project_id: PROJECT }, OWNER);
    expect(webhooks.map((listed) => [listed.id, listed.is_active])).to.deep.equal([[hook.id, true]]);
  });

  it('redeliver sends the same event again (same body and webhook-id) as a new delivery', async () => {
    const hook = await subscribe(['ticket.status_changed']);
    receiver.script([], 500);
    const event = domainEvent('ticket.status_changed', PROJECT, { id: 5 });
    await publisher.publishEvent(event);
    await eventually(async () => (await deliveriesOf(hook.id))[0]?.status === 'failed', 10_000);
    receiver.script([], 200);
    const [failed] = await deliveriesOf(hook.id);
    const queued = await client.RedeliverDelivery(
      { project_id: PROJECT, webhook_id: hook.id, delivery_id: failed!.id },
      OWNER,
    );
    expect(queued).to.include({
      webhook_id: hook.id,
      event_id: event.id,
      event: event.type,
      status: 'pending',
    });
    expect(queued.id).to.not.equal(failed!.id);
    expect(queued.attempts).to.deep.equal([]);
    await eventually(async () => (await deliveriesOf(hook.id))[0]?.status === 'delivered', 10_000);
    const requests = receiver.byEventId(event.id);
    expect(requests).to.have.length(4);
    expect(requests[3]!.raw.equals(requests[0]!.raw)).to.equal(true);
    expect(signaturesValid(hook.secret!, requests[3]!)).to.deep.equal({ hex: true, standard: true });
    const log = await deliveriesOf(hook.id);
    expect(log.map((delivery) => [delivery.id, delivery.status])).to.deep.equal([
      [queued.id, 'delivered'],
      [failed!.id, 'failed'],
    ]);
  });

  it('after DELETE nothing more arrives: a retry already scheduled is not sent', async () => {
    // A service of its own whose retries wait 1 s, so the delete lands while one is scheduled.
    const slow = await startTestWebhookServer({ retryDelay: () => 1_000, label: 'webhooks_retry_delete' });
    const slowClient = createServiceClient('webhooks', slow.address, { deadlineMs: 10_000 });
    try {
      const hook = await slowClient.CreateWebhook(
        { project_id: PROJECT, url: receiver.url, events: ['ticket.updated'] },
        OWNER,
      );
      receiver.script([500], 200);
      await slow.fanOut(domainEvent('ticket.updated', PROJECT, { id: 6 }));
      // Attempt 1 failed and is recorded: attempt 2 is scheduled.
      await eventually(async () => {
        const page = await slowClient.ListDeliveries({ project_id: PROJECT, webhook_id: hook.id }, OWNER);
        return page.deliveries[0]?.attempts.length === 1;
      }, 10_000);
      expect(slow.workers.held()).to.equal(1);
      await slowClient.DeleteWebhook({ project_id: PROJECT, id: hook.id }, OWNER);
      await sleep(1_500);
      expect(receiver.requests).to.have.length(1);
      expect(slow.workers.held()).to.equal(0);
    } finally {
      slowClient.close();
      await slow.stop();
    }
  });

  it('after DELETE nothing more arrives: an attempt in flight at the delete is the last one', async () => {
    const hook = await subscribe(['ticket.updated']);
    const first = domainEvent('ticket.updated', PROJECT, { id: 6 });
    // The first attempt answers slowly and fails; the subscription is deleted while it is in flight.
    receiver.script([{ status: 500, delayMs: 300 }], 200);
    await publisher.publishEvent(first);
    await eventually(() => receiver.requests.length === 1, 10_000);
    await client.DeleteWebhook({ project_id: PROJECT, id: hook.id }, OWNER);
    const later = domainEvent('ticket.updated', PROJECT, { id: 6 });
    await publisher.publishEvent(later);
    await sleep(1_500); // well past both retry delays
    expect(receiver.requests).to.have.length(1);
    const error = await client
      .ListDeliveries({ project_id: PROJECT, webhook_id: hook.id }, OWNER)
      .catch((caught: unknown) => caught);
    expect(error).to.include({ kind: 'not_found', message: 'Webhook not found' });
  });

  it('the same event id published twice makes one delivery', async () => {
    const hook = await subscribe(['comment.created']);
    const event = domainEvent('comment.created', PROJECT, { id: 8, content: 'Hi' });
    await publisher.publishEvent(event);
    await publisher.publishEvent(event);
    const marker = domainEvent('comment.created', PROJECT, { id: 9 });
    await publisher.publishEvent(marker);
    await eventually(() => receiver.byEventId(marker.id).length === 1, 10_000);
    await sleep(300);
    expect(receiver.byEventId(event.id)).to.have.length(1);
    expect(await deliveriesOf(hook.id)).to.have.length(2);
  });

  it('a poison message goes to the dead-letter queue and the events behind it keep flowing', async () => {
    await subscribe(['ticket.created']);
    await publisher.publishRaw('ticket.created', '{not json');
    await publisher.publishRaw(
      'ticket.created',
      JSON.stringify({ id: 'not-a-uuid', type: 'ticket.created' }),
    );
    const after = domainEvent('ticket.created', PROJECT, { id: 10 });
    await publisher.publishEvent(after);
    await eventually(() => receiver.byEventId(after.id).length === 1, 10_000);
    const connection = await amqp.connect(vhost.url);
    try {
      const channel = await connection.createChannel();
      const dead: string[] = [];
      await eventually(async () => {
        const message = await channel.get('webhooks.events.dlq', { noAck: true });
        if (message) dead.push(message.content.toString());
        return dead.length >= 2;
      }, 10_000);
      expect(dead).to.have.members([
        '{not json',
        JSON.stringify({ id: 'not-a-uuid', type: 'ticket.created' }),
      ]);
    } finally {
      await connection.close();
    }
  });

  it('a redirect is a failed attempt and is not followed', async () => {
    const target = await startReceiver('/moved');
    try {
      const hook = await subscribe(['ticket.created']);
      receiver.script([], { status: 302, headers: { location: target.url } });
      const event = domainEvent('ticket.created', PROJECT, { id: 11 });
      await publisher.publishEvent(event);
      await eventually(async () => (await deliveriesOf(hook.id))[0]?.status === 'failed', 10_000);
      expect(receiver.byEventId(event.id)).to.have.length(3);
      expect(target.requests).to.have.length(0);
      const [delivery] = await deliveriesOf(hook.id);
      expect(delivery!.attempts[0]).to.include({
        response_code: 302,
        error: 'HTTP 302 (redirects are not followed)',
      });
    } finally {
      await target.close();
    }
  });

  it('an attempt that outlives the timeout fails as a timeout', async () => {
    const hook = await subscribe(['ticket.created']);
    receiver.script([], 'hang');
    const event = domainEvent('ticket.created', PROJECT, { id: 12 });
    await publisher.publishEvent(event);
    await eventually(async () => (await deliveriesOf(hook.id))[0]?.status === 'failed', 15_000);
    const [delivery] = await deliveriesOf(hook.id);
    expect(delivery!.attempts).to.have.length(3);
    for (const attempt of delivery!.attempts) {
      expect(attempt.response_code).to.equal(undefined);
      expect(attempt.error).to.equal('timeout after 1000 ms');
      expect(attempt.duration_ms).to.be.at.least(900);
    }
  });
});
