/**
 * Password reset through the real fleet (no SMTP_URL: the gateway writes each message as an .eml
 * file in the fleet's MAIL_DIR, where these tests read the link). The rate limits of the reset
 * routes are the spec's (5 and 10 per hour per client address) on the shared fleet too, so each test
 * talks from its own loopback address (127.0.1.x), which the gateway sees as the client address.
 */
import http from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import { tixJson } from '../support/cli.js';
import { createUser } from '../support/fixtures.js';
import { fleet, fleetMailDir } from '../support/fleet.js';
import { request } from '../support/http.js';
import { signIn } from '../support/session.js';

const FORGOT_ANSWER = { message: 'If that address belongs to an active account, a reset link is on its way' };
const INVALID_LINK = { token: ['Reset link is invalid or has expired'] };

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** One request to the session host from `localAddress`. */
function requestFrom(
  localAddress: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<RawResponse> {
  const url = new URL(`${fleet().appUrl}${pathAndQuery}`);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress,
        headers: {
          ...headers,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode!,
            headers: response.headers,
            body: text ? JSON.parse(text) : undefined,
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** An anonymous browser at `address`: a session cookie and its CSRF token. */
async function anonymousBrowserAt(address: string) {
  const start = await requestFrom(address, 'GET', '/api/csrf-token', {});
  expect(start.status).to.equal(200);
  const cookie = String(start.headers['set-cookie']![0]).split(';')[0]!;
  const headers = { cookie, 'x-csrf-token': start.body.data.token as string };
  return {
    post: (pathName: string, body: unknown, options: { csrf?: boolean } = {}) =>
      requestFrom(address, 'POST', `/api${pathName}`, options.csrf === false ? { cookie } : headers, body),
  };
}

/** The decoded text of a message (quoted-printable soft breaks and escapes undone). */
function unfold(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Every message written to `to` so far, oldest first. */
async function messagesTo(to: string): Promise<string[]> {
  const dir = fleetMailDir();
  const files = (await readdir(dir).catch(() => [] as string[]))
    .filter((file) => file.endsWith('.eml'))
    .sort();
  const messages = await Promise.all(
    files.map(async (file) => unfold(await readFile(path.join(dir, file), 'utf8'))),
  );
  return messages.filter((message) => message.includes(`\nTo: ${to}\n`));
}

/** The token of the `count`-th reset message to `to` (waits for the background send). */
async function tokenMailedTo(to: string, count = 1): Promise<string> {
  const message = await eventually(async () => (await messagesTo(to))[count - 1], 10_000, 100);
  const match = /\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(message);
  expect(match, 'the message carries the link').to.not.equal(null);
  expect(message).to.contain(`${fleet().appUrl.replace('127.0.0.1', 'localhost')}/reset-password?token=`);
  return match![1]!;
}

describe('password reset (session host, mail folder)', function () {
  this.timeout(60_000);

  it('forgot-password answers a real and an unknown address identically, and mails only the real one', async () => {
    const user = await createUser('agent', { password: 'forgot passphrase 1' });
    const browser = await anonymousBrowserAt('127.0.1.1');
    const real = await browser.post('/auth/forgot-password', { email: user.email });
    const unknown = await browser.post('/auth/forgot-password', { email: `nobody-${user.email}` });
    for (const answer of [real, unknown]) {
      expect(answer.status).to.equal(202);
      expect(answer.body).to.deep.equal({ ok: true, data: FORGOT_ANSWER });
      expect(answer.headers['content-type']).to.equal('application/json; charset=utf-8');
    }
    expect(real.headers['content-length']).to.equal(unknown.headers['content-length']);
    const message = await eventually(async () => (await messagesTo(user.email))[0], 10_000, 100);
    expect(message).to.contain('Subject: Reset your Tix password');
    expect(message).to.contain("If you didn't ask for this, ignore this message");
    expect(message).to.match(/expires in 30 minutes/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await messagesTo(`nobody-${user.email}`)).to.have.length(0);
  });

  it('the link sets the password once and ends every session of the user at once', async () => {
    const user = await createUser('agent', { password: 'old passphrase 2' });
    const first = await signIn(user.email, 'old passphrase 2');
    const second = await signIn(user.email, 'old passphrase 2');
    const browser = await anonymousBrowserAt('127.0.1.2');
    expect((await browser.post('/auth/forgot-password', { email: user.email })).status).to.equal(202);
    const token = await tokenMailedTo(user.email);

    const reset = await browser.post('/auth/reset-password', { token, new_password: 'new passphrase 2' });
    expect(reset.status, JSON.stringify(reset.body)).to.equal(200);
    expect(reset.body).to.deep.equal({
      ok: true,
      data: { message: 'Your password has been reset. Sign in with your new password.' },
    });
    for (const session of [first, second]) {
      const me = await session.call('GET', '/auth/me');
      expect(me.status).to.equal(401);
      expect(me.body.error?.message).to.equal('Not signed in');
    }
    const start = await request('/api/csrf-token', { host: 'app' });
    const oldPassword = await request('/api/auth/login', {
      host: 'app',
      method: 'POST',
      body: { email: user.email, password: 'old passphrase 2' },
      headers: {
        cookie: start.headers.get('set-cookie')!.split(';')[0]!,
        'x-csrf-token': start.body.data.token as string,
      },
    });
    expect(oldPassword.status).to.equal(401);
    await signIn(user.email, 'new passphrase 2');

    const again = await browser.post('/auth/reset-password', { token, new_password: 'third passphrase 2' });
    expect(again.status).to.equal(422);
    expect(again.body.error?.validation_errors).to.deep.equal(INVALID_LINK);
    const made = await browser.post('/auth/reset-password', { token: 'made-up', new_password: 'x' });
    expect(made.status).to.equal(422);
    expect(made.body.error.validation_errors).to.deep.equal({
      ...INVALID_LINK,
      new_password: ['Password must be at least 8 characters'],
    });
  });

  it('an admin has a link mailed (answered too, without a relay); others get 403; unknown users 404', async () => {
    const adminEmail = (await createUser('admin', { password: 'admin passphrase 3' })).email;
    const admin = await signIn(adminEmail, 'admin passphrase 3');
    const agentUser = await createUser('agent', { password: 'agent passphrase 3' });
    const agent = await signIn(agentUser.email, 'agent passphrase 3');
    // Created without a password: the link is how they get one.
    const newcomer = await createUser('viewer');

    const issued = await admin.call('POST', `/users/${newcomer.id}/password-reset`);
    expect(issued.status, issued.text).to.equal(202);
    expect(issued.body.data.message).to.equal(
      'No mail relay is configured (SMTP_URL): give the user this link yourself',
    );
    expect(Date.parse(issued.body.data.expires_at) - Date.now()).to.be.within(29 * 60_000, 30 * 60_000);
    const token = await tokenMailedTo(newcomer.email);
    expect(issued.body.data.link).to.equal(
      `http://localhost:${new URL(fleet().appUrl).port}/reset-password?token=${token}`,
    );

    const refused = await agent.call('POST', `/users/${newcomer.id}/password-reset`);
    expect(refused.status).to.equal(403);
    const unknown = await admin.call('POST', '/users/987654321/password-reset');
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error?.message).to.equal('User not found');

    const browser = await anonymousBrowserAt('127.0.1.3');
    const reset = await browser.post('/auth/reset-password', { token, new_password: 'newcomer passphrase' });
    expect(reset.status, JSON.stringify(reset.body)).to.equal(200);
    await signIn(newcomer.email, 'newcomer passphrase');
  });

  it('pnpm tix user reset-link prints a link with which the user sets a password, once', async () => {
    const user = await createUser('agent');
    const reset = await tixJson<{ user_id: number; link: string; expires_at: string }>([
      'user',
      'reset-link',
      '--email',
      user.email,
    ]);
    expect(reset.user_id).to.equal(user.id);
    expect(Date.parse(reset.expires_at)).to.be.greaterThan(Date.now());
    const link = new URL(reset.link);
    expect(link.pathname).to.equal('/reset-password');

    const browser = await anonymousBrowserAt('127.0.1.7');
    const body = { token: link.searchParams.get('token'), new_password: 'a brand new passphrase' };
    const first = await browser.post('/auth/reset-password', body);
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    await signIn(user.email, 'a brand new passphrase');
    expect((await browser.post('/auth/reset-password', body)).status).to.equal(422);
  });

  it('needs the CSRF token, as sign-in does', async () => {
    const browser = await anonymousBrowserAt('127.0.1.4');
    const refused = await browser.post('/auth/forgot-password', { email: 'a@example.com' }, { csrf: false });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.message).to.equal('Invalid CSRF token');
  });

  it('the 6th forgot-password within the hour from one address is 429 with the rate-limit headers', async () => {
    const browser = await anonymousBrowserAt('127.0.1.5');
    for (let i = 1; i <= 5; i += 1) {
      const answer = await browser.post('/auth/forgot-password', { email: `flood${i}@example.com` });
      expect(answer.status, `request ${i}`).to.equal(202);
      expect(answer.headers['x-ratelimit-limit']).to.equal('5');
      expect(answer.headers['x-ratelimit-remaining']).to.equal(String(5 - i));
    }
    const refused = await browser.post('/auth/forgot-password', { email: 'flood6@example.com' });
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal(429);
    expect(refused.headers['x-ratelimit-limit']).to.equal('5');
    expect(refused.headers['x-ratelimit-remaining']).to.equal('0');
    expect(Number(refused.headers['x-ratelimit-reset'])).to.be.greaterThan(Date.now() / 1000 + 3500);
    expect(Number(refused.headers['retry-after'])).to.be.within(3500, 3600);
    // Another address is not affected.
    const elsewhere = await anonymousBrowserAt('127.0.1.6');
    expect((await elsewhere.post('/auth/forgot-password', { email: 'flood7@example.com' })).status).to.equal(
      202,
    );
  });
});
