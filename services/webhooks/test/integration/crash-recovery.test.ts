/**
 * Nothing committed is lost: the webhook service process is killed (SIGKILL) while deliveries are in
 * flight and messages unacknowledged, events keep arriving while it is down, and after a restart
 * every event reaches the receiver at least once, duplicates carrying the same webhook-id and body.
 * Also: a broker connection cut under a running service is re-established and nothing is lost.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient } from '@tix/kit';
import {
  createTestDatabase,
  createTestVhost,
  eventually,
  freePort,
  startMainProcess,
  type TestDatabase,
  type TestProcess,
  type TestVhost,
} from '@tix/kit/testing';
import type { DomainEvent } from '@tix/protos';
import { startTestWebhookServer, WEBHOOKS_MIGRATIONS_DIR } from '../../src/testing.js';
import { asUser, domainEvent, openPublisher, startReceiver, type Receiver } from './support.js';

const PROJECT = 4;
const OWNER = asUser(31);

/** Every event answered 2xx at least once; all copies of an event identical. */
function expectEachDeliveredOnce(receiver: Receiver, events: DomainEvent[]): void {
  for (const event of events) {
    const copies = receiver.byEventId(event.id);
    expect(
      copies.some((copy) => copy.status !== null && copy.status < 300),
      event.id,
    ).to.equal(true);
    expect(new Set(copies.map((copy) => copy.raw.toString('hex'))).size, `${event.id} bodies`).to.equal(1);
  }
  const known = new Set(events.map((event) => event.id));
  expect(receiver.requests.every((request) => known.has(String(request.headers['webhook-id'])))).to.equal(
    true,
  );
}

describe('no loss across crashes and broker disconnections', function () {
  this.timeout(90_000);
  // Each test its own vhost: two services consuming one queue would share its messages.
  let vhost: TestVhost;
  let database: TestDatabase;
  let receiver: Receiver;
  let child: TestProcess | undefined;

  before(async () => {
    database = await createTestDatabase('webhooks_crash', WEBHOOKS_MIGRATIONS_DIR);
  });
  beforeEach(async () => {
    vhost = await createTestVhost('webhooks_crash');
  });
  afterEach(async () => {
    await child?.kill();
    child = undefined;
    await receiver?.close();
    await vhost?.drop();
  });
  after(async () => {
    await database?.drop();
  });

  async function startProcess(port: number): Promise<TestProcess> {
    const started = startMainProcess(import.meta.url, {
      NODE_ENV: 'development',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
      WEBHOOKS_DATABASE_URL: database.url,
      AMQP_URL: vhost.url,
      GRPC_PORT: String(port),
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_CONSUMER_PREFETCH: '8',
    });
    child = started;
    const client = createServiceClient('webhooks', `127.0.0.1:${port}`, { deadlineMs: 2_000 });
    try {
      await eventually(() => client.checkHealth(), 20_000, 100);
    } finally {
      client.close();
    }
    return started;
  }

  it('SIGKILL mid-delivery: after a restart every committed event reaches the receiver', async () => {
    receiver = await startReceiver();
    // The first attempts hang, so deliveries are in flight (and messages unacknowledged) at the kill.
    receiver.script(Array(6).fill('hang'), 200);
    const port = await freePort();
    child = await startProcess(port);
    const client = createServiceClient('webhooks', `127.0.0.1:${port}`, { deadlineMs: 5_000 });
    const hook = await client.CreateWebhook(
      { project_id: PROJECT, url: receiver.url, events: ['ticket.created', 'ticket.updated'] },
      OWNER,
    );
    client.close();
    const publisher = await openPublisher(vhost.url);
    const events: DomainEvent[] = [];
    try {
      for (let i = 0; i < 40; i += 1) {
        const event = domainEvent(i % 2 ? 'ticket.updated' : 'ticket.created', PROJECT, { id: i });
        events.push(event);
        await publisher.publishEvent(event);
      }
      await eventually(() => receiver.requests.length >= 6, 20_000);
      await child.kill();
      // Events committed while the service is down wait in the durable queue.
      for (let i = 0; i < 10; i += 1) {
        const event = domainEvent('ticket.created', PROJECT, { id: 100 + i });
        events.push(event);
        await publisher.publishEvent(event);
      }
    } finally {
      await publisher.close();
    }
    child = await startProcess(port);
    await eventually(
      () =>
        events.every((event) =>
          receiver.byEventId(event.id).some((copy) => copy.status !== null && copy.status < 300),
        ),
      60_000,
      100,
    );
    expectEachDeliveredOnce(receiver, events);
    const sql = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const { rows } = await sql.query<{ status: string; n: number }>(
        'SELECT status, count(*)::int AS n FROM deliveries WHERE webhook_id = $1 GROUP BY status',
        [hook.id],
      );
      // One delivery per event (no second fan-out), all delivered.
      expect(rows).to.deep.equal([{ status: 'delivered', n: events.length }]);
    } finally {
      await sql.end();
    }
  });

  it('a broker connection cut under a running service is re-established; nothing is lost', async () => {
    receiver = await startReceiver();
    const service = await startTestWebhookServer({ amqpUrl: vhost.url, label: 'webhooks_cut' });
    const client = createServiceClient('webhooks', service.address, { deadlineMs: 5_000 });
    const events: DomainEvent[] = [];
    try {
      await client.CreateWebhook(
        { project_id: PROJECT, url: receiver.url, events: ['ticket.created'] },
        OWNER,
      );
      await eventually(() => service.consumer?.isConsuming(), 10_000);
      let publisher = await openPublisher(vhost.url);
      for (let i = 0; i < 20; i += 1) {
        const event = domainEvent('ticket.created', PROJECT, { id: i });
        events.push(event);
        await publisher.publishEvent(event);
      }
      await promisify(execFile)('rabbitmqctl', [
        'close_all_connections',
        '-p',
        new URL(vhost.url).pathname.slice(1),
        'test: cut',
      ]);
      await eventually(() => !service.consumer?.isConsuming(), 10_000, 10).catch(() => undefined);
      await publisher.close().catch(() => undefined);
      publisher = await openPublisher(vhost.url);
      for (let i = 0; i < 20; i += 1) {
        const event = domainEvent('ticket.created', PROJECT, { id: 100 + i });
        events.push(event);
        await publisher.publishEvent(event);
      }
      await publisher.close();
      await eventually(
        () => events.every((event) => receiver.byEventId(event.id).some((copy) => copy.status === 200)),
        30_000,
      );
      expect(service.consumer?.isConsuming()).to.equal(true);
      expectEachDeliveredOnce(receiver, events);
    } finally {
      client.close();
      await service.stop();
    }
  });
});
