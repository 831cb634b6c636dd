import { expect } from 'chai';
import amqp from 'amqplib';
import { assertEventTopology } from '@tix/kit';
import { createTestVhost, eventually, type TestVhost } from '@tix/kit/testing';
import { EVENTS_EXCHANGE, type DomainEvent } from '@tix/protos';
import { startHarness, ticketWrite, userActor, type Harness } from './support.js';

describe('the activity log under concurrent writers', function () {
  this.timeout(120_000);
  let vhost: TestVhost;
  let harness: Harness;

  before(async () => {
    vhost = await createTestVhost('activity');
    harness = await startHarness({ amqpUrl: vhost.url });
  });
  after(async () => {
    await harness?.stop();
    await vhost?.drop();
  });

  it('never lets a poller skip an entry that commits after its cursor (8 writers)', async () => {
    const WRITERS = 8;
    const WRITES = 40;
    let writing = true;
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      for (let write = 0; write < WRITES; write += 1) {
        const ticketId = 10_000 + writer;
        const types =
          write === 0
            ? (['ticket.created'] as const)
            : (['ticket.updated', 'ticket.status_changed', 'ticket.assigned'] as const);
        const events = ticketWrite(
          [...types],
          { id: ticketId, projectId: 1, version: write + 1 },
          {
            actor: userActor(1),
            changes: write === 0 ? {} : { status: { from: 'open', to: `s${write}` } },
          },
        );
        // The events of one write arrive concurrently too, as prefetch delivers them.
        await Promise.all(events.map((event) => harness.activity.record(event)));
      }
    });
    const all = Promise.all(writers).finally(() => {
      writing = false;
    });

    const seen: number[] = [];
    let cursor = (await harness.client.PollActivities({ filter: {}, limit: 100 })).cursor_id;
    expect(cursor).to.equal('0');
    for (;;) {
      const stillWriting = writing;
      const batch = await harness.client.PollActivities({ filter: {}, after_id: cursor, limit: 7 });
      seen.push(...batch.activities.map((entry) => Number(entry.id)));
      cursor = batch.cursor_id;
      if (!stillWriting && !batch.has_more) break;
    }
    await all;

    const { rows } = await harness.activity.pool.query<{ id: string }>(
      'SELECT id FROM activities ORDER BY id',
    );
    expect(rows).to.have.length(WRITERS * WRITES);
    expect(seen).to.deep.equal(rows.map((row) => Number(row.id)));
  });

  it('records events from RabbitMQ once each, however often they are delivered', async () => {
    const connection = await amqp.connect(vhost.url);
    const channel = await connection.createConfirmChannel();
    await assertEventTopology(channel);
    const writes: DomainEvent[][] = [];
    for (let write = 0; write < 20; write += 1) {
      writes.push(
        ticketWrite(
          ['ticket.updated', 'ticket.status_changed', 'ticket.assigned'],
          { id: 20_000, projectId: 3, version: write + 2 },
          {
            actor: userActor(1),
            changes: { status: { from: 'a', to: 'b' } },
          },
        ),
      );
    }
    for (const event of writes.flat()) {
      for (let copy = 0; copy < 2; copy += 1) {
        channel.publish(EVENTS_EXCHANGE, event.type, Buffer.from(JSON.stringify(event)), {
          persistent: true,
          messageId: event.id,
        });
      }
    }
    await channel.waitForConfirms();
    await connection.close();

    const count = async (sql: string) => (await harness.activity.pool.query<{ n: number }>(sql)).rows[0]!.n;
    await eventually(
      async () => (await count('SELECT count(*)::int AS n FROM events WHERE project_id = 3')) === 60,
      30_000,
    );
    // Every copy consumed: nothing left in the queue, and still one entry per write.
    await eventually(async () => {
      const probe = await amqp.connect(vhost.url);
      const queue = await (await probe.createChannel()).checkQueue('activity.events');
      await probe.close();
      return queue.messageCount === 0;
    }, 30_000);
    expect(await count('SELECT count(*)::int AS n FROM activities WHERE project_id = 3')).to.equal(20);
  });
});
