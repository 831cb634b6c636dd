import { expect } from 'chai';
import type amqp from 'amqplib';
import pg from 'pg';
import type { DomainEvent } from '@tix/protos';
import { newDomainEvent, outboxInsert, type OutboxRelay } from '../../src/index.js';
import {
  createTestDatabase,
  createTestVhost,
  eventually,
  listenToEvents,
  startTcpProxy,
  type TcpProxy,
  type TestDatabase,
  type TestVhost,
} from '../../src/testing/index.js';
import { OUTBOX_TABLE, startTestRelay } from './fixtures/outbox.js';

describe('outbox relay', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let vhost: TestVhost;
  let pool: pg.Pool;
  let proxy: TcpProxy;
  let relay: OutboxRelay;
  let consumer: amqp.ChannelModel;
  const received: { messageId: string; routingKey: string; body: DomainEvent }[] = [];

  before(async () => {
    database = await createTestDatabase('outbox');
    vhost = await createTestVhost('outbox');
    pool = new pg.Pool({ connectionString: database.url });
    pool.on('error', () => undefined);
    await pool.query(OUTBOX_TABLE);
    await pool.query('CREATE TABLE "things" ("id" SERIAL PRIMARY KEY, "name" TEXT NOT NULL);');
    const broker = new URL(vhost.url);
    proxy = await startTcpProxy({ host: broker.hostname, port: Number(broker.port || 5672) });
    const viaProxy = new URL(vhost.url);
    viaProxy.port = String(proxy.port);
    relay = startTestRelay(database.url, viaProxy.toString(), 200);

    consumer = await listenToEvents(vhost.url, '#', (message) => {
      received.push({
        messageId: String(message.properties.messageId),
        routingKey: message.fields.routingKey,
        body: JSON.parse(message.content.toString()) as DomainEvent,
      });
    });
  });

  after(async () => {
    await relay.stop();
    await consumer.close();
    await proxy.close();
    await pool.end();
    await database.drop();
    await vhost.drop();
  });

  /** Writes a "business" row and its event in one transaction, as a service does. */
  async function changeWithEvent(name: string, commit = true): Promise<DomainEvent> {
    const event = newDomainEvent(
      'ticket.created',
      { id: name, title: `Title ${name}` },
      { source: 'test', projectId: 1 },
    );
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('INSERT INTO things (name) VALUES ($1)', [name]);
      const insert = outboxInsert([event]);
      await client.query(insert.text, insert.values);
      await client.query(commit ? 'COMMIT' : 'ROLLBACK');
    } finally {
      client.release();
    }
    return event;
  }

  it('publishes committed events with their id as messageId and the type as routing key', async () => {
    const event = await changeWithEvent('a');
    const message = await eventually(() => received.find((m) => m.messageId === event.id));
    expect(message.routingKey).to.equal('ticket.created');
    expect(message.body).to.deep.equal(event);
    await eventually(async () => (await relay.backlog()) === 0);
  });

  it('never publishes the events of a rolled-back transaction', async () => {
    const event = await changeWithEvent('rolled-back', false);
    const marker = await changeWithEvent('after-rollback');
    await eventually(() => received.find((m) => m.messageId === marker.id));
    expect(received.find((m) => m.messageId === event.id)).to.equal(undefined);
  });

  it('keeps events through a broker outage and publishes each exactly once afterwards', async () => {
    // An earlier test's event can be received before the relay has marked it published: wait for
    // the mark, or it would count in the backlog below.
    await eventually(async () => (await relay.backlog()) === 0);
    await proxy.cut();
    await eventually(() => !relay.isConnected());
    const during = [];
    for (let i = 0; i < 25; i += 1) during.push(await changeWithEvent(`outage-${i}`));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await relay.backlog()).to.equal(25);
    const before = received.length;
    await proxy.restore();
    await eventually(async () => (await relay.backlog()) === 0, 15_000);
    await eventually(() => received.length >= before + 25);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const event of during) {
      expect(
        received.filter((m) => m.messageId === event.id),
        event.id,
      ).to.have.length(1);
    }
    const { rows } = await pool.query<{ failed: string }>(
      'SELECT count(*) AS failed FROM outbox_events WHERE attempts > 0 AND published_at IS NULL',
    );
    expect(rows[0]?.failed).to.equal('0');
  });

  it('lets two relays share the outbox without publishing anything twice', async () => {
    const second = startTestRelay(database.url, vhost.url, 200);
    try {
      const before = received.length;
      const events = await Promise.all(Array.from({ length: 60 }, (_, i) => changeWithEvent(`shared-${i}`)));
      await eventually(() => received.length >= before + 60, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const ids = received.slice(before).map((m) => m.messageId);
      expect(new Set(ids).size).to.equal(ids.length);
      expect(ids).to.have.members(events.map((e) => e.id));
    } finally {
      await second.stop();
    }
  });
});
