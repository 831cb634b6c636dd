/**
 * XOAUTH2 mailboxes through real parts: PostgreSQL, s3rver, a lookup service, the mail service, and
 * a private dovecot whose oauth2 passdb checks every bearer token with the fake provider's
 * introspection endpoint (the one fake: an OAuth provider's token endpoint). Tokens live 3 s, so
 * the service refreshes several times while mail keeps arriving.
 */
import { expect } from 'chai';
import pg from 'pg';
import { AppError, createSecretBox, createServiceClient, type ServiceClient } from '@tix/kit';
import { createTestDatabase, eventually, type TestDatabase } from '@tix/kit/testing';
import { startTestS3Server, type TestS3Server } from '@tix/attachment-service/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import type { mail as mailTypes } from '@tix/protos';
import {
  MAIL_MIGRATIONS_DIR,
  startTestDovecot,
  startTestMailServer,
  type TestDovecot,
  type TestMailServer,
} from '../../src/testing.js';
import { startFakeOAuthProvider, type FakeOAuthProvider } from '../support/oauth-provider.js';

const LIFETIME_MS = 3_000;
// The test service runs without MAIL_SECRET_KEY: its SecretBox stores `plain:` values.
const secrets = createSecretBox(null, 'MAIL_SECRET_KEY');

function rawMessage(id: string): string {
  return [
    'From: Customer <customer@example.com>',
    'To: support@example.com',
    `Subject: Help ${id}`,
    `Message-ID: <${id}@example.com>`,
    'Date: Thu, 03 Dec 2026 12:00:00 +0000',
    '',
    'hello',
    '',
  ].join('\r\n');
}

describe('IMAP XOAUTH2 mailboxes with token refresh (dovecot oauth2 passdb, fake provider)', function () {
  this.timeout(120_000);
  let lookup: TestLookupServer;
  let s3: TestS3Server;
  let database: TestDatabase;
  let mail: TestMailServer;
  let client: ServiceClient<'mail'>;
  let db: pg.Pool;
  let provider: FakeOAuthProvider;
  let dovecot: TestDovecot;

  before(async () => {
    lookup = await startTestLookupServer();
    s3 = await startTestS3Server();
    database = await createTestDatabase('mail', MAIL_MIGRATIONS_DIR);
    mail = await startTestMailServer({
      lookupAddress: lookup.address,
      store: s3.config,
      databaseUrl: database.url,
    });
    client = createServiceClient('mail', mail.address, { deadlineMs: 20_000 });
    db = new pg.Pool({ connectionString: mail.databaseUrl });
    provider = await startFakeOAuthProvider({ username: 'tester', lifetimeMs: LIFETIME_MS, rotate: true });
    // XOAUTH2 only (no OAUTHBEARER), so imapflow signs in with the mechanism the issue names.
    dovecot = await startTestDovecot({
      oauth2: { introspectionUrl: provider.introspectionUrl, mechanisms: 'plain login xoauth2' },
    });
  });
  after(async () => {
    await db?.end();
    client?.close();
    await mail?.stop();
    await database?.drop();
    await dovecot?.stop();
    await provider?.stop();
    await s3?.stop();
    await lookup?.stop();
  });

  function oauthMailbox(address: string, refreshToken: string, paused = false) {
    return client
      .CreateMailbox({
        project_id: 1,
        kind: 'imap',
        address,
        imap_host: dovecot.host,
        imap_port: dovecot.port,
        imap_tls: false,
        imap_user: dovecot.user,
        auth: 'xoauth2',
        oauth2: {
          token_url: provider.tokenUrl,
          client_id: provider.clientId,
          client_secret: provider.clientSecret,
          refresh_token: refreshToken,
          scope: 'https://mail.google.com/',
        },
        default_ticket_type_id: 0,
      })
      .then(async (box) => (paused ? client.UpdateMailbox({ id: box.id, paused: true }) : box));
  }
  async function stored(mailboxId: number) {
    const { rows } = await db.query<{
      oauth_client: string;
      oauth_token: string | null;
      status: string;
      last_error: string | null;
    }>('SELECT oauth_client, oauth_token, status, last_error FROM mailboxes WHERE id = $1', [mailboxId]);
    const row = rows[0]!;
    return {
      ...row,
      client: JSON.parse(secrets.open(row.oauth_client)) as { refresh_token: string },
      token:
        row.oauth_token === null
          ? null
          : (JSON.parse(secrets.open(row.oauth_token)) as { access_token: string }),
    };
  }
  async function fetched(mailboxId: number) {
    const { rows } = await db.query<{ message_id: string; uid: string }>(
      'SELECT message_id, uid FROM inbound_messages WHERE mailbox_id = $1',
      [mailboxId],
    );
    return rows;
  }
  const requestsFor = (refreshTokens: Set<string>) =>
    provider.tokenRequests.filter(
      (request) => request.refresh_token && refreshTokens.has(request.refresh_token),
    );

  let box: mailTypes.Mailbox__Output;
  const appended: string[] = [];

  it('fetches mail over XOAUTH2, and keeps fetching across token expiries: every message once, the rotated refresh token kept', async () => {
    const first = provider.grant();
    box = await oauthMailbox('oauth@example.com', first);
    // Nothing secret comes back; what is not secret does.
    expect(JSON.stringify(box)).to.not.include(first).and.not.include(provider.clientSecret);
    expect(box.oauth2).to.include({ token_url: provider.tokenUrl, client_id: provider.clientId });
    expect(box.auth).to.equal('xoauth2');

    const batch = Array.from({ length: 5 }, (_, i) => `oauth-${i}`);
    await dovecot.append(batch.map(rawMessage));
    appended.push(...batch);
    await eventually(async () => expect(await fetched(box.id)).to.have.length(5), 20_000);
    expect((await stored(box.id)).status).to.equal('connected');
    const firstAccess = (await stored(box.id)).token!.access_token;

    // Mail keeps arriving over three token lifetimes, one message every 400 ms.
    const started = Date.now();
    for (let i = 0; Date.now() - started < LIFETIME_MS * 3; i++) {
      await dovecot.append([rawMessage(`oauth-late-${i}`)]);
      appended.push(`oauth-late-${i}`);
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    await eventually(async () => expect(await fetched(box.id)).to.have.length(appended.length), 30_000);
    const rows = await fetched(box.id);
    expect(rows.map((row) => row.message_id).sort()).to.deep.equal(
      appended.map((id) => `${id}@example.com`).sort(),
    );
    expect(new Set(rows.map((row) => row.uid)).size).to.equal(appended.length);

    // The first token expired at the provider, and the service signed in again with new ones.
    expect(provider.active(firstAccess)).to.equal(false);
    const log = await dovecot.log();
    expect(log.match(/Login: user=<tester>, method=XOAUTH2/g)?.length ?? 0).to.be.at.least(3);
    // Each grant spent the refresh token the previous one returned (the provider refuses an old one),
    // in the body of the request (client_secret_post), and the newest is the one stored.
    const granted = provider.tokenRequests.filter((request) => request.status === 200);
    expect(granted.length).to.be.at.least(3);
    expect(provider.tokenRequests.filter((request) => request.status !== 200)).to.deep.equal([]);
    expect(granted[0]).to.include({
      grant_type: 'refresh_token',
      refresh_token: first,
      client_id: provider.clientId,
      client_secret: provider.clientSecret,
      scope: 'https://mail.google.com/',
    });
    const kept = (await stored(box.id)).client.refresh_token;
    expect(kept).to.not.equal(first);
    expect(provider.honours(kept)).to.equal(true);
    expect(provider.honours(first)).to.equal(false);
  });

  it('"Test connection" refreshes a token the server refuses, and signs in', async () => {
    const probe = await oauthMailbox('oauth-probe@example.com', provider.grant(), true);
    // Tokens of a minute: still fresh when one is refused, so only the refusal makes it refresh (and
    // dovecot's penalty after a failed login, seconds, cannot outlast the new one).
    provider.setLifetime(60_000);
    let result: mailTypes.MailboxTestResult__Output;
    let before: Awaited<ReturnType<typeof stored>>;
    try {
      expect((await client.TestMailbox({ id: probe.id })).ok).to.equal(true);
      before = await stored(probe.id);
      // The provider revokes the access token early: dovecot refuses it, the service refreshes once.
      provider.revokeAccess(before.token!.access_token);
      result = await client.TestMailbox({ id: probe.id });
    } finally {
      provider.setLifetime(LIFETIME_MS);
    }
    expect(result).to.include({ ok: true, error: '' });
    expect(result.message_count).to.be.at.least(appended.length);
    expect(provider.introspections).to.deep.include({ token: before.token!.access_token, active: false });
    const after = await stored(probe.id);
    expect(after.token!.access_token).to.not.equal(before.token!.access_token);
    expect(after.client.refresh_token).to.not.equal(before.client.refresh_token);
  });

  it('invalid_grant: the mailbox shows the error, retries rarely, and an admin’s new refresh token brings it back', async () => {
    const revoked = provider.grant();
    provider.revoke(revoked);
    const broken = await oauthMailbox('oauth-revoked@example.com', revoked);
    await eventually(async () => expect((await stored(broken.id)).status).to.equal('error'), 10_000);
    const listed = (await client.ListMailboxes({ project_id: 1 })).mailboxes.find((m) => m.id === broken.id)!;
    expect(listed.last_error)
      .to.match(/invalid_grant/)
      .and.match(/new refresh token/);
    // The backoff: a handful of attempts in 4 s, not a tight loop.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const attempts = requestsFor(new Set([revoked])).length;
    expect(attempts).to.be.within(1, 5);
    // The other mailbox is unaffected, and the service answers.
    expect((await stored(box.id)).status).to.equal('connected');

    const renewed = await client.UpdateMailbox({
      id: broken.id,
      oauth2: { refresh_token: provider.grant() },
    });
    expect(renewed).to.include({ status: 'idle', last_error: '' });
    await eventually(async () => expect((await stored(broken.id)).status).to.equal('connected'), 10_000);
    await eventually(async () => expect(await fetched(broken.id)).to.have.length(appended.length), 20_000);
  });

  it('a sign-in change of a connected mailbox ends its session and signs in with the new values at once', async () => {
    // Tokens of a minute: without the change, the next session would start 30 s from now.
    provider.setLifetime(60_000);
    try {
      await eventually(async () => {
        const row = await stored(box.id);
        const expires = Number(
          (
            await db.query(
              'SELECT extract(epoch FROM oauth_token_expires_at) AS e FROM mailboxes WHERE id = $1',
              [box.id],
            )
          ).rows[0].e,
        );
        return row.status === 'connected' && expires * 1000 - Date.now() > 50_000;
      }, 10_000);
      const replacement = provider.grant();
      const changed = Date.now();
      await client.UpdateMailbox({ id: box.id, oauth2: { refresh_token: replacement } });
      await eventually(() => requestsFor(new Set([replacement])).length > 0, 5_000);
      await eventually(async () => (await stored(box.id)).status === 'connected', 5_000);
      expect(Date.now() - changed).to.be.below(10_000);
      await dovecot.append([rawMessage('oauth-after-change')]);
      appended.push('oauth-after-change');
      await eventually(async () => expect(await fetched(box.id)).to.have.length(appended.length), 10_000);
    } finally {
      provider.setLifetime(LIFETIME_MS);
    }
  });

  it('the provider down: the mailbox backs off with the error shown, then recovers', async () => {
    await provider.down();
    let late: mailTypes.Mailbox__Output | undefined;
    try {
      late = await oauthMailbox('oauth-outage@example.com', provider.grant());
      await eventually(async () => {
        const row = await stored(late!.id);
        expect(row.status).to.equal('error');
        expect(row.last_error).to.match(/unreachable/);
        return true;
      }, 10_000);
      const result = await client.TestMailbox({ id: late.id });
      expect(result.ok).to.equal(false);
      expect(result.error).to.match(/OAuth2 token endpoint 127\.0\.0\.1:\d+ unreachable/);
    } finally {
      await provider.up();
    }
    await eventually(async () => expect((await stored(late.id)).status).to.equal('connected'), 20_000);
    await eventually(async () => expect(await fetched(late.id)).to.have.length(appended.length), 20_000);
  });

  it('refuses an incomplete OAuth2 client by field, and keeps a raw access token working as before', async () => {
    const error = await client
      .CreateMailbox({
        project_id: 1,
        kind: 'imap',
        address: 'oauth-bad@example.com',
        imap_host: dovecot.host,
        imap_port: dovecot.port,
        imap_tls: false,
        imap_user: dovecot.user,
        auth: 'xoauth2',
        oauth2: {
          token_url: 'ftp://example.com/token',
          client_id: '',
          client_secret: '',
          refresh_token: '',
          scope: '',
        },
        default_ticket_type_id: 0,
      })
      .catch((e: unknown) => e as AppError);
    expect(error).to.be.instanceOf(AppError);
    expect((error as AppError).validationErrors).to.deep.equal({
      'oauth2.token_url': ['must be an https URL'],
      'oauth2.client_id': ['required for OAuth2'],
      'oauth2.refresh_token': ['required for OAuth2'],
    });

    // Today's form: the secret is an access token, used as is.
    const token = await fetch(provider.tokenUrl, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: provider.grant(),
        client_id: provider.clientId,
        client_secret: provider.clientSecret,
      }),
    }).then(async (response) => ((await response.json()) as { access_token: string }).access_token);
    const raw = await client.CreateMailbox({
      project_id: 1,
      kind: 'imap',
      address: 'oauth-raw@example.com',
      imap_host: dovecot.host,
      imap_port: dovecot.port,
      imap_tls: false,
      imap_user: dovecot.user,
      auth: 'xoauth2',
      secret: token,
      default_ticket_type_id: 0,
    });
    expect(raw.oauth2).to.equal(null);
    await client.UpdateMailbox({ id: raw.id, paused: true });
    expect((await client.TestMailbox({ id: raw.id })).ok).to.equal(true);
  });
});
