/**
 * The console's session edges in Debian's Chromium against the real fleet: a forgotten password from
 * the sign-in page to the mailed link and back in with the new one; a script error in the page
 * reported to POST /api/client-errors; a 429 shown as a wait of the server's Retry-After.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { eventually } from '@tix/kit/testing';
import {
  type ConsoleBrowser,
  expectAccessible,
  launchBrowser,
  screenshot,
  signInThroughConsole,
  type WatchedPage,
} from '../support/browser.js';
import { createProject, createUser } from '../support/fixtures.js';
import { fleet, fleetMailDir } from '../support/fleet.js';

const PASSWORD = 'a session edge passphrase';

/** The reset link mailed to `to` (the gateway writes each message to the fleet's mail folder). */
async function resetLinkMailedTo(to: string): Promise<string> {
  const message = await eventually(async () => {
    const dir = fleetMailDir();
    const files = (await readdir(dir).catch(() => [] as string[])).filter((file) => file.endsWith('.eml'));
    for (const file of files) {
      // Quoted-printable soft breaks and escapes undone.
      const text = (await readFile(path.join(dir, file), 'utf8'))
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      if (text.includes(`\nTo: ${to}\n`)) return text;
    }
    return undefined;
  }, 10_000);
  const token = /\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(message)?.[1];
  expect(token, 'the message carries the link').to.be.a('string');
  // The page of the link, on this fleet's session host.
  return `${fleet().appUrl}/reset-password?token=${token}`;
}

/** Signed-in users' error reports the gateway has counted (tix_client_errors_total). */
async function reportsCounted(): Promise<number> {
  const text = await (await fetch(fleet().metricsUrls.gateway!)).text();
  const line = text
    .split('\n')
    .find(
      (candidate) =>
        candidate.startsWith('tix_client_errors_total{') && candidate.includes('signed_in="true"'),
    );
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('the console: password reset, error reports, rate limits', function () {
  this.timeout(120_000);
  let console_: ConsoleBrowser;
  const pages: WatchedPage[] = [];

  async function newPage(): Promise<WatchedPage> {
    const watched = await console_.newPage();
    pages.push(watched);
    return watched;
  }

  async function signIn(email: string, password: string): Promise<WatchedPage> {
    const watched = await newPage();
    await signInThroughConsole(watched.page, { email, password });
    return watched;
  }

  before(async () => {
    console_ = await launchBrowser();
    // The console opens the user's first project: give the users one.
    await createProject();
  });

  after(async () => {
    await console_?.close();
  });

  it('resets a forgotten password from the sign-in page through the mailed link', async () => {
    const user = await createUser('agent', { password: 'the forgotten passphrase' });
    const watched = await newPage();
    const { page } = watched;
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Forgotten your password?' }).click();
    await page.getByLabel('Email').fill(user.email);
    await expectAccessible(page);
    const answered = page.waitForResponse((response) => response.url().endsWith('/api/auth/forgot-password'));
    await page.getByRole('button', { name: 'Send the link' }).click();
    // The shared fleet keeps the spec's limit of 5 a hour from one address, which the password
    // reset e2e tests spend: the page shows whichever answer the server gave.
    if ((await answered).status() === 202) {
      await page.getByText('If that address belongs to an active account').waitFor();
    } else {
      expect((await answered).status()).to.equal(429);
      await page.getByText(/^Too many requests: try again in \d+ s\.$/).waitFor();
      // The link then comes from an admin, as it does for a user who cannot ask.
      const admin = await signIn((await createUser('admin', { password: PASSWORD })).email, PASSWORD);
      const sent = await admin.page.evaluate(async (id) => {
        const token = (await (await fetch('/api/csrf-token')).json()) as { data: { token: string } };
        const response = await fetch(`/api/users/${id}/password-reset`, {
          method: 'POST',
          headers: { 'X-CSRF-Token': token.data.token },
        });
        return response.status;
      }, user.id);
      expect(sent).to.equal(202);
    }
    await screenshot(page, 'session-forgot-password');

    await page.goto(await resetLinkMailedTo(user.email));
    await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('New password again').fill(PASSWORD);
    await expectAccessible(page);
    await screenshot(page, 'session-reset-password');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.waitForURL(/\/sign-in\?reset=1$/);
    await page.getByText('Your password has been reset').waitFor();

    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('the forgotten passphrase');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Sign out' }).waitFor();
    watched.expectNoProblems();
  });

  it('reports a script error in the page to /api/client-errors, and the server records it', async () => {
    const user = await createUser('agent', { password: PASSWORD });
    const { page } = await signIn(user.email, PASSWORD);
    const before = await reportsCounted();
    const answered = page.waitForResponse((response) => response.url().endsWith('/api/client-errors'));
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error('a console test failure');
      });
    });
    expect((await answered).status()).to.equal(202);
    expect(await reportsCounted()).to.equal(before + 1);
  });

  it('shows a 429 as a wait of the Retry-After the server sent', async () => {
    const user = await createUser('agent', { password: PASSWORD });
    const watched = await signIn(user.email, PASSWORD);
    const { page } = watched;
    // The fleet's limits are far above what a test sends: this one answer stands for a busy server.
    await page.route('**/api/board?*', (route) =>
      route.fulfill({
        status: 429,
        headers: { 'Retry-After': '7', 'Content-Type': 'application/json' },
        body: JSON.stringify({ ok: false, error: { code: 429, message: 'Rate limit exceeded' } }),
      }),
    );
    await page.goto('/board');
    await page.getByText('Too many requests: try again in 7 s.').waitFor();
    await screenshot(page, 'session-rate-limited');
    watched.expectNoProblems();
  });
});
