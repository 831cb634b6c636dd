/**
 * The refresh_token grant (src/inbound/oauth2.ts) against a local HTTP server answering as
 * providers do: what is kept of a good answer, and which failures wait for an admin
 * (OAuth2RefusedError) and which are retried (OAuth2UnavailableError).
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { expect } from 'chai';
import {
  OAuth2RefusedError,
  OAuth2UnavailableError,
  refreshGrant,
  tokenUrlProblem,
  type OAuth2Client,
} from '../../src/inbound/oauth2.js';

describe('the OAuth2 refresh_token grant', () => {
  let server: http.Server;
  let answer: { status: number; body: string } = { status: 200, body: '{}' };
  let received: { body: URLSearchParams; type: string | undefined } | null = null;
  let client: OAuth2Client;

  before(async () => {
    server = http.createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        received = { body: new URLSearchParams(text), type: request.headers['content-type'] };
        response.writeHead(answer.status, { 'content-type': 'application/json' });
        response.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    client = {
      token_url: `http://127.0.0.1:${port}/token`,
      client_id: 'client',
      client_secret: 'secret',
      refresh_token: 'rt-1',
      scope: '',
    };
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('posts the grant as a form with the client in the body, and keeps the token, its expiry and a rotated refresh token', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        access_token: 'at-1',
        expires_in: 3600,
        token_type: 'Bearer',
        refresh_token: 'rt-2',
      }),
    };
    const result = await refreshGrant({ ...client, scope: 'https://mail.google.com/' }, () => 1_000_000);
    expect(received!.type).to.equal('application/x-www-form-urlencoded');
    expect(Object.fromEntries(received!.body)).to.deep.equal({
      grant_type: 'refresh_token',
      refresh_token: 'rt-1',
      client_id: 'client',
      client_secret: 'secret',
      scope: 'https://mail.google.com/',
    });
    expect(result).to.deep.equal({
      token: { access_token: 'at-1', expires_at: 1_000_000 + 3_600_000, refresh_at: 1_000_000 + 3_540_000 },
      refreshToken: 'rt-2',
    });
  });

  it('refreshes a short-lived token halfway, assumes an hour without expires_in, and sends no secret for a public client', async () => {
    answer = { status: 200, body: JSON.stringify({ access_token: 'at-2', expires_in: 30 }) };
    const short = await refreshGrant({ ...client, client_secret: '' }, () => 0);
    expect(received!.body.has('client_secret')).to.equal(false);
    expect(short).to.deep.equal({
      token: { access_token: 'at-2', expires_at: 30_000, refresh_at: 15_000 },
      refreshToken: null,
    });
    answer = { status: 200, body: JSON.stringify({ access_token: 'at-3' }) };
    expect((await refreshGrant(client, () => 0)).token.expires_at).to.equal(3_600_000);
  });

  it('is refused for invalid_grant and invalid_client, saying what the admin must do', async () => {
    answer = {
      status: 400,
      body: JSON.stringify({
        error: 'invalid_grant',
        error_description: 'Token has been expired or revoked.',
      }),
    };
    const grant = await refreshGrant(client).catch((error: unknown) => error);
    expect(grant).to.be.instanceOf(OAuth2RefusedError);
    expect((grant as Error).message).to.equal(
      'OAuth2 token refresh refused: invalid_grant (Token has been expired or revoked.); give the mailbox a new refresh token',
    );
    answer = { status: 401, body: JSON.stringify({ error: 'invalid_client' }) };
    const wrong = await refreshGrant(client).catch((error: unknown) => error);
    expect(wrong).to.be.instanceOf(OAuth2RefusedError);
    expect((wrong as Error).message).to.contain('check the client id and secret');
  });

  it('is unavailable, to be retried, for 5xx, 429, HTML, a missing token and a closed port', async () => {
    for (const [status, body] of [
      [503, '{"error":"temporarily_unavailable"}'],
      [429, ''],
      [502, '<html>Bad gateway</html>'],
      [200, '{"token_type":"Bearer"}'],
      [400, '{"error":"something_else"}'],
    ] as const) {
      answer = { status, body };
      const error = await refreshGrant(client).catch((e: unknown) => e);
      expect(error, `${status} ${body}`).to.be.instanceOf(OAuth2UnavailableError);
    }
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const closed = await refreshGrant({ ...client, token_url: `http://127.0.0.1:${port}/token` }).catch(
      (e: unknown) => e,
    );
    expect(closed).to.be.instanceOf(OAuth2UnavailableError);
    expect((closed as Error).message).to.equal(
      `OAuth2 token endpoint 127.0.0.1:${port} unreachable: ECONNREFUSED`,
    );
    // fetch refuses some ports itself: the message says so rather than "fetch failed".
    const bad = await refreshGrant({ ...client, token_url: 'http://127.0.0.1:1/token' }).catch(
      (e: unknown) => e,
    );
    expect((bad as Error).message).to.equal('OAuth2 token endpoint 127.0.0.1:1 unreachable: bad port');
  });

  it('takes https token URLs, and http only on a loopback host', () => {
    expect(tokenUrlProblem('https://oauth2.googleapis.com/token')).to.equal(null);
    expect(tokenUrlProblem('http://127.0.0.1:8080/token')).to.equal(null);
    expect(tokenUrlProblem('http://localhost/token')).to.equal(null);
    expect(tokenUrlProblem('http://idp.example/token')).to.equal('must be an https URL');
    expect(tokenUrlProblem('file:///etc/passwd')).to.equal('must be an https URL');
    expect(tokenUrlProblem('not a url')).to.equal('must be a URL');
  });
});
