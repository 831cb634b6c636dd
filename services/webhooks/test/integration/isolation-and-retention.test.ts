/**
 * Bounded concurrency (a dead receiver holds at most its per-host share and never delays another
 * receiver) and retention (old deliveries, event ids and deleted subscriptions are removed; what a
 * recent delivery still needs is kept).
 */
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { createTestVhost, eventually, type TestVhost } from '@tix/kit/testing';
import { startTestWebhookServer, type TestWebhookServer } from '../../src/testing.js';
import { createFanOutStore } from '../../src/events/fan-out-store.js';
import { asUser, domainEvent, openPublisher, startReceiver } from './support.js';

const PROJECT = 9;
const OWNER = asUser(41);

describe('one slow receiver never delays the others', function () {
  this.timeout(30_000);
  let vhost: TestVhost;
  let service: TestWebhookServer;
  let client: ServiceClient<'webhooks'>;

  before(async () => {
    vhost = await createTestVhost('webhooks_isolation');
    service = await startTestWebhookServer({
      amqpUrl: vhost.url,
      concurrency: 6,
      hostConcurrency: 2,
      attemptTimeoutMs: 3_000,
    });
    client = createServiceClient('webhooks', service.address, { deadlineMs: 10_000 });
    await eventually(() => service.consumer?.isConsuming(), 10_000);
  });
  after(async () => {
    client?.close();
    await service?.stop();
    await vhost?.drop();
  });

  it('delivers to a healthy receiver while a dead one holds only its per-host share', async () => {
    const dead = await startReceiver();
    const healthy = await startReceiver();
    dead.script([], 'hang');
    try {
      await client.CreateWebhook({ project_id: PROJECT, url: dead.url, events: ['ticket.created'] }, OWNER);
      await client.CreateWebhook(
        { project_id: PROJECT, url: healthy.url, events: ['ticket.updated'] },
        OWNER,
      );
      const publisher = await openPublisher(vhost.url);
      for (let i = 0; i < 30; i += 1)
        await publisher.publishEvent(domainEvent('ticket.created', PROJECT, { id: i }));
      await eventually(() => dead.requests.length >= 2, 10_000);
      const wanted = domainEvent('ticket.updated', PROJECT, { id: 99 });
      await publisher.publishEvent(wanted);
      await publisher.close();
      await eventually(() => healthy.byEventId(wanted.id).length === 1, 10_000, 5);
      // Every dead attempt so far is still hanging (none has reached its 3 s timeout), and no more
      // than the per-host limit were ever open at once.
      expect(dead.requests.every((request) => request.status === null)).to.equal(true);
      expect(dead.requests).to.have.length(2);
      expect(dead.connections()).to.equal(2);
    } finally {
      await dead.close();
      await healthy.close();
    }
  });
});

describe('retention of the delivery log', function () {
  this.timeout(30_000);
  let service: TestWebhookServer;
  let sql: pg.Pool;

  before(async () => {
    service = await startTestWebhookServer({ retentionDays: 30 });
    sql = new pg.Pool({ connectionString: service.databaseUrl, max: 2 });
  });
  after(async () => {
    await sql?.end();
    await service?.stop();
  });

  it('removes expired deliveries, unused event ids and long-deleted subscriptions, and keeps the rest', async () => {
    const client = createServiceClient('webhooks', service.address, { deadlineMs: 10_000 });
    const live = await client.CreateWebhook(
      { project_id: PROJECT, url: 'http://127.0.0.1:9/', events: ['ticket.created'] },
      OWNER,
    );
    const gone = await client.CreateWebhook(
      { project_id: PROJECT, url: 'http://127.0.0.1:9/gone', events: ['ticket.created'] },
      OWNER,
    );
    client.close();
    const fanOut = createFanOutStore(sql);
    const ids = {
      old: '00000000-0000-4000-8000-000000000001',
      oldRedelivered: '00000000-0000-4000-8000-000000000002',
      recent: '00000000-0000-4000-8000-000000000003',
    };
    for (const id of Object.values(ids)) {
      await fanOut.fanOut({ eventId: id, eventType: 'ticket.created', projectId: PROJECT, body: '{}' });
    }
    // Age everything but the recent event; the redelivered event has a fresh delivery too.
    await sql.query(
      `UPDATE deliveries SET status = 'delivered', created_at = now() - interval '31 days' WHERE event_id <> $1`,
      [ids.recent],
    );
    await sql.query(
      `UPDATE processed_events SET processed_at = now() - interval '31 days' WHERE event_id <> $1`,
      [ids.recent],
    );
    await sql.query(
      `INSERT INTO deliveries (webhook_id, event_id, event_type) VALUES ($1, $2, 'ticket.created')`,
      [live.id, ids.oldRedelivered],
    );
    await sql.query(`UPDATE webhooks SET deleted_at = now() - interval '31 days' WHERE id = $1`, [gone.id]);

    const counts = await service.retention.runOnce();
    expect(counts).to.deep.equal({ deliveries: 4, events: 1, webhooks: 1 });
    const events = await sql.query<{ event_id: string }>(
      'SELECT event_id FROM processed_events ORDER BY event_id',
    );
    expect(events.rows.map((row) => row.event_id)).to.deep.equal([ids.oldRedelivered, ids.recent]);
    const deliveries = await sql.query('SELECT webhook_id, event_id FROM deliveries ORDER BY event_id');
    expect(deliveries.rows).to.deep.equal([
      { webhook_id: live.id, event_id: ids.oldRedelivered },
      { webhook_id: live.id, event_id: ids.recent },
    ]); // the long-deleted subscription's deliveries went with it

    const webhooks = await sql.query<{ id: number }>('SELECT id FROM webhooks ORDER BY id');
    expect(webhooks.rows.map((row) => row.id)).to.deep.equal([live.id]);
  });
});
