/**
 * Email through the real fleet, as a customer and an agent use it: a mail to the project's address
 * over SMTP (the mail service's listener, MAIL_SMTP_PORT) opens a ticket with that customer as its
 * requester; the agent's public reply goes out (the fleet runs without SMTP_URL, so as one .eml file
 * in MAIL_DIR) with Message-ID, In-Reply-To, References and the ticket number in the subject; the
 * customer's answer to that mail is a public comment on the same ticket, written as the customer;
 * an internal note mails nobody. An IMAP mailbox an admin adds (a real dovecot) feeds the project
 * the same way.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { simpleParser, type ParsedMail } from 'mailparser';
import nodemailer from 'nodemailer';
import { eventually } from '@tix/kit/testing';
import { startTestDovecot, type TestDovecot } from '@tix/mail-service/testing';
import {
  createComment,
  createKey,
  createProject,
  createTicketType,
  createUser,
  unique,
} from '../support/fixtures.js';
import { fleetMailDir, fleetSmtpPort } from '../support/fleet.js';
import { request } from '../support/http.js';
import { signIn } from '../support/session.js';

const DOMAIN = 'tix.localhost';

async function sendMail(message: nodemailer.SendMailOptions): Promise<void> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: fleetSmtpPort(),
    secure: false,
    ignoreTLS: true,
  });
  try {
    await transport.sendMail(message);
  } finally {
    transport.close();
  }
}

/** Every .eml file in MAIL_DIR addressed to `address`, parsed. */
async function mailsTo(address: string): Promise<ParsedMail[]> {
  const dir = fleetMailDir();
  const found: ParsedMail[] = [];
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.eml')) continue;
    const parsed = await simpleParser(await readFile(path.join(dir, name)));
    const to = [parsed.to, parsed.cc]
      .flat()
      .flatMap((list) => (list ? list.value.map((entry) => entry.address?.toLowerCase()) : []));
    if (to.includes(address)) found.push(parsed);
  }
  return found;
}

describe('email through the fleet', function () {
  this.timeout(60_000);

  it('mail in opens a ticket, the public reply goes out threaded, the answer comes back as a comment', async () => {
    const project = await createProject();
    await createTicketType(project.slug, { isDefault: true });
    const key = await createKey({
      project: project.slug,
      scopes: 'tickets:read,tickets:write,comments:read,comments:write,customers:read',
    });
    const customer = `${unique('alice')}@example.com`;
    const firstId = `<${unique('first')}@example.com>`;

    await sendMail({
      from: `Alice Example <${customer}>`,
      to: `${project.slug}@${DOMAIN}`,
      subject: 'The printer is on fire',
      text: 'It started this morning. Please help.',
      messageId: firstId,
    });

    const ticket = await eventually(async () => {
      const listed = await request(`/v1/tickets?per_page=10`, { key: key.key });
      expect(listed.status, listed.text).to.equal(200);
      const [found] = listed.body.data.tickets;
      expect(found, 'a ticket from the mail').to.exist;
      return found;
    });
    expect(ticket.title).to.equal('The printer is on fire');
    expect(ticket.description).to.contain('It started this morning');
    expect(ticket.source_type).to.equal('email');
    expect(ticket.requester_id).to.be.a('number');

    const requester = await request(`/v1/customers/${ticket.requester_id}`, { key: key.key });
    expect(requester.status, requester.text).to.equal(200);
    expect(requester.body.data.customer.emails).to.deep.equal([customer]);
    expect(requester.body.data.customer.name).to.equal('Alice Example');

    const byEmail = await request(`/v1/customers?email=${encodeURIComponent(customer.toUpperCase())}`, {
      key: key.key,
    });
    expect(byEmail.status, byEmail.text).to.equal(200);
    expect(byEmail.body.data.customers.map((c: { id: number }) => c.id)).to.deep.equal([ticket.requester_id]);

    await createComment(key.key, ticket.id, { content: 'Checking the logs first.', is_internal: true });
    await createComment(key.key, ticket.id, { content: 'We are on our way.', is_internal: false });

    const reply = await eventually(async () => {
      const mails = await mailsTo(customer);
      expect(mails, 'the public reply, and only it').to.have.length(1);
      return mails[0]!;
    });
    expect(reply.subject).to.contain(`[${ticket.ticket_number}]`);
    expect(reply.text).to.contain('We are on our way.');
    expect(reply.text).not.to.contain('Checking the logs first.');
    expect(reply.inReplyTo).to.equal(firstId);
    expect([reply.references].flat()).to.include(firstId);
    expect(reply.messageId).to.match(/^<.+@.+>$/);
    expect(reply.headers.get('auto-submitted')).to.equal(undefined);

    await sendMail({
      from: customer,
      to: reply.from!.value[0]!.address!,
      subject: `Re: ${reply.subject}`,
      text: `Thank you, the fire is out.\n\nOn Mon, support wrote:\n> We are on our way.\n`,
      inReplyTo: reply.messageId,
      references: [firstId, reply.messageId!],
    });

    const answer = await eventually(async () => {
      const comments = await request(`/v1/tickets/${ticket.id}/comments`, { key: key.key });
      expect(comments.status, comments.text).to.equal(200);
      const fromCustomer = comments.body.data.comments.filter(
        (comment: { author_type: string }) => comment.author_type === 'customer',
      );
      expect(fromCustomer).to.have.length(1);
      return fromCustomer[0];
    });
    expect(answer.customer_id).to.equal(ticket.requester_id);
    expect(answer.is_internal).to.equal(false);
    expect(answer.content).to.contain('the fire is out');
    expect(answer.content).not.to.contain('We are on our way.');

    const listed = await request(`/v1/tickets?per_page=10`, { key: key.key });
    expect(listed.body.data.tickets, 'the answer threads, it opens no ticket').to.have.length(1);
  });

  describe('from an IMAP mailbox', () => {
    let dovecot: TestDovecot;
    before(async () => {
      dovecot = await startTestDovecot();
    });
    after(async () => {
      await dovecot?.stop();
    });

    it('an admin adds the mailbox, tests it, and its mail opens tickets with their requesters', async () => {
      const project = await createProject();
      await createTicketType(project.slug, { isDefault: true });
      const password = 'imap e2e admin password';
      const admin = await createUser('admin', { password });
      const session = await signIn(admin.email, password);
      const created = await session.call('POST', `/mailboxes?project=${project.slug}`, {
        kind: 'imap',
        address: `${unique('inbox')}@example.com`,
        imap_host: dovecot.host,
        imap_port: dovecot.port,
        imap_tls: false,
        imap_user: dovecot.user,
        secret: dovecot.password,
      });
      expect(created.status, created.text).to.equal(201);
      const mailbox = created.body.data.mailbox;
      const tested = await session.call('POST', `/mailboxes/${mailbox.id}/test?project=${project.slug}`);
      expect(tested.status, tested.text).to.equal(200);
      expect(tested.body.data.result).to.include({ ok: true });

      const customer = `${unique('bob')}@example.com`;
      await dovecot.append([
        [
          `From: Bob Example <${customer}>`,
          `To: ${mailbox.address}`,
          'Subject: VPN drops every hour',
          `Message-ID: <${unique('imap')}@example.com>`,
          'Date: Thu, 03 Dec 2026 12:00:00 +0000',
          '',
          'Since Monday.',
          '',
        ].join('\r\n'),
      ]);
      const key = await createKey({ project: project.slug, scopes: 'tickets:read,customers:read' });
      // The mailbox is picked up at the supervisor's next scan, then IDLE sees the message.
      const ticket = await eventually(
        async () => {
          const listed = await request('/v1/tickets?per_page=10', { key: key.key });
          const [found] = listed.body.data.tickets;
          expect(found, 'a ticket from the IMAP mail').to.exist;
          return found;
        },
        60_000,
        100,
      );
      expect(ticket).to.include({ title: 'VPN drops every hour', source_type: 'email' });
      const requester = await request(`/v1/customers/${ticket.requester_id}`, { key: key.key });
      expect(requester.body.data.customer.emails).to.deep.equal([customer]);

      // The ticket exists a moment before the message's last transaction marks it processed.
      await eventually(async () => {
        const messages = await session.call(
          'GET',
          `/mailboxes/${mailbox.id}/messages?project=${project.slug}`,
        );
        expect(messages.body.data.messages[0]).to.deep.include({ source: 'imap', state: 'processed' });
        expect(messages.body.data.messages[0].outcome).to.include({
          action: 'new_ticket',
          ticket_id: ticket.id,
        });
        return true;
      }, 30_000);
    });
  });
});
