/**
 * Without SMTP_URL (development), every outgoing mail is one .eml file in MAIL_DIR, written when it
 * is sent (the contract; `.tix/mail` under pnpm start).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { eventually } from '@tix/kit/testing';
import { isRefusal, parseInbound } from '@tix/threading';
import { startTestS3Server, type TestS3Server } from '@tix/attachment-service/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestMailServer, type TestMailServer } from '../../src/testing.js';
import { rawHeader } from './outbound-support.js';

describe('outbound mail without a relay (MAIL_DIR)', function () {
  this.timeout(60_000);
  let lookup: TestLookupServer;
  let s3: TestS3Server;
  let mail: TestMailServer;
  let db: pg.Pool;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tix-mail-dir-'));
    lookup = await startTestLookupServer({ label: 'mail_dir_lookup' });
    s3 = await startTestS3Server();
    mail = await startTestMailServer({
      lookupAddress: lookup.address,
      store: s3.config,
      outbound: { dir },
      sender: { pollIntervalMs: 100 },
    });
    db = new pg.Pool({ connectionString: mail.databaseUrl, max: 2 });
  });
  after(async () => {
    await db?.end();
    await mail?.stop();
    await s3?.stop();
    await lookup?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one .eml per mail, with the threading and automatic-mail headers, and records the file', async () => {
    await db.query(
      `INSERT INTO outbound_messages (kind, project_id, ticket_id, comment_id, message_id, from_address, to_addresses,
          cc_addresses, subject, text, in_reply_to, "references", automatic)
       VALUES ('reply', 1, 7, 70, '<tix.7.70.abc@tix.localhost>', '"Support" <sup@tix.localhost>', '{cora@example.com}',
          '{carl@example.com}', 'Re: [SUP-7] Printer', 'Try again', '<b@example.com>', '{<a@example.com>,<b@example.com>}', false),
              ('acknowledgement', 1, 8, NULL, '<tix.8.0.def@tix.localhost>', 'sup@tix.localhost', '{dora@example.com}',
          '{}', 'We received your request [SUP-8]', 'Thanks', NULL, '{}', true)`,
    );
    await eventually(async () => {
      const { rows } = await db.query(
        "SELECT count(*)::int AS n FROM outbound_messages WHERE state = 'sent'",
      );
      return rows[0].n === 2;
    }, 10_000);
    const files = (await readdir(dir)).filter((name) => name.endsWith('.eml'));
    expect(files).to.have.length(2);
    const mails = await Promise.all(files.map((name) => readFile(path.join(dir, name), 'utf8')));
    const reply = mails.find((raw) => raw.includes('<tix.7.70.abc@tix.localhost>'))!;
    const ack = mails.find((raw) => raw.includes('<tix.8.0.def@tix.localhost>'))!;
    const parsed = await parseInbound(Buffer.from(reply));
    if (isRefusal(parsed)) throw new Error('unparseable');
    expect(parsed.messageId).to.equal('<tix.7.70.abc@tix.localhost>');
    expect(parsed.inReplyTo).to.equal('<b@example.com>');
    expect(parsed.references).to.deep.equal(['<a@example.com>', '<b@example.com>']);
    expect(parsed.cc.map((a) => a.address)).to.deep.equal(['carl@example.com']);
    expect(parsed.replyTo[0]?.address).to.match(/^sup\+[0-9a-z]+-[a-z2-7]{12}@tix\.localhost$/);
    expect(rawHeader(reply, 'Auto-Submitted')).to.equal(undefined);
    expect(rawHeader(ack, 'Auto-Submitted')).to.equal('auto-replied');
    expect(rawHeader(ack, 'X-Auto-Response-Suppress')).to.equal('All');
    const { rows } = await db.query<{ attempts: { response: string }[] }>(
      "SELECT attempts FROM outbound_messages WHERE message_id = '<tix.7.70.abc@tix.localhost>'",
    );
    expect(files.map((name) => path.join(dir, name))).to.include(rows[0]!.attempts[0]!.response);
  });
});
