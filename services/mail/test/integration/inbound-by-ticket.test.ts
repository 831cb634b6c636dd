/**
 * ListInboundMessages by ticket_id against a real mail service and PostgreSQL: the processed
 * messages whose outcome opened or commented on the ticket, oldest first, with their outcome (the
 * sender checks agents see on the ticket); nothing else. The rows are written as the processor's
 * final transaction leaves them (processing.test.ts covers the processing itself).
 */
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { createTestDatabase, refusalOf, type TestDatabase } from '@tix/kit/testing';
import { startTestS3Server, type TestS3Server } from '@tix/attachment-service/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { INBOUND_BY_TICKET_SQL, LANDED_ACTIONS } from '../../src/mail-handlers.js';
import { MAIL_MIGRATIONS_DIR, startTestMailServer, type TestMailServer } from '../../src/testing.js';

describe('mail: a ticket’s received messages (ListInboundMessages by ticket_id)', function () {
  this.timeout(60_000);
  let lookup: TestLookupServer;
  let s3: TestS3Server;
  let mail: TestMailServer;
  let client: ServiceClient<'mail'>;
  let db: pg.Pool;
  let database: TestDatabase;
  let mailboxId = 0;
  const ids: Record<string, string> = {};

  before(async () => {
    lookup = await startTestLookupServer();
    s3 = await startTestS3Server();
    database = await createTestDatabase('mail_by_ticket', MAIL_MIGRATIONS_DIR);
    mail = await startTestMailServer({
      lookupAddress: lookup.address,
      store: s3.config,
      databaseUrl: database.url,
    });
    client = createServiceClient('mail', mail.address, { deadlineMs: 10_000 });
    db = new pg.Pool({ connectionString: mail.databaseUrl });
    const box = await db.query<{ id: number }>(
      "INSERT INTO mailboxes (project_id, kind, address) VALUES (1, 'smtp', 'help@by-ticket.example') RETURNING id",
    );
    mailboxId = box.rows[0]!.id;
    const auth = { spf: 'pass', dkim: 'pass', dmarc: 'pass', dmarc_domain: 'customer.example' };
    const rows: [string, string, Record<string, unknown>][] = [
      ['opened', 'processed', { action: 'new_ticket', ticket_id: 7, auth }],
      ['other', 'processed', { action: 'comment', ticket_id: 17, comment_id: 170, auth }],
      ['commented', 'processed', { action: 'comment', ticket_id: 7, comment_id: 70, auth }],
      ['duplicate', 'ignored', { action: 'ignore', reason: 'duplicate', ticket_id: 7, auth }],
      [
        'forged',
        'processed',
        {
          action: 'reopen_and_comment',
          ticket_id: 7,
          comment_id: 71,
          auth: { ...auth, dmarc: 'fail', dkim: 'none' },
          untrusted: true,
        },
      ],
      ['refused', 'refused', { action: 'refuse', reason: 'too_large', auth }],
    ];
    for (const [name, state, outcome] of rows) {
      const inserted = await db.query<{ id: string }>(
        `INSERT INTO inbound_messages (mailbox_id, source, message_id, object_key, size, state, outcome)
         VALUES ($1, 'smtp', $2, $3, 100, $4, $5) RETURNING id`,
        [mailboxId, `${name}@customer.example`, `raw/${name}`, state, JSON.stringify(outcome)],
      );
      ids[name] = inserted.rows[0]!.id;
    }
  });
  after(async () => {
    await db?.end();
    client?.close();
    await mail?.stop();
    await database?.drop();
    await s3?.stop();
    await lookup?.stop();
  });

  it('answers the messages that opened or commented on the ticket, oldest first, with their outcome', async () => {
    const list = await client.ListInboundMessages({ ticket_id: 7, mailbox_id: 0, limit: 0 });
    expect(list.messages.map((m) => m.id)).to.deep.equal([ids.opened, ids.commented, ids.forged]);
    expect(list.count).to.equal(3);
    const forged = JSON.parse(list.messages[2]!.outcome_json) as Record<string, unknown>;
    expect(forged).to.deep.include({ comment_id: 71, untrusted: true });
    expect(forged.auth).to.include({ dmarc: 'fail', dmarc_domain: 'customer.example' });
    expect(list.messages[0]).to.include({
      mailbox_id: mailboxId,
      state: 'processed',
      message_id: 'opened@customer.example',
    });

    // ticket_id wins over mailbox_id; a limit keeps the oldest and still counts them all.
    const first = await client.ListInboundMessages({ ticket_id: 7, mailbox_id: mailboxId, limit: 2 });
    expect(first.messages.map((m) => m.id)).to.deep.equal([ids.opened, ids.commented]);
    expect(first.count).to.equal(3);
    expect(
      (await client.ListInboundMessages({ ticket_id: 17, mailbox_id: 0, limit: 0 })).messages.map(
        (m) => m.id,
      ),
    ).to.deep.equal([ids.other]);
    expect(await client.ListInboundMessages({ ticket_id: 9999, mailbox_id: 0, limit: 0 })).to.deep.equal({
      messages: [],
      count: 0,
    });
  });

  it('still lists a mailbox newest first, and refuses a bad ticket id or an unknown mailbox', async () => {
    const byMailbox = await client.ListInboundMessages({ mailbox_id: mailboxId, limit: 0 });
    expect(byMailbox.messages.map((m) => m.id)).to.deep.equal(
      [ids.opened, ids.other, ids.commented, ids.duplicate, ids.forged, ids.refused].reverse(),
    );
    const bad = await refusalOf(client.ListInboundMessages({ ticket_id: -1, mailbox_id: 0, limit: 0 }));
    expect(bad).to.include({ kind: 'bad_request', message: 'Invalid ticket id' });
    const unknown = await refusalOf(client.ListInboundMessages({ mailbox_id: 0, limit: 0 }));
    expect(unknown).to.include({ kind: 'not_found', message: 'Mailbox not found' });
  });

  it('reads a ticket’s messages through the partial index, not a scan of every message', async () => {
    const session = await db.connect();
    try {
      await session.query('SET enable_seqscan = off');
      const { rows } = await session.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${INBOUND_BY_TICKET_SQL}`, [
        7,
        100,
        LANDED_ACTIONS,
      ]);
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(plan).to.include('inbound_messages_outcome_ticket_idx');
    } finally {
      session.release();
    }
  });
});
