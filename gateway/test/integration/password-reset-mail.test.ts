/**
 * The password reset mail through the real transports: nodemailer to a local SMTP server
 * (smtp-server, standing in for the operator's relay) named by an smtp:// URL with credentials, the
 * development folder, a relay that is down, and production without a relay.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SMTPServer } from 'smtp-server';
import { freePort, testLogger } from '@tix/kit/testing';
import { createMailTransport } from '../../src/mail/mail-transport.js';
import { createPasswordResetMailer, type IssuedPasswordReset } from '../../src/mail/password-reset-mail.js';

const FROM = 'Tix <no-reply@tix.test>';
const NOW = new Date('2031-05-01T12:00:00.000Z');
const RESET: IssuedPasswordReset = {
  token: 'AbC_dEf-123456789012345678901234567890123',
  expiresAt: new Date('2031-05-01T12:30:00.000Z'),
  user: { name: 'Ada <Lovelace>', email: 'ada@example.com' },
};
const LINK = 'https://app.tix.test/reset-password?token=AbC_dEf-123456789012345678901234567890123';

interface Received {
  from: string | undefined;
  to: string[];
  user: string | undefined;
  raw: string;
}

/** A local SMTP server accepting one login (user / p@ss) over plain text; records each message. */
async function startSmtpServer(): Promise<{ port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'user' && auth.password === 'p@ss') callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          user: session.user as string | undefined,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The decoded text of a quoted-printable MIME body (soft line breaks joined). */
function unfold(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

describe('password reset mail (nodemailer transports)', () => {
  it('delivers to the relay named by SMTP_URL, logged in with its credentials, carrying the link', async () => {
    const smtp = await startSmtpServer();
    try {
      const transport = createMailTransport(
        { smtpUrl: `smtp://user:p%40ss@127.0.0.1:${smtp.port}`, from: FROM, dir: '/nonexistent' },
        testLogger('mail'),
      );
      const mailer = createPasswordResetMailer(transport, 'https://app.tix.test/');
      expect(mailer.transport).to.equal('smtp');
      const link = await mailer.send(RESET, { issuedByAdmin: false, log: testLogger('mail'), now: NOW });
      await mailer.close();
      expect(link).to.equal(LINK);
      expect(smtp.received).to.have.length(1);
      const [message] = smtp.received;
      expect(message!.user).to.equal('user');
      expect(message!.from).to.equal('no-reply@tix.test');
      expect(message!.to).to.deep.equal(['ada@example.com']);
      const body = unfold(message!.raw);
      expect(body).to.contain('Subject: Reset your Tix password');
      expect(body).to.contain('Content-Type: text/plain');
      expect(body).to.contain('Content-Type: text/html');
      expect(body).to.contain(LINK);
      expect(body).to.contain('expires in 30 minutes (at 2031-05-01 12:30 UTC)');
      expect(body).to.contain("If you didn't ask for this, ignore this message");
      // The name is escaped in the HTML part.
      expect(body).to.contain('Hello Ada &lt;Lovelace&gt;,');
    } finally {
      await smtp.close();
    }
  });

  it('rejects when the relay refuses the login or is down (the caller logs it)', async () => {
    const smtp = await startSmtpServer();
    try {
      const wrong = createMailTransport(
        { smtpUrl: `smtp://user:wrong@127.0.0.1:${smtp.port}`, from: FROM, dir: null },
        testLogger('mail'),
      );
      let refused: unknown;
      await wrong
        .send({ to: 'ada@example.com', subject: 's', text: 't', html: 'h' })
        .catch((error: unknown) => (refused = error));
      expect(refused).to.be.instanceOf(Error);
      wrong.close();
      expect(smtp.received).to.have.length(0);
    } finally {
      await smtp.close();
    }
    const down = createMailTransport(
      { smtpUrl: `smtp://127.0.0.1:${await freePort()}`, from: FROM, dir: null },
      testLogger('mail'),
    );
    let failed: unknown;
    await down
      .send({ to: 'ada@example.com', subject: 's', text: 't', html: 'h' })
      .catch((error: unknown) => (failed = error));
    expect(failed).to.be.instanceOf(Error);
    down.close();
  });

  it('without SMTP_URL in development writes an .eml file to MAIL_DIR and sends nothing', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tix-mail-test-'));
    try {
      const mailDir = path.join(dir, 'mail');
      const mailer = createPasswordResetMailer(
        createMailTransport({ smtpUrl: undefined, from: FROM, dir: mailDir }, testLogger('mail')),
        'https://app.tix.test',
      );
      expect(mailer.transport).to.equal('folder');
      await mailer.send(RESET, { issuedByAdmin: true, log: testLogger('mail'), now: NOW });
      const files = await readdir(mailDir);
      expect(files).to.have.length(1);
      expect(files[0]).to.match(/\.eml$/);
      const raw = unfold(await readFile(path.join(mailDir, files[0]!), 'utf8'));
      expect(raw).to.contain('To: ada@example.com');
      expect(raw).to.contain('From: Tix <no-reply@tix.test>');
      expect(raw).to.contain(LINK);
      expect(raw).to.contain('An administrator of Tix issued a link');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('closing waits for mails still being sent in the background; a failed one is logged, not thrown', async () => {
    const mailer = createPasswordResetMailer(
      createMailTransport({ smtpUrl: undefined, from: FROM, dir: null }, testLogger('mail')),
      'https://app.tix.test',
    );
    let finished = false;
    mailer.inBackground(async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      finished = true;
    }, testLogger('mail'));
    mailer.inBackground(() => Promise.reject(new Error('relay down')), testLogger('mail'));
    await mailer.close();
    expect(finished).to.equal(true);
  });

  it('without SMTP_URL in production drops the message (no folder) and resolves', async () => {
    const mailer = createPasswordResetMailer(
      createMailTransport({ smtpUrl: undefined, from: FROM, dir: null }, testLogger('mail')),
      'https://app.tix.test',
    );
    expect(mailer.transport).to.equal('none');
    expect(await mailer.send(RESET, { issuedByAdmin: false, log: testLogger('mail'), now: NOW })).to.equal(
      LINK,
    );
  });
});
