/**
 * Mail intake through real parts: PostgreSQL, s3rver (as the attachment tests use it), a lookup
 * service, SMTP over TCP with nodemailer as the sender, and a private dovecot for IMAP.
 */
import { expect } from 'chai';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { createTestDatabase, eventually, refusalOf, type TestDatabase } from '@tix/kit/testing';
import { startTestS3Server, type TestS3Server } from '@tix/attachment-service/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import {
  MAIL_MIGRATIONS_DIR,
  startTestDovecot,
  startTestMailServer,
  type TestDovecot,
  type TestMailServer,
} from '../../src/testing.js';

const IMAP_COUNT = Number(process.env.MAIL_TEST_IMAP_COUNT ?? 100);

function rawMessage(id: string, body = 'hello'): string {
  return [
    'From: Customer <customer@example.com>',
    'To: sup@tix.localhost',
    `Subject: Help ${id}`,
    `Message-ID: <${id}@example.com>`,
    'Date: Thu, 03 Dec 2026 12:00:00 +0000',
    '',
    body,
    '',
  ].join('\r\n');
}

describe('mail intake', function () {
  this.timeout(120_000);
  let lookup: TestLookupServer;
  let s3: TestS3Server;
  let mail: TestMailServer;
  let client: ServiceClient<'mail'>;
  let db: pg.Pool;
  // Kept across the service's restart (a service given a database leaves it on stop()).
  let database: TestDatabase;

  before(async () => {
    lookup = await startTestLookupServer();
    const directory = createServiceClient('lookup', lookup.address, { deadlineMs: 5_000 });
    await directory.CreateProject({
      name: 'Support',
      slug: 'sup',
      prefix: 'SUP',
      description: '',
      statuses: [],
    });
    directory.close();
    s3 = await startTestS3Server();
    database = await createTestDatabase('mail', MAIL_MIGRATIONS_DIR);
    mail = await startTestMailServer({
      lookupAddress: lookup.address,
      store: s3.config,
      databaseUrl: database.url,
      maxBytes: 64 * 1024,
    });
    client = createServiceClient('mail', mail.address, { deadlineMs: 10_000 });
    db = new pg.Pool({ connectionString: mail.databaseUrl });
  });
  after(async () => {
    await db?.end();
    client?.close();
    await mail?.stop();
    await database?.drop();
    await s3?.stop();
    await lookup?.stop();
  });

  function transport() {
    return nodemailer.createTransport({
      host: '127.0.0.1',
      port: mail.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
  }
  async function send(to: string, raw: string) {
    return transport().sendMail({ envelope: { from: 'customer@example.com', to }, raw });
  }
  async function rows(messageId: string) {
    const { rows } = await db.query<{ object_key: string; size: number }>(
      'SELECT object_key, size FROM inbound_messages WHERE message_id = $1',
      [messageId],
    );
    return rows;
  }

  describe('SMTP listener', () => {
    it('refuses an unknown recipient with 550', async () => {
      const error = await send('nobody@tix.localhost', rawMessage('unknown-1')).catch((e: unknown) => e);
      expect((error as { responseCode?: number }).responseCode).to.equal(550);
      const other = await send('sup@elsewhere.example', rawMessage('unknown-2')).catch((e: unknown) => e);
      expect((other as { responseCode?: number }).responseCode).to.equal(550);
      expect(await rows('unknown-1@example.com')).to.have.length(0);
    });

    it('accepts <slug>@ and <slug>+anything@, answering 250 only once the message is durable', async () => {
      const info = await send('sup+ticket-42@tix.localhost', rawMessage('plus-1'));
      expect(info.response).to.match(/^250/);
      // Durable at the time of 250: the row is committed and the object is in the store.
      const stored = await rows('plus-1@example.com');
      expect(stored).to.have.length(1);
      expect(await s3.objectKeys('tix-mail')).to.include(stored[0]!.object_key);
      await send('SUP@tix.localhost', rawMessage('plain-1'));
      expect(await rows('plain-1@example.com')).to.have.length(1);
      const { mailboxes } = await client.ListMailboxes({ project_id: 0 });
      expect(mailboxes.map((box) => box.address)).to.deep.equal(['sup@tix.localhost']);
      const list = await client.ListInboundMessages({ mailbox_id: mailboxes[0]!.id, limit: 0 });
      expect(list.messages.map((m) => m.message_id)).to.include.members([
        'plus-1@example.com',
        'plain-1@example.com',
      ]);
    });

    it('refuses a message over MAIL_MAX_BYTES with 552 and stores nothing', async () => {
      const error = await send('sup@tix.localhost', rawMessage('big-1', 'x'.repeat(70 * 1024))).catch(
        (e: unknown) => e,
      );
      expect((error as { responseCode?: number }).responseCode).to.equal(552);
      expect(await rows('big-1@example.com')).to.have.length(0);
    });

    it('accepts a re-delivery of the same Message-ID without storing it twice', async () => {
      await send('sup@tix.localhost', rawMessage('dup-1'));
      await send('sup+again@tix.localhost', rawMessage('dup-1'));
      expect(await rows('dup-1@example.com')).to.have.length(1);
    });

    it('answers 451 while the store is down, and accepts the retry once it is back', async () => {
      await s3.cut();
      try {
        const error = await send('sup@tix.localhost', rawMessage('down-1')).catch((e: unknown) => e);
        expect((error as { responseCode?: number }).responseCode).to.equal(451);
      } finally {
        await s3.restore();
      }
      expect(await rows('down-1@example.com')).to.have.length(0);
      await send('sup@tix.localhost', rawMessage('down-1'));
      expect(await rows('down-1@example.com')).to.have.length(1);
    });
  });

  describe('IMAP mailboxes (dovecot)', () => {
    let dovecot: TestDovecot;
    before(async () => {
      dovecot = await startTestDovecot();
    });
    after(async () => {
      await dovecot?.stop();
    });

    async function append(count: number, prefix: string) {
      await dovecot.append(Array.from({ length: count }, (_, i) => rawMessage(`${prefix}-${i}`)));
    }
    async function imapCount(mailboxId: number) {
      const { rows } = await db.query<{ n: string; distinct_uids: string }>(
        'SELECT count(*) AS n, count(DISTINCT uid) AS distinct_uids FROM inbound_messages WHERE mailbox_id = $1',
        [mailboxId],
      );
      return { n: Number(rows[0]!.n), distinctUids: Number(rows[0]!.distinct_uids) };
    }

    it('TestMailbox connects and reports, or reports the failure', async () => {
      const good = await client.CreateMailbox({
        project_id: 1,
        kind: 'imap',
        address: 'probe@example.com',
        imap_host: dovecot.host,
        imap_port: dovecot.port,
        imap_tls: false,
        imap_user: dovecot.user,
        auth: 'password',
        secret: dovecot.password,
        default_ticket_type_id: 0,
      });
      await client.UpdateMailbox({ id: good.id, paused: true });
      expect((await client.TestMailbox({ id: good.id })).ok).to.equal(true);
      const bad = await client.CreateMailbox({
        project_id: 1,
        kind: 'imap',
        address: 'probe-bad@example.com',
        imap_host: dovecot.host,
        imap_port: dovecot.port,
        imap_tls: false,
        imap_user: dovecot.user,
        auth: 'password',
        secret: 'wrong',
        default_ticket_type_id: 0,
      });
      await client.UpdateMailbox({ id: bad.id, paused: true });
      const result = await client.TestMailbox({ id: bad.id });
      expect(result.ok).to.equal(false);
      expect(result.error).to.not.equal('');
    });

    it(`fetches ${IMAP_COUNT} messages exactly once across a stop mid-fetch, then picks up new mail by IDLE`, async () => {
      await append(IMAP_COUNT, 'imap');
      const box = await client.CreateMailbox({
        project_id: 1,
        kind: 'imap',
        address: 'support@example.com',
        imap_host: dovecot.host,
        imap_port: dovecot.port,
        imap_tls: false,
        imap_user: dovecot.user,
        auth: 'password',
        secret: dovecot.password,
        default_ticket_type_id: 0,
      });
      // Stop the whole service mid-fetch, then start it again on the same database.
      await eventually(async () => expect((await imapCount(box.id)).n).to.be.greaterThan(0), 30_000);
      client.close();
      await mail.stop(0);
      const partial = (await imapCount(box.id)).n;
      mail = await startTestMailServer({
        lookupAddress: lookup.address,
        store: s3.config,
        databaseUrl: database.url,
        maxBytes: 64 * 1024,
      });
      client = createServiceClient('mail', mail.address, { deadlineMs: 10_000 });
      await eventually(async () => expect((await imapCount(box.id)).n).to.equal(IMAP_COUNT), 60_000);
      const counted = await imapCount(box.id);
      expect(counted.distinctUids).to.equal(IMAP_COUNT);
      expect(partial).to.be.at.most(IMAP_COUNT);
      // IDLE: a new message arrives within seconds.
      const started = Date.now();
      await append(1, 'idle');
      await eventually(async () => expect(await rows('idle-0@example.com')).to.have.length(1), 10_000);
      expect(Date.now() - started).to.be.below(10_000);
    });
  });

  // Last: the SMTP listener's case lists every mailbox of the fleet.
  describe('GetMailbox', () => {
    it('answers a mailbox of the project asked, NOT_FOUND for another project or an unknown id', async () => {
      const created = await client.CreateMailbox({
        project_id: 41,
        kind: 'smtp',
        address: 'get-mailbox@example.com',
        imap_host: '',
        imap_port: 0,
        imap_tls: false,
        imap_user: '',
        auth: '',
        secret: '',
        default_ticket_type_id: 0,
      });
      expect(await client.GetMailbox({ project_id: 41, id: created.id })).to.deep.equal(created);
      const notFound = { kind: 'not_found', message: 'Mailbox not found' };
      expect(await refusalOf(client.GetMailbox({ project_id: 42, id: created.id }))).to.deep.equal(notFound);
      expect(await refusalOf(client.GetMailbox({ project_id: 41, id: created.id + 1000 }))).to.deep.equal(
        notFound,
      );
    });
  });
});
