/**
 * Outbound mail through real parts: PostgreSQL, RabbitMQ (a private vhost), lookup, tickets,
 * comments (whose outbox publishes comment.created), customers, attachments (s3rver), the mail
 * service, and a receiving relay over TCP (smtp-server) behind a proxy the test cuts to take the
 * relay down.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import amqp from 'amqplib';
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, fromGrpcError, type OutgoingContext, type ServiceClient } from '@tix/kit';
import { createTestVhost, eventually, startTcpProxy, type TcpProxy, type TestVhost } from '@tix/kit/testing';
import { EVENTS_EXCHANGE, type lookup, type Principal } from '@tix/protos';
import { isRefusal, parseInbound, readToken } from '@tix/threading';
import {
  startTestAttachmentServer,
  startTestS3Server,
  type TestAttachmentServer,
  type TestS3Server,
} from '@tix/attachment-service/testing';
import { startTestCommentServer, type TestCommentServer } from '@tix/comment-service/testing';
import { startTestCustomerServer, type TestCustomerServer } from '@tix/customer-service/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestTicketServer, type TestTicketServer } from '@tix/ticket-service/testing';
import { recordBounce } from '../../src/outbound/bounces.js';
import { startTestMailServer, type TestMailServer } from '../../src/testing.js';
import { rawHeader, startTestRelay, type TestRelay } from './outbound-support.js';

const TOKEN_SECRET = 'outbound-test-token-secret';
const CORPUS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../lib/threading/test/corpus',
);

describe('outbound mail', function () {
  this.timeout(120_000);
  let vhost: TestVhost;
  let lookupServer: TestLookupServer;
  let ticketServer: TestTicketServer;
  let commentServer: TestCommentServer;
  let customerServer: TestCustomerServer;
  let s3: TestS3Server;
  let attachmentServer: TestAttachmentServer;
  let relay: TestRelay;
  let proxy: TcpProxy;
  let mail: TestMailServer;
  let client: ServiceClient<'mail'>;
  let tickets: ServiceClient<'tickets'>;
  let comments: ServiceClient<'comments'>;
  let customers: ServiceClient<'customers'>;
  let attachments: ServiceClient<'attachments'>;
  let db: pg.Pool;
  let support: lookup.Project__Output;
  let agent: OutgoingContext;
  let typeId: number;
  let requesterId: number;
  let ccId: number;

  before(async () => {
    vhost = await createTestVhost('mail_outbound');
    lookupServer = await startTestLookupServer({ label: 'mail_out_lookup' });
    const directory = createServiceClient('lookup', lookupServer.address, { deadlineMs: 10_000 });
    const seeded = await directory.SeedDemo({});
    directory.close();
    support = seeded.projects.find((project) => project.slug === 'support')!;
    typeId = seeded.ticket_types.find(
      (type) => type.project_id === support.id && (type.slug === 'question' || type.slug === 'task'),
    )!.id;
    const user = seeded.users.find((candidate) => candidate.email === 'agent@example.com')!;
    const principal: Principal = {
      kind: 'api_key',
      user_id: user.id,
      role: 'agent',
      scopes: ['tickets:read', 'tickets:write', 'comments:read', 'comments:write'],
    };
    agent = { principal };
    ticketServer = await startTestTicketServer({
      lookupAddress: lookupServer.address,
      label: 'mail_out_tickets',
    });
    commentServer = await startTestCommentServer({
      ticketsAddress: ticketServer.address,
      amqpUrl: vhost.url,
      label: 'mail_out_comments',
    });
    customerServer = await startTestCustomerServer({ label: 'mail_out_customers' });
    s3 = await startTestS3Server();
    attachmentServer = await startTestAttachmentServer({
      ticketsAddress: ticketServer.address,
      s3,
      label: 'mail_out_attachments',
    });
    relay = await startTestRelay();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: relay.port });
    mail = await startTestMailServer({
      lookupAddress: lookupServer.address,
      ticketsAddress: ticketServer.address,
      customersAddress: customerServer.address,
      attachmentsAddress: attachmentServer.address,
      store: s3.config,
      amqpUrl: vhost.url,
      tokenSecret: TOKEN_SECRET,
      outbound: { smtpUrl: `smtp://127.0.0.1:${proxy.port}`, maxAttempts: 30 },
      sender: { retryDelay: () => 200, pollIntervalMs: 100, leaseMs: 1_500 },
    });
    client = createServiceClient('mail', mail.address, { deadlineMs: 10_000 });
    tickets = createServiceClient('tickets', ticketServer.address, { deadlineMs: 10_000 });
    comments = createServiceClient('comments', commentServer.address, { deadlineMs: 10_000 });
    customers = createServiceClient('customers', customerServer.address, { deadlineMs: 10_000 });
    attachments = createServiceClient('attachments', attachmentServer.address, { deadlineMs: 10_000 });
    db = new pg.Pool({ connectionString: mail.databaseUrl, max: 3 });
    requesterId = (
      await customers.CreateCustomer({
        name: 'Cora Customer',
        emails: ['cora@example.com', 'cora.alt@example.com'],
        notes: '',
      })
    ).id;
    ccId = (await customers.CreateCustomer({ name: 'Carl Copy', emails: ['carl@example.com'], notes: '' }))
      .id;
    await client.UpdateProjectMailSettings({
      project_id: support.id,
      signature: 'The Support Team\nExample Inc.',
      from_name: 'Example Support',
    });
  });

  after(async () => {
    for (const c of [client, tickets, comments, customers, attachments]) c?.close();
    await db?.end();
    await mail?.stop();
    await proxy?.close();
    await relay?.close();
    await attachmentServer?.stop();
    await s3?.stop();
    await customerServer?.stop();
    await commentServer?.stop();
    await ticketServer?.stop();
    await lookupServer?.stop();
    await vhost?.drop();
  });

  async function newTicket(title: string, withRequester = true) {
    const created = await tickets.CreateTicket(
      {
        project_id: support.id,
        ticket_type_id: typeId,
        title,
        custom_fields_json: '',
        ...(withRequester ? { requester_id: requesterId, cc: [ccId] } : {}),
      },
      agent,
    );
    return JSON.parse(created.json.toString('utf8')) as { id: number; ticket_number: string };
  }

  async function comment(
    ticketId: number,
    content: string,
    extra: { is_internal?: boolean; content_html?: string } = {},
  ) {
    return comments.CreateComment(
      {
        project_id: support.id,
        ticket_id: ticketId,
        content,
        is_internal: extra.is_internal ?? false,
        ...extra,
      },
      agent,
    );
  }

  async function rowsOf(commentId: number) {
    const { rows } = await db.query<{
      id: string;
      state: string;
      message_id: string;
      attempt_count: number;
      attempts: { ok: boolean; error?: string; bounce?: string }[];
    }>('SELECT * FROM outbound_messages WHERE comment_id = $1', [commentId]);
    return rows;
  }

  const relayed = (messageId: string) => relay.received.filter((m) => m.parsed.messageId === messageId);

  function upload(ticketId: number, filename: string, bytes: Buffer): Promise<{ id: number }> {
    return new Promise((resolve, reject) => {
      const call = attachments.raw.UploadAttachment(
        attachments.callMetadata(agent),
        attachments.callOptions(agent),
        (error, response) => (error ? reject(fromGrpcError(error)) : resolve(response!)),
      );
      call.write({
        header: {
          project_id: support.id,
          ticket_id: ticketId,
          original_filename: filename,
          declared_mime_type: 'text/plain',
        },
      });
      call.write({ chunk: bytes });
      call.end();
    });
  }

  let first: { ticketId: number; commentId: number; messageId: string };

  it('mails a public staff comment once, to the requester and CCs, threaded on the ticket', async () => {
    const ticket = await newTicket('Printer on fire');
    // The customer's mail that opened the ticket: the chain the reply answers.
    await db.query(
      `INSERT INTO ticket_messages (message_id, ticket_id, project_id, direction, created_at)
       VALUES ('<opened.1@example.com>', $1, $2, 'in', now() - interval '1 minute')`,
      [ticket.id, support.id],
    );
    const file = await upload(ticket.id, 'steps.txt', Buffer.from('1. unplug it\n2. extinguish\n'));
    const created = await comment(
      ticket.id,
      `Please follow the steps in /api/attachments/${file.id}/download`,
      { content_html: `<p>Please follow <a href="/api/attachments/${file.id}/download">the steps</a></p>` },
    );
    const row = await eventually(
      async () => (await rowsOf(created.id)).find((r) => r.state === 'sent'),
      20_000,
    );
    expect(row, 'the reply was sent').to.not.equal(undefined);
    const mails = relayed(row.message_id);
    expect(mails).to.have.length(1);
    const sent = mails[0]!;
    expect(sent.parsed.subject).to.equal(`Re: [${ticket.ticket_number}] Printer on fire`);
    expect(sent.parsed.to.map((a) => a.address)).to.deep.equal(['cora@example.com']);
    expect(sent.parsed.cc.map((a) => a.address)).to.deep.equal(['carl@example.com']);
    expect(sent.envelopeTo.sort()).to.deep.equal(['carl@example.com', 'cora@example.com']);
    expect(sent.parsed.from).to.deep.equal({ address: 'support@tix.localhost', name: 'Example Support' });
    expect(sent.parsed.inReplyTo).to.equal('<opened.1@example.com>');
    expect(sent.parsed.references).to.deep.equal(['<opened.1@example.com>']);
    expect(sent.parsed.messageId).to.match(
      new RegExp(`^<tix\\.${ticket.id}\\.${created.id}\\.[0-9a-f]+@tix\\.localhost>$`),
    );
    expect(rawHeader(sent.raw, 'Auto-Submitted'), 'a person wrote it').to.equal(undefined);
    expect(sent.parsed.text).to.contain('Please follow the steps');
    expect(sent.parsed.text).to.contain('-- \nThe Support Team\nExample Inc.');
    expect(readToken(sent.parsed.text, TOKEN_SECRET)).to.equal(ticket.id);
    expect(sent.parsed.html).to.contain('the steps');
    expect(readToken(sent.parsed.replyTo[0]!.address, TOKEN_SECRET), 'Reply-To is the plus-address').to.equal(
      ticket.id,
    );
    expect(sent.parsed.attachments.map((a) => [a.filename, a.content.toString()])).to.deep.equal([
      ['steps.txt', '1. unplug it\n2. extinguish\n'],
    ]);
    // The reply's Message-ID joined the ticket's chain (threading knows it as Tix's own).
    const { rows: chain } = await db.query(
      'SELECT message_id, direction, comment_id FROM ticket_messages WHERE ticket_id = $1 ORDER BY created_at',
      [ticket.id],
    );
    expect(chain.map((m) => [m.message_id, m.direction, m.comment_id])).to.deep.equal([
      ['<opened.1@example.com>', 'in', null],
      [row.message_id, 'out', created.id],
    ]);
    first = { ticketId: ticket.id, commentId: created.id, messageId: row.message_id };

    // The next reply answers the first and carries the whole chain.
    const second = await comment(ticket.id, 'Did that help?');
    const next = await eventually(
      async () => (await rowsOf(second.id)).find((r) => r.state === 'sent'),
      20_000,
    );
    const nextMail = relayed(next.message_id)[0]!;
    expect(nextMail.parsed.inReplyTo).to.equal(first.messageId);
    expect(nextMail.parsed.references).to.deep.equal(['<opened.1@example.com>', first.messageId]);
    expect(nextMail.parsed.html, 'no HTML part without content_html').to.equal(null);
  });

  it("mails no internal note, no customer's own comment, and nothing for a ticket without a requester", async () => {
    const ticket = await newTicket('Internal only');
    const note = await comment(ticket.id, 'Team only: the customer is on the old plan', {
      is_internal: true,
    });
    // A customer's own comment (the mail service or the portal writes it for them) is never mailed back.
    const system: OutgoingContext = { principal: { ...agent.principal!, kind: 'system' } };
    const fromCustomer = await comments.CreateComment(
      {
        project_id: support.id,
        ticket_id: ticket.id,
        content: 'Thanks, customer here',
        customer_id: requesterId,
      },
      system,
    );
    expect(fromCustomer.author_type).to.equal('customer');
    const bare = await newTicket('No requester', false);
    const orphan = await comment(bare.id, 'Nobody to mail');
    // A later public comment on the first ticket is mailed: the events before it were handled.
    const later = await comment(ticket.id, 'Public answer');
    await eventually(async () => (await rowsOf(later.id)).find((r) => r.state === 'sent'), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await rowsOf(note.id)).to.have.length(0);
    expect(await rowsOf(orphan.id)).to.have.length(0);
    expect(await rowsOf(fromCustomer.id)).to.have.length(0);
    expect(relay.received.filter((m) => m.parsed.text.includes('old plan'))).to.have.length(0);
  });

  it('a redelivered comment.created mails nothing more', async () => {
    const ticket = await newTicket('Redelivery');
    const created = await comment(ticket.id, 'Once only');
    const row = await eventually(
      async () => (await rowsOf(created.id)).find((r) => r.state === 'sent'),
      20_000,
    );
    // The same event again, as the broker redelivers it (same id, same body).
    const connection = await amqp.connect(vhost.url);
    const channel = await connection.createConfirmChannel();
    const body = {
      id: 'redelivered-0001',
      type: 'comment.created',
      occurred_at: new Date().toISOString(),
      source: 'comments',
      project_id: support.id,
      data: {
        id: created.id,
        ticket_id: ticket.id,
        user_id: created.user_id,
        content: 'Once only',
        content_html: null,
        is_internal: false,
        created_at: created.created_at,
        updated_at: created.updated_at,
      },
    };
    for (let i = 0; i < 2; i += 1)
      channel.publish(EVENTS_EXCHANGE, 'comment.created', Buffer.from(JSON.stringify(body)), {
        messageId: body.id,
        contentType: 'application/json',
        persistent: true,
      });
    await channel.waitForConfirms();
    await connection.close();
    const later = await comment(ticket.id, 'A later one');
    await eventually(async () => (await rowsOf(later.id)).find((r) => r.state === 'sent'), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await rowsOf(created.id)).to.have.length(1);
    expect(relayed(row.message_id)).to.have.length(1);
  });

  it('keeps mail while the relay is down and sends it once when it is back', async () => {
    const ticket = await newTicket('Relay outage');
    await proxy.cut();
    const created = await comment(ticket.id, 'Written during the outage');
    const failing = await eventually(async () => {
      const [row] = await rowsOf(created.id);
      return row && row.state === 'queued' && row.attempt_count >= 2 ? row : undefined;
    }, 20_000);
    expect(failing.attempts.every((a) => !a.ok && (a.error ?? '') !== '')).to.equal(true);
    expect(relayed(failing.message_id)).to.have.length(0);
    await proxy.restore();
    const sent = await eventually(
      async () => (await rowsOf(created.id)).find((r) => r.state === 'sent'),
      20_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(relayed(sent.message_id)).to.have.length(1);
    expect(sent.attempts.at(-1)!.ok).to.equal(true);
    const listed = await client.ListOutboundMessages({ comment_id: created.id, ticket_id: 0 });
    expect(listed.messages).to.have.length(1);
    expect(listed.messages[0]!.state).to.equal('sent');
    expect(listed.messages[0]!.attempts.length).to.equal(sent.attempts.length);
    expect(listed.messages[0]!.sent_at).to.not.equal('');
  });

  it('sends again, once, a mail whose sender died mid-send (lease ran out while sending)', async () => {
    const ticket = await newTicket('Crash mid-send');
    const { rows } = await db.query<{ id: string; message_id: string }>(
      `INSERT INTO outbound_messages (kind, project_id, ticket_id, message_id, from_address, to_addresses,
          subject, text, state, attempt_count, next_attempt_at)
       VALUES ('reply', $1, $2, '<tix.crash.1@tix.localhost>', 'support@tix.localhost', '{cora@example.com}',
          'Re: crash', 'hello', 'sending', 1, now() - interval '1 second') RETURNING id, message_id`,
      [support.id, ticket.id],
    );
    const row = await eventually(async () => {
      const { rows: now } = await db.query('SELECT * FROM outbound_messages WHERE id = $1', [rows[0]!.id]);
      return now[0]?.state === 'sent' ? now[0] : undefined;
    }, 20_000);
    expect(row.attempt_count).to.equal(2);
    expect(row.attempts[0].error).to.match(/^interrupted/);
    expect(relayed('<tix.crash.1@tix.localhost>')).to.have.length(1);
  });

  it('fails a mail the relay refuses for good (5xx) after one attempt', async () => {
    relay.refuse.add('gone@example.com');
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO outbound_messages (kind, project_id, message_id, from_address, to_addresses, subject, text)
       VALUES ('refusal', $1, '<tix.refused.1@tix.localhost>', 'support@tix.localhost', '{gone@example.com}',
          'Your message was too large', 'Sorry') RETURNING id`,
      [support.id],
    );
    const row = await eventually(async () => {
      const { rows: now } = await db.query('SELECT * FROM outbound_messages WHERE id = $1', [rows[0]!.id]);
      return now[0]?.state === 'failed' ? now[0] : undefined;
    }, 20_000);
    expect(row.attempt_count).to.equal(1);
    expect(row.last_error).to.match(/550|unavailable/);
  });

  it('puts Auto-Submitted on automatic mail and holds each address to the per-sender limit', async () => {
    const insert = (id: string) =>
      db.query<{ id: string }>(
        `INSERT INTO outbound_messages (kind, project_id, message_id, from_address, to_addresses, subject, text, automatic)
         VALUES ('acknowledgement', $1, $2, 'support@tix.localhost', '{auto.limit@example.com}', 'We got it', 'Thanks', true)
         RETURNING id`,
        [support.id, id],
      );
    const one = (await insert('<tix.ack.1@tix.localhost>')).rows[0]!.id;
    await eventually(() => relayed('<tix.ack.1@tix.localhost>').length === 1, 20_000);
    const raw = relayed('<tix.ack.1@tix.localhost>')[0]!.raw;
    expect(rawHeader(raw, 'Auto-Submitted')).to.equal('auto-replied');
    expect(rawHeader(raw, 'X-Auto-Response-Suppress')).to.equal('All');
    const two = (await insert('<tix.ack.2@tix.localhost>')).rows[0]!.id;
    const suppressed = await eventually(async () => {
      const { rows } = await db.query('SELECT * FROM outbound_messages WHERE id = $1', [two]);
      return rows[0]?.state === 'suppressed' ? rows[0] : undefined;
    }, 20_000);
    expect(suppressed.last_error).to.match(/^suppressed/);
    expect(relayed('<tix.ack.2@tix.localhost>')).to.have.length(0);
    const { rows } = await db.query('SELECT state FROM outbound_messages WHERE id = $1', [one]);
    expect(rows[0].state).to.equal('sent');
  });

  it('marks the reply a DSN names as bounced, with the reason, once', async () => {
    const template = await readFile(path.join(CORPUS, '067-bounce-dsn-unthreaded.eml'), 'utf8');
    const dsn = await parseInbound(
      Buffer.from(template.replaceAll('<tix.1.10.aaaa@tix.localhost>', first.messageId)),
    );
    if (isRefusal(dsn)) throw new Error('the corpus DSN did not parse');
    const recorded = await recordBounce(db, dsn);
    expect(recorded).to.deep.include({
      messageId: first.messageId,
      ticketId: first.ticketId,
      commentId: first.commentId,
    });
    expect(recorded!.reason).to.contain('nobody@example.com').and.to.contain('5.1.1');
    await recordBounce(db, dsn);
    const listed = await client.ListOutboundMessages({ comment_id: first.commentId, ticket_id: 0 });
    const bounced = listed.messages[0]!;
    expect(bounced.state).to.equal('bounced');
    expect(bounced.bounced_at).to.not.equal('');
    expect(bounced.bounce_reason).to.equal(recorded!.reason);
    expect(bounced.attempts.filter((a) => a.bounce !== '')).to.have.length(1);
    const byTicket = await client.ListOutboundMessages({ comment_id: 0, ticket_id: first.ticketId });
    expect(byTicket.messages.map((m) => m.comment_id)).to.include(first.commentId);
    // A DSN about mail Tix never sent changes nothing.
    const stranger = await parseInbound(
      Buffer.from(template.replaceAll('<tix.1.10.aaaa@tix.localhost>', '<x@y.z>')),
    );
    if (isRefusal(stranger)) throw new Error('the corpus DSN did not parse');
    expect(await recordBounce(db, stranger)).to.equal(null);
  });

  it('reads and validates project mail settings', async () => {
    const defaults = await client.GetProjectMailSettings({ project_id: 999_999 });
    expect(defaults).to.deep.include({
      from_address: '',
      signature: '',
      reopen_window_days: 14,
      acknowledge: false,
    });
    const saved = await client.UpdateProjectMailSettings({
      project_id: 999_999,
      from_address: 'Help@Example.com',
      ack_subject: 'We received [{{ticket.number}}]',
      ack_body: 'Hello {{requester.name}}, about {{ticket.title}}',
      reopen_window_days: 0,
      acknowledge: true,
    });
    expect(saved).to.deep.include({
      from_address: 'help@example.com',
      reopen_window_days: 0,
      acknowledge: true,
    });
    expect((await client.GetProjectMailSettings({ project_id: 999_999 })).ack_body).to.equal(saved.ack_body);
    const refused = await client
      .UpdateProjectMailSettings({
        project_id: 999_999,
        from_address: 'not an address',
        signature: 'x'.repeat(10_001),
        ack_body: 'Hi {{customer.secret}}',
        reopen_window_days: 366,
      })
      .then(
        () => null,
        (error: unknown) => error as { kind: string; validationErrors?: Record<string, unknown> },
      );
    expect(refused?.kind).to.equal('validation_failed');
    expect(Object.keys(refused?.validationErrors ?? {}).sort()).to.deep.equal([
      'ack_body',
      'from_address',
      'reopen_window_days',
      'signature',
    ]);
    const list = await client.ListOutboundMessages({ comment_id: 0, ticket_id: 0 }).then(
      () => null,
      (error: unknown) => error as { kind: string },
    );
    expect(list?.kind).to.equal('bad_request');
  });
});
