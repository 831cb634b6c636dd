/**
 * The ticket mail log and the project mail settings against the real lookup, ticket and mail
 * services (fresh databases, an S3 test server): GET /tickets/{id}/mail on both hosts answers the
 * mail the mail service recorded for a ticket of the caller's project only (404 `Ticket not found`
 * otherwise), optionally one comment's; GET/PUT /mail-settings are for admins and answer the mail
 * service's field errors as 422. The delivery log rows are written straight into the mail service's
 * database, as the sender leaves them (its own tests cover the sending).
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

  it("answers 404 for another project's ticket (and its comments), 403 without comments:read, 400 for bad ids", async () => {
    expectError(await api(`/tickets/${tickets.beta}/mail?project=alpha`), 404, 'Ticket not found');
    // A comment of another ticket is not this ticket's mail.
    expect(
      data(await api(`/tickets/${tickets.alpha}/mail?project=alpha&comment_id=503`)).messages,
    ).to.deep.equal([]);
    expect(data(await api(`/tickets/${tickets.beta}/mail?project=beta`)).messages[0]).to.include({
      state: 'queued',
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
