/**
 * The mailbox routes of the session host against the real lookup and mail services (fresh
 * databases, an S3 test server): admins add, list, pause and test mailboxes and read what one
 * received; other roles are refused; a mailbox of another project is unknown; bad bodies are 422 by
 * field, a taken address 409, and an IMAP secret is never shown.
 */
import net from 'node:net';
import { expect } from 'chai';
import nodemailer from 'nodemailer';
import { eventually, expectError, suiteFixture } from '@tix/kit/testing';
import { createAlphaAndBeta } from '../support/lookup-seed.js';
import { startMailPeer } from '../support/mail-peer.js';
import { startRealServices } from '../support/real-services.js';
import { sendJson, signedInBrowser, type JsonResponse } from '../support/test-gateway.js';

const PASSWORD = 'mail routes password';

describe('mailbox routes + real lookup and mail services (fresh databases)', function () {
  this.timeout(60_000);
  let admin: Record<string, string>;
  let agent: Record<string, string>;
  let smtpPort = 0;

  const fleet = suiteFixture(() =>
    startRealServices({
      label: 'gateway_mail',
      seed: async (directory) => {
        await createAlphaAndBeta(directory);
        for (const [name, role] of [
          ['Ada', 'admin'],
          ['Aga', 'agent'],
        ] as const)
          await directory.CreateUser({
            name,
            email: `${name.toLowerCase()}@example.com`,
            role,
            password: PASSWORD,
          });
      },
      peers: {
        mail: async ({ lookup }) => {
          const mail = await startMailPeer(lookup, 'gateway_mail');
          smtpPort = mail.smtpPort;
          return mail;
        },
      },
    }),
  );

  const app = (
    path: string,
    headers: Record<string, string>,
    init: { method?: string; body?: unknown } = {},
  ) => sendJson(`${fleet.gateway.appUrl}/api${path}`, init.method ?? 'GET', headers, init.body);
  const data = (response: JsonResponse, status = 200) => {
    expect(response.status, JSON.stringify(response.body)).to.equal(status);
    return response.body.data;
  };

  before(async () => {
    admin = await signedInBrowser(fleet.gateway.appUrl, 'ada@example.com', PASSWORD);
    agent = await signedInBrowser(fleet.gateway.appUrl, 'aga@example.com', PASSWORD);
  });

  it('admins only; the project context is required', async () => {
    const message = 'Your role (agent) does not allow this; it needs admin or higher';
    expectError(await app('/mailboxes?project=alpha', agent), 403, message);
    expectError(await app('/mailboxes?project=alpha', agent, { method: 'POST', body: {} }), 403, message);
    expectError(await app('/mailboxes', admin), 400, 'Project ID is required.');
  });

  it('adds an SMTP mailbox, lists it, and shows what it received', async () => {
    const created = data(
      await app('/mailboxes?project=alpha', admin, {
        method: 'POST',
        body: { kind: 'smtp', address: 'Help@Alpha.Example' },
      }),
      201,
    ).mailbox;
    expect(created).to.include({
      kind: 'smtp',
      address: 'help@alpha.example',
      paused: false,
      imap_host: null,
    });
    expect(
      data(await app('/mailboxes?project=alpha', admin)).mailboxes.map((m: { id: number }) => m.id),
    ).to.include(created.id);
    expect(data(await app(`/mailboxes/${created.id}?project=alpha`, admin)).mailbox).to.deep.equal(created);
    expectError(await app(`/mailboxes/${created.id}?project=beta`, admin), 404, 'Mailbox not found');
    expectError(await app(`/mailboxes/${created.id + 1000}?project=alpha`, admin), 404, 'Mailbox not found');
    expect(data(await app('/mailboxes?project=beta', admin)).mailboxes).to.deep.equal([]);
    expectError(
      await app('/mailboxes?project=beta', admin, {
        method: 'POST',
        body: { kind: 'smtp', address: 'help@alpha.example' },
      }),
      409,
      /mailbox/i,
    );

    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, ignoreTLS: true });
    await transport.sendMail({
      from: 'carol@customer.example',
      to: 'help@alpha.example',
      subject: 'Hello',
      text: 'Hi there',
      messageId: '<mail-routes-1@customer.example>',
    });
    transport.close();
    const messages = await eventually(async () => {
      const listed = data(await app(`/mailboxes/${created.id}/messages?project=alpha&limit=10`, admin));
      expect(listed.count).to.equal(1);
      return listed.messages;
    });
    expect(messages[0]).to.include({
      mailbox_id: created.id,
      source: 'smtp',
      message_id: '<mail-routes-1@customer.example>',
    });
    expect(messages[0].size).to.be.greaterThan(0);

    expectError(await app(`/mailboxes/${created.id}/messages?project=beta`, admin), 404, 'Mailbox not found');
    expectError(
      await app(`/mailboxes/${created.id}/messages?project=alpha&limit=0`, admin),
      400,
      'Invalid limit',
      {
        limit: ['limit must be an integer from 1 to 100'],
      },
    );
  });

  it('adds an IMAP mailbox without ever showing its secret, pauses it, and tests it', async () => {
    // A port nothing listens on: the test reports the connection failure, it does not hang or 500.
    const closed = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const response = await app('/mailboxes?project=alpha', admin, {
      method: 'POST',
      body: {
        kind: 'imap',
        address: 'inbox@alpha.example',
        imap_host: '127.0.0.1',
        imap_port: closed,
        imap_tls: false,
        imap_user: 'inbox',
        secret: 'very secret password',
      },
    });
    const mailbox = data(response, 201).mailbox;
    expect(JSON.stringify(response.body)).not.to.contain('very secret password');
    expect(mailbox).to.include({ kind: 'imap', imap_host: '127.0.0.1', imap_port: closed, auth: 'password' });

    const paused = data(
      await app(`/mailboxes/${mailbox.id}?project=alpha`, admin, { method: 'PATCH', body: { paused: true } }),
    ).mailbox;
    expect(paused.paused).to.equal(true);
    expectError(
      await app(`/mailboxes/${mailbox.id}?project=beta`, admin, { method: 'PATCH', body: { paused: false } }),
      404,
      'Mailbox not found',
    );

    const result = data(
      await app(`/mailboxes/${mailbox.id}/test?project=alpha`, admin, { method: 'POST' }),
    ).result;
    expect(result.ok).to.equal(false);
    expect(result.error).to.be.a('string').and.not.equal('');
    expect(result.message_count).to.equal(null);
  });

  it('adds an XOAUTH2 mailbox with its OAuth2 client, shows none of its secrets, renews its refresh token', async () => {
    // A token endpoint nothing listens on: "Test connection" tries the refresh and says why it failed.
    const closed = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const tokenUrl = `http://127.0.0.1:${closed}/token`;
    const response = await app('/mailboxes?project=alpha', admin, {
      method: 'POST',
      body: {
        kind: 'imap',
        address: 'oauth@alpha.example',
        imap_host: '127.0.0.1',
        imap_port: 993,
        imap_user: 'oauth@alpha.example',
        auth: 'xoauth2',
        oauth2: {
          token_url: tokenUrl,
          client_id: 'client-1',
          client_secret: 'the client secret',
          refresh_token: 'the first refresh token',
          scope: 'https://mail.google.com/',
        },
      },
    });
    const mailbox = data(response, 201).mailbox;
    expect(JSON.stringify(response.body))
      .not.to.contain('the client secret')
      .and.not.contain('refresh token');
    expect(mailbox).to.include({ auth: 'xoauth2' });
    expect(mailbox.oauth2).to.deep.equal({
      token_url: tokenUrl,
      client_id: 'client-1',
      scope: 'https://mail.google.com/',
      access_token_expires_at: null,
    });
    await app(`/mailboxes/${mailbox.id}?project=alpha`, admin, { method: 'PATCH', body: { paused: true } });
    const result = data(
      await app(`/mailboxes/${mailbox.id}/test?project=alpha`, admin, { method: 'POST' }),
    ).result;
    expect(result.ok).to.equal(false);
    expect(result.error).to.match(/^OAuth2 token endpoint 127\.0\.0\.1:\d+ unreachable/);

    const renewed = await app(`/mailboxes/${mailbox.id}?project=alpha`, admin, {
      method: 'PATCH',
      body: { oauth2: { refresh_token: 'a second refresh token', scope: '' } },
    });
    expect(JSON.stringify(renewed.body)).not.to.contain('refresh token');
    expect(data(renewed).mailbox).to.deep.include({
      paused: true,
      status: 'idle',
      last_error: null,
      oauth2: { token_url: tokenUrl, client_id: 'client-1', scope: null, access_token_expires_at: null },
    });
    const patchRefused = async (body: unknown) => {
      const answer = await app(`/mailboxes/${mailbox.id}?project=alpha`, admin, { method: 'PATCH', body });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(422);
      return answer.body.error.validation_errors as Record<string, string[]>;
    };
    expect(await patchRefused({ oauth2: { token_url: 'http://idp.example/token' } })).to.deep.equal({
      'oauth2.token_url': ['must be an https URL'],
    });
    expect(await patchRefused({ oauth2: { refresh_token: 7 } })).to.have.property('oauth2.refresh_token');
    expect(await patchRefused({ auth: 'password' })).to.have.property('secret');
  });

  it('refuses bad bodies by field (422), never a 500', async () => {
    const refused = async (body: unknown) => {
      const response = await app('/mailboxes?project=alpha', admin, { method: 'POST', body });
      expect(response.status, JSON.stringify(response.body)).to.equal(422);
      return response.body.error.validation_errors as Record<string, string[]>;
    };
    expect(await refused({})).to.have.property('kind');
    expect(await refused({ kind: 'pop3', address: 'x@y.z' })).to.have.property('kind');
    expect(await refused({ kind: 'smtp', address: 'not an address' })).to.have.property('address');
    expect(await refused({ kind: 'smtp', address: 'a@b.c\r\nBcc: x@y.z' })).to.have.property('address');
    expect(await refused({ kind: 'imap', address: 'i@alpha.example' })).to.include.keys(
      'imap_host',
      'imap_port',
      'imap_user',
      'secret',
    );
    expect(await refused({ kind: 'imap', address: 'i@alpha.example', imap_port: 70000 })).to.have.property(
      'imap_port',
    );
    const imap = { kind: 'imap', address: 'o@alpha.example', imap_host: 'h', imap_port: 993, imap_user: 'u' };
    // XOAUTH2: an OAuth2 client or a raw access token; an incomplete client is refused by field.
    expect(await refused({ ...imap, auth: 'xoauth2' })).to.have.property('secret');
    expect(await refused({ ...imap, auth: 'xoauth2', oauth2: 'yes' })).to.deep.equal({
      oauth2: ['oauth2 must be an object'],
    });
    expect(
      await refused({ ...imap, auth: 'xoauth2', oauth2: { token_url: 'https://idp.example/token' } }),
    ).to.include.keys('oauth2.client_id', 'oauth2.refresh_token');
    expect(
      await refused({
        ...imap,
        auth: 'xoauth2',
        oauth2: { token_url: 'not a url', client_id: 'c', refresh_token: 'r' },
      }),
    ).to.deep.equal({ 'oauth2.token_url': ['must be a URL'] });
    expect(
      await refused({
        ...imap,
        auth: 'password',
        secret: 'pw',
        oauth2: { token_url: 'https://idp.example/token', client_id: 'c', refresh_token: 'r' },
      }),
    ).to.deep.equal({ oauth2: ['only for an IMAP mailbox with auth xoauth2'] });
    expectError(
      await app('/mailboxes/0?project=alpha', admin, { method: 'PATCH', body: {} }),
      400,
      'Invalid mailbox id',
    );
  });
});
