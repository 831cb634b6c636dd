/**
 * The inbound processor through real parts: PostgreSQL, s3rver, SMTP over TCP (nodemailer) and real
 * lookup, tickets, comments, customers and attachments services. Mail in becomes tickets and
 * customer comments; automatic and broken mail opens nothing; a processor that dies after
 * CreateTicket makes no second ticket after its restart.
 */
import { expect } from 'chai';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { createTestDatabase, eventually, type TestDatabase } from '@tix/kit/testing';
import type { TicketJson } from '@tix/protos';
import type { TestS3Server } from '@tix/attachment-service/testing';
import { generateKeyPairSync } from 'node:crypto';
import dkimModule from 'mailauth/lib/dkim/sign.js';
import { storeInbound } from '../../src/inbound/intake.js';
import { createRawStore } from '../../src/inbound/raw-store.js';
import type { ProcessingStage } from '../../src/processing/process-message.js';
import {
  MAIL_MIGRATIONS_DIR,
  staticResolver,
  startTestMailServer,
  type TestMailServer,
} from '../../src/testing.js';
import { startMailPeers } from '../support/peers.js';

const DOMAIN = 'tix.localhost';
const ADDRESS = `sup@${DOMAIN}`;

// victim.example.com signs its mail with this key and publishes p=reject; its SPF names another
// host than the test's client (127.0.0.1), so its unsigned mail through the listener fails DMARC.
const { privateKey: DKIM_KEY, publicKey: DKIM_PUBLIC } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const DNS = staticResolver({
  'tix._domainkey.victim.example.com': {
    TXT: [`v=DKIM1; k=rsa; p=${DKIM_PUBLIC.export({ type: 'spki', format: 'der' }).toString('base64')}`],
  },
  'victim.example.com': { TXT: ['v=spf1 ip4:192.0.2.10 -all'] },
  '_dmarc.victim.example.com': { TXT: ['v=DMARC1; p=reject'] },
});

interface Row {
  id: string;
  state: string;
  outcome: Record<string, unknown> | null;
}

describe('mail processing: inbound mail becomes tickets and comments', function () {
  this.timeout(120_000);
  const stops: (() => Promise<unknown>)[] = [];
  let s3: TestS3Server;
  let database: TestDatabase;
  let mail: TestMailServer;
  let db: pg.Pool;
  let tickets: ServiceClient<'tickets'>;
  let comments: ServiceClient<'comments'>;
  let customers: ServiceClient<'customers'>;
  let projectId: number;
  /** The tickets service's database. */
  let ticketsDb: pg.Pool;
  let addresses: Parameters<typeof startTestMailServer>[0];
  /** The next attempt reaching this stage hangs forever (a processor killed there). */
  let crashAt: ProcessingStage | null = null;
  let crashed = false;

  before(async () => {
    const peers = await startMailPeers({
      label: 'mailproc',
      project: { name: 'Support', slug: 'sup', prefix: 'SUP' },
    });
    stops.push(() => peers.stop());
    projectId = peers.projectId;
    s3 = peers.s3;
    ticketsDb = new pg.Pool({ connectionString: peers.ticketsDatabaseUrl, max: 2 });
    stops.push(() => ticketsDb.end());
    database = await createTestDatabase('mailproc', MAIL_MIGRATIONS_DIR);
    stops.push(() => database.drop());
    addresses = {
      lookupAddress: peers.lookupAddress,
      ticketsAddress: peers.ticketsAddress,
      commentsAddress: peers.commentsAddress,
      customersAddress: peers.customersAddress,
      attachmentsAddress: peers.attachmentsAddress,
      store: s3.config,
      databaseUrl: database.url,
      maxBytes: 2 * 1024 * 1024,
      resolver: DNS,
    };
    mail = await startTestMailServer({
      ...addresses,
      processor: {
        onStage: async (stage) => {
          if (stage !== crashAt) return;
          crashAt = null;
          crashed = true;
          await new Promise(() => undefined);
        },
      },
    });
    db = new pg.Pool({ connectionString: database.url, max: 3 });
    tickets = createServiceClient('tickets', peers.ticketsAddress, { deadlineMs: 10_000 });
    comments = createServiceClient('comments', peers.commentsAddress, { deadlineMs: 10_000 });
    customers = createServiceClient('customers', peers.customersAddress, { deadlineMs: 10_000 });
  });

  after(async () => {
    tickets?.close();
    comments?.close();
    customers?.close();
    await db?.end();
    await mail?.stop();
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  async function send(raw: string, from = 'customer@example.com'): Promise<void> {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: mail.smtpPort,
      ignoreTLS: true,
      name: 'client.example.net',
    });
    try {
      await transport.sendMail({ envelope: { from, to: ADDRESS }, raw });
    } finally {
      transport.close();
    }
  }

  function message(headers: Record<string, string>, body: string): string {
    const lines = Object.entries({ To: ADDRESS, Date: 'Thu, 03 Dec 2026 12:00:00 +0000', ...headers }).map(
      ([name, value]) => `${name}: ${value}`,
    );
    return [...lines, '', body, ''].join('\r\n');
  }

  /** The inbound row of that Message-ID once it reached a final state. */
  function settled(messageId: string): Promise<Row> {
    return eventually(async () => {
      const { rows } = await db.query<Row>(
        'SELECT id::text AS id, state, outcome FROM inbound_messages WHERE message_id = $1',
        [messageId],
      );
      expect(rows, `the row of ${messageId}`).to.have.length(1);
      expect(rows[0]!.state).to.be.oneOf(['processed', 'ignored', 'refused', 'failed']);
      return rows[0]!;
    }, 30_000);
  }

  const principal = { kind: 'api_key' as const, user_id: 1, role: 'admin' as const, scopes: [] };
  async function ticket(id: number): Promise<TicketJson> {
    const answer = await tickets.GetTicket({ project_id: projectId, id }, { principal });
    return JSON.parse(answer.json.toString('utf8')) as TicketJson;
  }
  async function ticketCount(): Promise<number> {
    const page = await tickets.ListTickets(
      { project_id: projectId, page: { page: 1, per_page: 1 }, sort: '+id' },
      { principal },
    );
    return page.pagination?.total ?? -1;
  }

  let first: TicketJson;

  it('a new mail over SMTP opens a ticket: requester and CC as customers, source email, its Message-ID kept', async () => {
    await send(
      message(
        {
          From: 'Alice Example <alice@example.com>',
          Cc: 'Bob <bob@example.com>',
          Subject: 'The printer is on fire',
          'Message-ID': '<first@example.com>',
          'Authentication-Results': 'relay.example; spf=pass; dkim=pass; dmarc=pass',
        },
        'It started this morning.\r\n\r\nOn Mon, Bob wrote:\r\n> old text',
      ),
      'alice@example.com',
    );
    const row = await settled('first@example.com');
    expect(row.state).to.equal('processed');
    expect(row.outcome).to.include({ action: 'new_ticket', automatic: false, from: 'alice@example.com' });
    // No trusted relay is configured: the results in the header are not believed; Tix's own checks
    // find no SPF or DMARC record for example.com and no signature.
    expect(row.outcome!.auth).to.include({ spf: 'none', dkim: 'none', dmarc: 'none' });
    expect(row.outcome!.auth).to.not.have.property('relay');
    first = await ticket(row.outcome!.ticket_id as number);
    expect(first).to.include({ title: 'The printer is on fire', source_type: 'email' });
    expect(first.description).to.contain('It started this morning.');
    expect(first.description).not.to.contain('old text');
    const { customers: found } = await customers.BatchGetCustomers(
      { ids: [first.requester_id!, ...first.cc] },
      { principal },
    );
    expect(found.map((c) => [c.name, c.emails])).to.deep.equal([
      ['Alice Example', ['alice@example.com']],
      ['Bob', ['bob@example.com']],
    ]);
    expect(row.outcome!.customer_id).to.equal(first.requester_id);
    const { rows } = await db.query(
      'SELECT ticket_id, direction FROM ticket_messages WHERE message_id = $1',
      ['<first@example.com>'],
    );
    expect(rows).to.deep.equal([{ ticket_id: first.id, direction: 'in' }]);
  });

  it('a reply with In-Reply-To is a public comment of the customer on the same ticket; a new address becomes a CC', async () => {
    await send(
      message(
        {
          From: 'alice@example.com',
          Cc: 'carol@example.com',
          Subject: 'Re: The printer is on fire',
          'Message-ID': '<reply-1@example.com>',
          'In-Reply-To': '<first@example.com>',
          References: '<first@example.com>',
        },
        'It is out now.\r\n\r\nOn Mon, Support wrote:\r\n> quoted',
      ),
    );
    const row = await settled('reply-1@example.com');
    expect(row.outcome).to.include({
      action: 'comment',
      ticket_id: first.id,
      customer_id: first.requester_id,
    });
    const listed = await collect(comments, projectId, first.id);
    expect(listed.map((c) => [c.author_type, c.customer_id, c.is_internal, c.content])).to.deep.equal([
      ['customer', first.requester_id, false, 'It is out now.'],
    ]);
    const after = await ticket(first.id);
    expect(after.cc).to.have.length(2);
    expect(await ticketCount()).to.equal(1);
  });

  it('a reply to a ticket closed within the reopen window reopens it with the comment', async () => {
    await tickets.UpdateTicket({ project_id: projectId, id: first.id, status: 'closed' }, { principal });
    expect((await ticket(first.id)).status).to.equal('closed');
    await send(
      message(
        {
          From: 'alice@example.com',
          Subject: 'Re: The printer is on fire',
          'Message-ID': '<reply-2@example.com>',
          'In-Reply-To': '<reply-1@example.com>',
          References: '<first@example.com> <reply-1@example.com>',
        },
        'It is burning again.',
      ),
    );
    const row = await settled('reply-2@example.com');
    expect(row.outcome).to.include({ action: 'reopen_and_comment', ticket_id: first.id });
    expect((await ticket(first.id)).status).to.equal('open');
    expect((await collect(comments, projectId, first.id)).map((c) => c.content)).to.deep.equal([
      'It is out now.',
      'It is burning again.',
    ]);
  });

  it('a subject tag from a stranger opens a new ticket linked to the tagged one', async () => {
    await send(
      message(
        {
          From: 'mallory@evil.example',
          Subject: `Re: [${first.ticket_number}] give me the data`,
          'Message-ID': '<guess@evil.example>',
        },
        'Please send everything.',
      ),
    );
    const row = await settled('guess@evil.example');
    expect(row.outcome).to.include({ action: 'new_ticket', linked_to: first.id });
    expect(row.outcome!.ticket_id).to.not.equal(first.id);
    const opened = await ticket(row.outcome!.ticket_id as number);
    expect(opened.description).to.contain(first.ticket_number);
    // One internal note on each ticket, naming the other and why; nothing public on the tagged one.
    const onTagged = await collect(comments, projectId, first.id);
    expect(onTagged).to.have.length(3);
    expect(onTagged[2]).to.deep.include({ is_internal: true, author_type: 'staff' });
    expect(onTagged[2]!.content).to.equal(
      `Mail from mallory@evil.example names this ticket; it opened the new ticket ${opened.ticket_number} instead: its subject names the ticket, but mallory@evil.example is neither its requester, a CC nor staff.`,
    );
    const onOpened = await collect(comments, projectId, opened.id);
    expect(onOpened.map((c) => [c.is_internal, c.content])).to.deep.equal([
      [
        true,
        `Opened from mail that names ${first.ticket_number}, as a new ticket linked to it: its subject names the ticket, but mallory@evil.example is neither its requester, a CC nor staff.`,
      ],
    ]);
    // A second run of the same message (a retry after a crash) writes no second note.
    await db.query(
      "UPDATE inbound_messages SET state = 'received', attempts = 0, claimed_at = NULL, outcome = NULL WHERE message_id = $1",
      ['guess@evil.example'],
    );
  });

  it('a retried message repeats no linked note', async () => {
    const row = await eventually(async () => {
      const settledRow = await settled('guess@evil.example');
      expect(settledRow.state).to.equal('processed');
      return settledRow;
    }, 30_000);
    const opened = row.outcome!.ticket_id as number;
    // It ran again (attempts were reset to 0), and made the same ticket, once.
    const { rows } = await db.query('SELECT attempts FROM inbound_messages WHERE message_id = $1', [
      'guess@evil.example',
    ]);
    expect(rows[0].attempts).to.equal(1);
    expect(row.outcome).to.include({ action: 'new_ticket', linked_to: first.id });
    expect(await collect(comments, projectId, first.id)).to.have.length(3);
    expect(await collect(comments, projectId, opened)).to.have.length(1);
  });

  it('an HTML reply with an inline image is a comment whose content_html shows the stored image, quote removed', async () => {
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    await send(
      [
        'From: alice@example.com',
        `To: ${ADDRESS}`,
        'Subject: Re: The printer is on fire',
        'Message-ID: <html-1@example.com>',
        'In-Reply-To: <reply-2@example.com>',
        'MIME-Version: 1.0',
        'Content-Type: multipart/related; boundary="rel"',
        '',
        '--rel',
        'Content-Type: multipart/alternative; boundary="alt"',
        '',
        '--alt',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'See the smoke.',
        '',
        'On Mon, Support wrote:',
        '> old',
        '--alt',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<div dir="ltr">See the <b>smoke</b>:<br><img src="cid:smoke@example.com" alt="smoke"></div><div class="gmail_quote"><div class="gmail_attr">On Mon, Support wrote:</div><blockquote class="gmail_quote">old<img src="cid:smoke@example.com"></blockquote></div>',
        '--alt--',
        '--rel',
        'Content-Type: image/png; name="smoke.png"',
        'Content-Transfer-Encoding: base64',
        'Content-ID: <smoke@example.com>',
        'Content-Disposition: inline; filename="smoke.png"',
        '',
        png,
        '--rel--',
        '',
      ].join('\r\n'),
    );
    const row = await settled('html-1@example.com');
    expect(row.outcome).to.include({ action: 'comment', ticket_id: first.id });
    const [image] = row.outcome!.attachments as number[];
    expect(image).to.be.a('number');
    const comment = (await collect(comments, projectId, first.id)).find(
      (c) => c.id === row.outcome!.comment_id,
    )!;
    expect(comment.content).to.equal('See the smoke.');
    expect(comment.content_html).to.equal(
      `See the <b>smoke</b>:<br /><img src="/attachments/${image}/download" alt="smoke" />`,
    );
  });

  it('a reply to a ticket closed 20 days ago (window 14) opens a new linked ticket; closed 2 days ago it reopens', async () => {
    const closeDaysAgo = async (days: number) => {
      await tickets.UpdateTicket({ project_id: projectId, id: first.id, status: 'closed' }, { principal });
      await ticketsDb.query(
        `UPDATE tickets SET closed_at = now() - make_interval(days => $2), updated_at = now() WHERE id = $1`,
        [first.id, days],
      );
      const closed = await ticket(first.id);
      expect(Date.now() - Date.parse(closed.closed_at!)).to.be.closeTo(days * 86_400_000, 60_000);
      // The last change is recent: only closed_at can tell the two cases apart.
      expect(Date.now() - Date.parse(closed.updated_at)).to.be.below(60_000);
    };
    const reply = (id: string) =>
      send(
        message(
          {
            From: 'alice@example.com',
            Subject: 'Re: The printer is on fire',
            'Message-ID': `<${id}>`,
            'In-Reply-To': '<reply-2@example.com>',
          },
          'Still broken.',
        ),
      );

    await closeDaysAgo(20);
    await reply('late-1@example.com');
    const late = await settled('late-1@example.com');
    expect(late.outcome).to.include({ action: 'new_ticket', linked_to: first.id });
    const opened = await ticket(late.outcome!.ticket_id as number);
    expect((await ticket(first.id)).status).to.equal('closed');
    const why = 'the ticket was closed more than 14 days ago (the reopen window)';
    expect(
      (await collect(comments, projectId, opened.id)).map((c) => [c.is_internal, c.content]),
    ).to.deep.equal([
      [true, `Opened from mail that names ${first.ticket_number}, as a new ticket linked to it: ${why}.`],
    ]);
    const notes = (await collect(comments, projectId, first.id)).filter((c) =>
      c.content.includes(opened.ticket_number),
    );
    expect(notes.map((c) => [c.is_internal, c.content])).to.deep.equal([
      [
        true,
        `Mail from alice@example.com names this ticket; it opened the new ticket ${opened.ticket_number} instead: ${why}.`,
      ],
    ]);

    await closeDaysAgo(2);
    await reply('soon-1@example.com');
    const soon = await settled('soon-1@example.com');
    expect(soon.outcome).to.include({ action: 'reopen_and_comment', ticket_id: first.id });
    expect(soon.outcome).to.not.have.property('linked_to');
    expect((await ticket(first.id)).status).to.equal('open');
  });

  it('a bounce and an out-of-office reply open no ticket', async () => {
    const before = await ticketCount();
    await send(
      [
        'From: Mail Delivery System <mailer-daemon@example.com>',
        `To: ${ADDRESS}`,
        'Subject: Undelivered Mail Returned to Sender',
        'Message-ID: <dsn-1@example.com>',
        'MIME-Version: 1.0',
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
        '',
        '--b1',
        'Content-Type: text/plain',
        '',
        'Your message could not be delivered.',
        '--b1',
        'Content-Type: message/delivery-status',
        '',
        'Reporting-MTA: dns; mx.example.com',
        '',
        'Final-Recipient: rfc822; gone@example.com',
        'Action: failed',
        'Status: 5.1.1',
        '--b1--',
        '',
      ].join('\r\n'),
      '',
    );
    await send(
      message(
        {
          From: 'dave@example.com',
          Subject: 'Automatic reply: your request',
          'Auto-Submitted': 'auto-replied',
          'Message-ID': '<ooo-1@example.com>',
        },
        'I am out of the office until Monday.',
      ),
    );
    expect(await settled('dsn-1@example.com')).to.deep.include({ state: 'ignored' });
    expect((await settled('dsn-1@example.com')).outcome).to.include({ reason: 'bounce' });
    const ooo = await settled('ooo-1@example.com');
    expect(ooo.state).to.equal('ignored');
    expect(ooo.outcome).to.include({ reason: 'auto_reply', automatic: true });
    expect(await ticketCount()).to.equal(before);
  });

  it('a message with too many parts and an oversized one are refused, each with one refusal mail', async () => {
    const parts = Array.from({ length: 600 }, (_, i) => `--p\r\nContent-Type: text/plain\r\n\r\npart ${i}`);
    await send(
      [
        'From: erin@example.com',
        `To: ${ADDRESS}`,
        'Subject: Many parts',
        'Message-ID: <parts-1@example.com>',
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="p"',
        '',
        ...parts,
        '--p--',
        '',
      ].join('\r\n'),
    );
    const partsRow = await settled('parts-1@example.com');
    expect(partsRow).to.deep.include({ state: 'refused' });
    expect(partsRow.outcome).to.include({
      reason: 'too_many_parts',
      refusal: 'queued',
      from: 'erin@example.com',
    });
    // Larger than the service accepts, stored as the IMAP fetcher would store it (SMTP refuses it with 552).
    const big = message(
      { From: 'frank@example.com', Subject: 'Huge', 'Message-ID': '<big-1@example.com>' },
      'x'.repeat(3 * 1024 * 1024),
    );
    const store = createRawStore({ ...s3.config, bucket: 'tix-mail', region: 'us-east-1' });
    const { rows: boxes } = await db.query<{ id: number }>('SELECT id FROM mailboxes WHERE address = $1', [
      ADDRESS,
    ]);
    const client = await db.connect();
    try {
      await storeInbound(client, store, {
        mailboxId: boxes[0]!.id,
        source: 'imap',
        raw: Buffer.from(big),
        uid: 1,
        uidvalidity: 1,
      });
    } finally {
      client.release();
    }
    const bigRow = await settled('big-1@example.com');
    expect(bigRow.outcome).to.include({ reason: 'too_large', refusal: 'queued' });
    const { rows } = await db.query(
      `SELECT kind, to_addresses, automatic, in_reply_to FROM outbound_messages WHERE kind = 'refusal' ORDER BY id`,
    );
    expect(rows).to.deep.equal([
      {
        kind: 'refusal',
        to_addresses: ['erin@example.com'],
        automatic: true,
        in_reply_to: '<parts-1@example.com>',
      },
      {
        kind: 'refusal',
        to_addresses: ['frank@example.com'],
        automatic: true,
        in_reply_to: '<big-1@example.com>',
      },
    ]);
  });

  it('with acknowledgements on, a new ticket queues one tagged acknowledgement; an automatic mail gets none', async () => {
    await db.query(
      `INSERT INTO project_mail_settings (project_id, acknowledge) VALUES ($1, true)
       ON CONFLICT (project_id) DO UPDATE SET acknowledge = true`,
      [projectId],
    );
    await send(
      message(
        { From: 'gina@example.com', Subject: 'New laptop', 'Message-ID': '<ack-1@example.com>' },
        'Please.',
      ),
    );
    const row = await settled('ack-1@example.com');
    const opened = await ticket(row.outcome!.ticket_id as number);
    const { rows } = await db.query(
      `SELECT subject, to_addresses, automatic, in_reply_to, message_id FROM outbound_messages WHERE kind = 'acknowledgement'`,
    );
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ automatic: true, in_reply_to: '<ack-1@example.com>' });
    expect(rows[0].to_addresses).to.deep.equal(['gina@example.com']);
    expect(rows[0].subject).to.contain(`[${opened.ticket_number}]`);
    // A reply to the acknowledgement threads onto the ticket.
    const known = await db.query('SELECT ticket_id FROM ticket_messages WHERE message_id = $1', [
      rows[0].message_id,
    ]);
    expect(known.rows).to.deep.equal([{ ticket_id: opened.id }]);
    await send(
      message(
        {
          From: 'list-bot@example.com',
          Subject: 'Weekly digest',
          Precedence: 'bulk',
          'Message-ID': '<bulk-1@example.com>',
        },
        'News.',
      ),
    );
    expect((await settled('bulk-1@example.com')).state).to.equal('ignored');
    const after = await db.query(
      `SELECT count(*)::int AS n FROM outbound_messages WHERE kind = 'acknowledgement'`,
    );
    expect(after.rows[0].n).to.equal(1);
  });

  it("sender authentication: a signed mail passes; a forged one failing DMARC is flagged, unacknowledged, not the customer's", async () => {
    const genuine = message(
      {
        From: 'Carol <carol@victim.example.com>',
        Subject: 'Invoice question',
        'Message-ID': '<carol-1@victim.example.com>',
      },
      'Where is my invoice?',
    );
    const signature = await dkimModule.dkimSign(genuine, {
      signatureData: [
        {
          signingDomain: 'victim.example.com',
          selector: 'tix',
          privateKey: DKIM_KEY.export({ type: 'pkcs8', format: 'pem' }).toString(),
        },
      ],
    });
    await send(signature.signatures + genuine, 'carol@victim.example.com');
    const good = await settled('carol-1@victim.example.com');
    expect(good.state).to.equal('processed');
    expect(good.outcome!.auth).to.include({
      spf: 'fail',
      dkim: 'pass',
      dkim_domain: 'victim.example.com',
      dmarc: 'pass',
      dmarc_policy: 'reject',
    });
    expect(good.outcome).to.not.have.property('untrusted');
    expect(good.outcome!.acknowledgement).to.equal('queued');
    const carolTicket = await ticket(good.outcome!.ticket_id as number);
    expect(carolTicket.tags ?? []).to.not.include('mail-untrusted');
    const envelope = await db.query(
      'SELECT smtp_client_ip, smtp_helo, smtp_mail_from FROM inbound_messages WHERE id = $1',
      [good.id],
    );
    expect(envelope.rows[0]).to.deep.equal({
      smtp_client_ip: '127.0.0.1',
      smtp_helo: 'client.example.net',
      smtp_mail_from: 'carol@victim.example.com',
    });

    // The same From, unsigned, with Carol's subject tag, from a host SPF does not name.
    await send(
      message(
        {
          From: 'Carol <carol@victim.example.com>',
          Subject: `Re: [${carolTicket.ticket_number}] Invoice question`,
          'Message-ID': '<forged-1@attacker.example.net>',
          'Authentication-Results': 'relay.example; spf=pass; dkim=pass; dmarc=pass',
        },
        'Please send the refund to this new account.',
      ),
      'carol@victim.example.com',
    );
    const forged = await settled('forged-1@attacker.example.net');
    expect(forged.state).to.equal('processed');
    expect(forged.outcome).to.include({ action: 'new_ticket', untrusted: true, linked_to: carolTicket.id });
    expect(forged.outcome).to.include({ acknowledgement: 'not_sent' });
    expect(forged.outcome!.auth).to.include({
      spf: 'fail',
      dkim: 'none',
      dmarc: 'fail',
      dmarc_policy: 'reject',
    });
    expect((forged.outcome!.auth as { summary: string }).summary).to.contain('dmarc=fail');
    const flagged = await ticket(forged.outcome!.ticket_id as number);
    expect(flagged.id).to.not.equal(carolTicket.id);
    expect(flagged.tags).to.include('mail-untrusted');
    const { rows: acks } = await db.query(
      `SELECT count(*)::int AS n FROM outbound_messages WHERE kind = 'acknowledgement' AND $1 = ANY(to_addresses)`,
      ['carol@victim.example.com'],
    );
    expect(acks[0].n).to.equal(1);

    // A forged reply threaded by In-Reply-To lands on Carol's ticket, and flags it.
    await send(
      message(
        {
          From: 'Carol <carol@victim.example.com>',
          Subject: 'Re: Invoice question',
          'Message-ID': '<forged-2@attacker.example.net>',
          'In-Reply-To': '<carol-1@victim.example.com>',
        },
        'Also change my address.',
      ),
      'carol@victim.example.com',
    );
    const reply = await settled('forged-2@attacker.example.net');
    expect(reply.outcome).to.include({ action: 'comment', ticket_id: carolTicket.id, untrusted: true });
    expect((await ticket(carolTicket.id)).tags).to.include('mail-untrusted');
  });

  it('a processor killed between CreateTicket and the final transaction makes exactly one ticket after its restart', async () => {
    const before = await ticketCount();
    crashAt = 'ticket_created';
    await send(
      message(
        { From: 'hank@example.com', Subject: 'Crash me', 'Message-ID': '<crash-1@example.com>' },
        'Once.',
      ),
    );
    await eventually(() => expect(crashed).to.equal(true), 30_000);
    // The ticket exists, the row is still `processing`: the process "dies" here.
    expect(await ticketCount()).to.equal(before + 1);
    await mail.stop();
    mail = await startTestMailServer({ ...addresses, processor: { leaseMs: 500 } });
    const row = await settled('crash-1@example.com');
    expect(row.state).to.equal('processed');
    expect(await ticketCount()).to.equal(before + 1);
    const opened = await ticket(row.outcome!.ticket_id as number);
    expect(opened.title).to.equal('Crash me');
    const attempts = await db.query('SELECT attempts FROM inbound_messages WHERE message_id = $1', [
      'crash-1@example.com',
    ]);
    expect(attempts.rows[0].attempts).to.equal(2);
  });
});

/** Every comment of the ticket (internal ones too), oldest first. */
async function collect(client: ServiceClient<'comments'>, projectId: number, ticketId: number) {
  const principal = { kind: 'api_key' as const, user_id: 1, role: 'admin' as const, scopes: [] };
  const out = [];
  const request = { project_id: projectId, ticket_id: ticketId, include_internal: true };
  for await (const comment of client.ListComments(request, { principal })) out.push(comment);
  return out;
}
