/**
 * The ticket mail log and the project mail settings against the real lookup, ticket and mail
 * services (fresh databases, an S3 test server): GET /tickets/{id}/mail on both hosts answers the
 * mail the mail service recorded for a ticket of the caller's project only (404 `Ticket not found`
 * otherwise), optionally one comment's, with the mail received for it (`received`, its sender checks);
 * GET/PUT /mail-settings are for admins and answer the mail
 * service's field errors as 422. The delivery log and the received messages are written straight into
 * the mail service's database, as the sender and the processor leave them (its own tests cover both).
 */
import { expect } from 'chai';
import pg from 'pg';
import { expectError, suiteFixture } from '@tix/kit/testing';
import { startTestTicketServer } from '@tix/ticket-service/testing';
import { createAlphaAndBeta, createDefaultTypes } from '../support/lookup-seed.js';
import { startMailPeer } from '../support/mail-peer.js';
import { startRealServices } from '../support/real-services.js';
import { sendJson, signedInBrowser, type JsonResponse } from '../support/test-gateway.js';

const PASSWORD = 'ticket mail password';

describe('ticket mail and mail settings routes + real lookup, ticket and mail services', function () {
  this.timeout(60_000);
  let admin: Record<string, string>;
  let viewer: Record<string, string>;
  let types: Record<string, number> = {};
  const keys: Record<string, string> = {};
  let mailDatabaseUrl = '';

  const fleet = suiteFixture(() =>
    startRealServices({
      label: 'gateway_ticket_mail',
      seed: async (directory) => {
        await createAlphaAndBeta(directory);
        types = await createDefaultTypes(directory, ['alpha', 'beta']);
        for (const [name, role] of [
          ['Ada', 'admin'],
          ['Vic', 'viewer'],
        ] as const)
          await directory.CreateUser({
            name,
            email: `${name.toLowerCase()}@example.com`,
            role,
            password: PASSWORD,
          });
        keys.full = (
          await directory.CreateApiKey({
            user_email: 'ada@example.com',
            scopes: ['tickets:read', 'tickets:write', 'comments:read'],
            name: 'full',
          })
        ).key;
        keys.ticketsOnly = (
          await directory.CreateApiKey({
            user_email: 'ada@example.com',
            scopes: ['tickets:read'],
            name: 'tickets only',
          })
        ).key;
      },
      peers: {
        tickets: ({ lookup }) =>
          startTestTicketServer({ lookupAddress: lookup, label: 'gateway_ticket_mail' }),
        mail: async ({ lookup }) => {
          const mail = await startMailPeer(lookup, 'gateway_ticket_mail');
          mailDatabaseUrl = mail.databaseUrl;
          return mail;
        },
      },
    }),
  );

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const app = (
    path: string,
    headers: Record<string, string>,
    init: { method?: string; body?: unknown } = {},
  ) => sendJson(`${fleet.gateway.appUrl}/api${path}`, init.method ?? 'GET', headers, init.body);
  const api = (path: string, key = keys.full!, init: { method?: string; body?: unknown } = {}) =>
    sendJson(`${fleet.gateway.apiUrl}/v1${path}`, init.method ?? 'GET', bearer(key), init.body);
  const data = (response: JsonResponse, status = 200) => {
    expect(response.status, JSON.stringify(response.body)).to.equal(status);
    return response.body.data;
  };

  const tickets: Record<string, number> = {};

  /** One outbound_messages row as the sender leaves it. */
  async function recordMail(row: {
    projectId: number;
    ticketId: number;
    commentId: number | null;
    kind: string;
    state: string;
    to: string[];
    bounceReason?: string;
    lastError?: string;
  }) {
    const client = new pg.Client({ connectionString: mailDatabaseUrl });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO outbound_messages (kind, project_id, ticket_id, comment_id, message_id, from_address,
            to_addresses, subject, text, state, attempt_count, last_error, sent_at, bounced_at, bounce_reason)
         VALUES ($1, $2, $3, $4, $5, 'help@tix.localhost', $6, 'Re: a ticket', 'text', $7, 1, $8,
            CASE WHEN $7 IN ('sent', 'bounced') THEN now() END, CASE WHEN $7 = 'bounced' THEN now() END, $9)`,
        [
          row.kind,
          row.projectId,
          row.ticketId,
          row.commentId,
          `<t${row.ticketId}.c${row.commentId ?? 'ack'}.${row.state}@tix.localhost>`,
          row.to,
          row.state,
          row.lastError ?? null,
          row.bounceReason ?? null,
        ],
      );
    } finally {
      await client.end();
    }
  }

  /** One inbound_messages row as the processor's final transaction leaves it. */
  async function recordReceived(name: string, state: string, outcome: Record<string, unknown>) {
    const client = new pg.Client({ connectionString: mailDatabaseUrl });
    await client.connect();
    try {
      const box = await client.query<{ id: number }>(
        `INSERT INTO mailboxes (project_id, kind, address) VALUES ($1, 'smtp', 'help@alpha.example')
         ON CONFLICT (address) DO UPDATE SET address = EXCLUDED.address RETURNING id`,
        [tickets.alphaProject],
      );
      const row = await client.query<{ id: string }>(
        `INSERT INTO inbound_messages (mailbox_id, source, message_id, object_key, size, state, outcome)
         VALUES ($1, 'smtp', $2, $3, 321, $4, $5) RETURNING id`,
        [box.rows[0]!.id, `${name}@c.example`, `raw/${name}`, state, JSON.stringify(outcome)],
      );
      return Number(row.rows[0]!.id);
    } finally {
      await client.end();
    }
  }
  const received: Record<string, number> = {};
  const AUTH = {
    spf: 'pass',
    dkim: 'pass',
    dkim_domain: 'c.example',
    dmarc: 'pass',
    dmarc_domain: 'c.example',
  };

  before(async () => {
    admin = await signedInBrowser(fleet.gateway.appUrl, 'ada@example.com', PASSWORD);
    viewer = await signedInBrowser(fleet.gateway.appUrl, 'vic@example.com', PASSWORD);
    for (const project of ['alpha', 'beta']) {
      const created = data(
        await api(`/tickets?project=${project}`, keys.full, {
          method: 'POST',
          body: { title: `Mail for ${project}`, ticket_type_id: types[project] },
        }),
        201,
      ).ticket;
      tickets[project] = created.id;
      tickets[`${project}Project`] = created.project_id;
    }
    const alpha = { projectId: tickets.alphaProject!, ticketId: tickets.alpha! };
    await recordMail({
      ...alpha,
      commentId: null,
      kind: 'acknowledgement',
      state: 'sent',
      to: ['carol@c.example'],
    });
    await recordMail({
      ...alpha,
      commentId: 501,
      kind: 'reply',
      state: 'bounced',
      to: ['carol@c.example'],
      bounceReason: '550 No such user',
    });
    await recordMail({
      ...alpha,
      commentId: 502,
      kind: 'reply',
      state: 'failed',
      to: ['dan@c.example'],
      lastError: 'Connection refused',
    });
    await recordMail({
      projectId: tickets.betaProject!,
      ticketId: tickets.beta!,
      commentId: 503,
      kind: 'reply',
      state: 'queued',
      to: ['eve@c.example'],
    });
    received.opened = await recordReceived('opened', 'processed', {
      action: 'new_ticket',
      ticket_id: tickets.alpha,
      automatic: false,
      from: 'carol@c.example',
      auth: AUTH,
    });
    received.forged = await recordReceived('forged', 'processed', {
      action: 'comment',
      ticket_id: tickets.alpha,
      comment_id: 601,
      automatic: false,
      from: 'carol@c.example',
      auth: { ...AUTH, dkim: 'none', dkim_domain: undefined, dmarc: 'fail', dmarc_policy: 'reject' },
      untrusted: true,
    });
    // Not the ticket's: ignored (no comment), and another project's ticket.
    await recordReceived('ignored', 'ignored', {
      action: 'ignore',
      reason: 'auto_reply',
      ticket_id: tickets.alpha,
    });
    received.beta = await recordReceived('beta', 'processed', {
      action: 'comment',
      ticket_id: tickets.beta,
      comment_id: 602,
      auth: AUTH,
    });
  });

  it("lists a ticket's mail on both hosts, oldest first, and one comment's with ?comment_id=", async () => {
    const listed = data(await api(`/tickets/${tickets.alpha}/mail?project=alpha`));
    expect(listed.count).to.equal(3);
    expect(listed.messages.map((m: { kind: string; state: string }) => `${m.kind}:${m.state}`)).to.deep.equal(
      ['acknowledgement:sent', 'reply:bounced', 'reply:failed'],
    );
    const bounced = listed.messages[1];
    expect(bounced).to.include({
      ticket_id: tickets.alpha,
      comment_id: 501,
      bounce_reason: '550 No such user',
      message_id: `<t${tickets.alpha}.c501.bounced@tix.localhost>`,
      attempts: 1,
    });
    expect(bounced.to).to.deep.equal(['carol@c.example']);
    expect(bounced.bounced_at).to.be.a('string');
    expect(listed.messages[2]).to.include({
      last_error: 'Connection refused',
      sent_at: null,
      bounce_reason: null,
    });

    // The session host, as a viewer: the same log.
    expect(data(await app(`/tickets/${tickets.alpha}/mail?project=alpha`, viewer))).to.deep.equal(listed);
    const one = data(await api(`/tickets/${tickets.alpha}/mail?project=alpha&comment_id=502`));
    expect(one.messages.map((m: { comment_id: number }) => m.comment_id)).to.deep.equal([502]);
  });

  it('answers the mail received for the ticket beside it, with its sender checks; one comment’s with ?comment_id=', async () => {
    const listed = data(await api(`/tickets/${tickets.alpha}/mail?project=alpha`));
    expect(listed.received.map((m: { id: number }) => m.id)).to.deep.equal([
      received.opened,
      received.forged,
    ]);
    expect(listed.received[0]).to.deep.include({
      source: 'smtp',
      message_id: '<opened@c.example>',
      size: 321,
      state: 'processed',
    });
    expect(listed.received[0].outcome.auth).to.deep.equal(AUTH);
    expect(listed.received[1].outcome).to.deep.include({ comment_id: 601, untrusted: true });
    expect(listed.received[1].outcome.auth).to.include({ dmarc: 'fail', dmarc_domain: 'c.example' });
    // The session host answers the same.
    expect(data(await app(`/tickets/${tickets.alpha}/mail?project=alpha`, viewer)).received).to.deep.equal(
      listed.received,
    );
    const one = data(await api(`/tickets/${tickets.alpha}/mail?project=alpha&comment_id=601`));
    expect(one.received.map((m: { id: number }) => m.id)).to.deep.equal([received.forged]);
    expect(one.messages).to.deep.equal([]);
    expect(
      data(await api(`/tickets/${tickets.alpha}/mail?project=alpha&comment_id=502`)).received,
    ).to.deep.equal([]);
    expect(
      data(await api(`/tickets/${tickets.beta}/mail?project=beta`)).received.map((m: { id: number }) => m.id),
    ).to.deep.equal([received.beta]);
    // Another project's ticket stays unknown, received mail and all.
    expectError(await app(`/tickets/${tickets.beta}/mail?project=alpha`, viewer), 404, 'Ticket not found');
  });

  it("answers 404 for another project's ticket (and its comments), 403 without comments:read, 400 for bad ids", async () => {
    expectError(await api(`/tickets/${tickets.beta}/mail?project=alpha`), 404, 'Ticket not found');
    // A comment of another ticket is not this ticket's mail.
    expect(
      data(await api(`/tickets/${tickets.alpha}/mail?project=alpha&comment_id=503`)).messages,
    ).to.deep.equal([]);
    // (The mail peer's sender may have sent the queued reply by now: its state is not the point.)
    expect(data(await api(`/tickets/${tickets.beta}/mail?project=beta`)).messages[0]).to.include({
      ticket_id: tickets.beta,
      comment_id: 503,
    });
    expect((await api(`/tickets/${tickets.alpha}/mail?project=alpha`, keys.ticketsOnly)).status).to.equal(
      403,
    );
    expectError(await api(`/tickets/abc/mail?project=alpha`), 400, 'Invalid ticket id');
    expectError(
      await api(`/tickets/${tickets.alpha}/mail?project=alpha&comment_id=x`),
      400,
      'Invalid comment_id',
      {
        comment_id: ['Invalid comment id'],
      },
    );
  });

  it('reads and changes the mail settings (admins only), answering bad fields 422 by field', async () => {
    expectError(await app('/mail-settings?project=alpha', viewer), 403, /needs admin/);
    const defaults = data(await app('/mail-settings?project=alpha', admin)).settings;
    expect(defaults).to.include({ from_name: '', acknowledge: false, reopen_window_days: 14 });

    const change = {
      from_name: 'Alpha Support',
      from_address: 'Help@Alpha.Example',
      signature: '-- \nAlpha',
      acknowledge: true,
      ack_subject: 'Got it [#{{ticket.number}}]',
      ack_body: 'Hello {{requester.name}}',
      reopen_window_days: 30,
      accept_list_mail: true,
    };
    const saved = data(
      await app('/mail-settings?project=alpha', admin, { method: 'PUT', body: change }),
    ).settings;
    expect(saved).to.include({ ...change, from_address: 'help@alpha.example' });
    expect(data(await app('/mail-settings?project=alpha', admin)).settings).to.deep.equal(saved);
    // Only the given fields change; the other project keeps its defaults.
    const partly = data(
      await app('/mail-settings?project=alpha', admin, { method: 'PUT', body: { acknowledge: false } }),
    ).settings;
    expect(partly).to.include({ acknowledge: false, from_name: 'Alpha Support', reopen_window_days: 30 });
    expect(data(await app('/mail-settings?project=beta', admin)).settings.from_name).to.equal('');

    const refused = async (body: unknown) => {
      const response = await app('/mail-settings?project=alpha', admin, { method: 'PUT', body });
      expect(response.status, JSON.stringify(response.body)).to.equal(422);
      return Object.keys(response.body.error.validation_errors as Record<string, string[]>);
    };
    expect(await refused({ reopen_window_days: 'x', acknowledge: 'yes' })).to.have.members([
      'reopen_window_days',
      'acknowledge',
    ]);
    expect(await refused({ reopen_window_days: 400 })).to.deep.equal(['reopen_window_days']);
    expect(
      await refused({ from_address: 'not an address', ack_subject: 'Hi {{ticket.secret}}' }),
    ).to.have.members(['from_address', 'ack_subject']);
    expect(data(await app('/mail-settings?project=alpha', admin)).settings.from_address).to.equal(
      'help@alpha.example',
    );
  });
});
