import { expect } from 'chai';
import amqp from 'amqplib';
import { assertEventTopology } from '@tix/kit';
import { createTestVhost, eventually, type TestVhost } from '@tix/kit/testing';
import { EVENTS_EXCHANGE, type DomainEvent } from '@tix/protos';
import { LOG_LOCK } from '../../src/log/log-store.js';
import { startHarness, ticketWrite, untilEventsConsumed, userActor, type Harness } from './support.js';

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
    // The poller's cursor is taken before any writer starts, so every entry comes after it.
    let cursor = (await harness.client.PollActivities({ filter: {}, limit: 100 })).cursor_id;
    expect(cursor).to.equal('0');
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

  it('draws numbers only under the log lock: a writer waits while another holds it', async () => {
    // A writer that has drawn its number but not yet committed holds the lock (as record() does for
    // the length of its statement); nobody else may draw a number until it commits.
    const slow = await harness.activity.pool.connect();
    try {
      await slow.query('BEGIN');
      await slow.query('SELECT pg_advisory_xact_lock($1)', [LOG_LOCK]);
      let done = false;
      const waiting = harness.activity
        .record(
          ticketWrite(
            ['ticket.created'],
            { id: 30_000, projectId: 4, version: 1 },
            { actor: userActor(1) },
          )[0]!,
        )
        .then((outcome) => {
          done = true;
          return outcome;
        });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(done, 'recorded while another writer held the lock').to.equal(false);
      await slow.query('COMMIT');
      expect(await waiting).to.equal('recorded');
    } finally {
      slow.release();
    }
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
    await untilEventsConsumed(vhost.url);
    expect(await count('SELECT count(*)::int AS n FROM activities WHERE project_id = 3')).to.equal(20);
  });
});
