/**
 * Bulk redelivery at its bound: at most MAX_BULK_REDELIVERIES per call, the oldest failed deliveries
 * first, `remaining` counting the rest, and an event queued again only once (its new delivery is
 * later than the failed one, so the next call passes over it).
 */
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { MAX_BULK_REDELIVERIES } from '@tix/protos';
import { startTestWebhookServer, type TestWebhookServer } from '../../src/testing.js';
import { asUser } from './support.js';

const PROJECT = 12;
const OWNER = asUser(52);
const FAILED = MAX_BULK_REDELIVERIES + 50;

describe('bulk redelivery of failed deliveries', function () {
  this.timeout(30_000);
  let service: TestWebhookServer;
  let client: ServiceClient<'webhooks'>;
  let sql: pg.Pool;

  before(async () => {
    // Redeliveries make a first attempt (the discard port refuses it) and then wait an hour, so none
    // of them fails again during the test and becomes a candidate itself.
    service = await startTestWebhookServer({ retryDelay: () => 3_600_000 });
    client = createServiceClient('webhooks', service.address, { deadlineMs: 10_000 });
    sql = new pg.Pool({ connectionString: service.databaseUrl, max: 2 });
  });
  after(async () => {
    client?.close();
    await sql?.end();
    await service?.stop();
  });

  it(`queues at most ${MAX_BULK_REDELIVERIES} per call, oldest first, each event once`, async () => {
    const hook = await client.CreateWebhook(
      { project_id: PROJECT, url: 'http://127.0.0.1:9/hook', events: ['ticket.created'] },
      OWNER,
    );
    // FAILED events, each with one failed delivery, a second apart (the first is the oldest), all
    // after `since`; and one failed before it, which no call may queue.
    await sql.query(
      `INSERT INTO processed_events (event_id, event_type, body)
       SELECT gen_random_uuid(), 'ticket.created', '{}' FROM generate_series(0, $1)`,
      [FAILED],
    );
    await sql.query(
      `INSERT INTO deliveries (webhook_id, event_id, event_type, status, created_at)
       SELECT $1, event_id, event_type, 'failed',
              now() - interval '1 hour' + interval '1 second' * (row_number() OVER (ORDER BY event_id))
         FROM processed_events`,
      [hook.id],
    );
    const { rows } = await sql.query<{ event_id: string; created_at: Date }>(
      'SELECT event_id, created_at FROM deliveries ORDER BY created_at',
    );
    const [beforeSince, ...failed] = rows;
    const since = new Date(beforeSince!.created_at.getTime() + 1).toISOString();
    const redeliver = () =>
      client.RedeliverFailed({ project_id: PROJECT, webhook_id: hook.id, since }, OWNER);

    expect(await redeliver()).to.deep.include({ queued: MAX_BULK_REDELIVERIES, remaining: 50 });
    const queuedEvents = async () =>
      (
        await sql.query<{ event_id: string }>(
          // The seeded deliveries are all about an hour old; the queued ones were made just now.
          `SELECT event_id FROM deliveries WHERE created_at > now() - interval '10 minutes'`,
        )
      ).rows.map((row) => row.event_id);
    expect(new Set(await queuedEvents())).to.deep.equal(
      new Set(failed.slice(0, MAX_BULK_REDELIVERIES).map((row) => row.event_id)),
    );

    expect(await redeliver()).to.deep.include({ queued: 50, remaining: 0 });
    expect(new Set(await queuedEvents())).to.deep.equal(new Set(failed.map((row) => row.event_id)));
    expect(await redeliver()).to.deep.include({ queued: 0, remaining: 0 });
    expect(await queuedEvents()).to.have.length(FAILED);
  });
});
