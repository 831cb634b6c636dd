/**
 * A fake OAuth2 provider for tests (an OAuth provider's token endpoint cannot run here): a node
 * http server on a free loopback port with
 *   POST /token       the refresh_token grant (RFC 6749 §6): for a known refresh token and the right
 *                     client, a short-lived opaque access token (and, with `rotate`, a new refresh
 *                     token that replaces the old one); else 400 invalid_grant / 401 invalid_client;
 *   POST /introspect  RFC 7662 for dovecot's oauth2 passdb: `active: true` and the user for a token
 *                     issued here and not yet expired, else `active: false`.
 * down() closes the port (connections refused) and up() opens it again on the same port.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { freePort } from '@tix/kit/testing';

export interface FakeOAuthProviderOptions {
  clientId?: string;
  clientSecret?: string;
  /** The user every token signs in. */
  username: string;
  /** Access token lifetime. */
  lifetimeMs: number;
  /** Answer a new refresh token with every grant, the old one refused from then on. */
  rotate?: boolean;
}

export interface TokenRequest {
  grant_type: string | null;
  refresh_token: string | null;
  client_id: string | null;
  client_secret: string | null;
  scope: string | null;
  status: number;
}

export type FakeOAuthProvider = Awaited<ReturnType<typeof startFakeOAuthProvider>>;

export async function startFakeOAuthProvider(options: FakeOAuthProviderOptions) {
  const clientId = options.clientId ?? 'tix-test-client';
  const clientSecret = options.clientSecret ?? 'tix-test-secret';
  const port = await freePort();
  let lifetimeMs = options.lifetimeMs;
  const refreshTokens = new Set<string>();
  const accessTokens = new Map<string, number>();
  const tokenRequests: TokenRequest[] = [];
  const introspections: { token: string; active: boolean }[] = [];
  const random = (prefix: string) => `${prefix}-${randomBytes(12).toString('hex')}`;

  const answer = (response: http.ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    response.end(JSON.stringify(body));
  };

  const handler = (request: http.IncomingMessage, response: http.ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const form = new URLSearchParams(text);
      if (request.method === 'POST' && request.url === '/token') {
        const refreshToken = form.get('refresh_token');
        const record = (status: number) =>
          tokenRequests.push({
            grant_type: form.get('grant_type'),
            refresh_token: refreshToken,
            client_id: form.get('client_id'),
            client_secret: form.get('client_secret'),
            scope: form.get('scope'),
            status,
          });
        if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
          record(401);
          return answer(response, 401, { error: 'invalid_client', error_description: 'Unknown client.' });
        }
        if (form.get('grant_type') !== 'refresh_token' || !refreshToken || !refreshTokens.has(refreshToken)) {
          record(400);
          return answer(response, 400, {
            error: 'invalid_grant',
            error_description: 'Token has been expired or revoked.',
          });
        }
        record(200);
        const accessToken = random('at');
        accessTokens.set(accessToken, Date.now() + lifetimeMs);
        const body: Record<string, unknown> = {
          access_token: accessToken,
          token_type: 'Bearer',
          expires_in: Math.round(lifetimeMs / 1000),
        };
        if (options.rotate) {
          refreshTokens.delete(refreshToken);
          const next = random('rt');
          refreshTokens.add(next);
          body.refresh_token = next;
        }
        return answer(response, 200, body);
      }
      if (request.method === 'POST' && request.url === '/introspect') {
        const token = form.get('token') ?? '';
        const expires = accessTokens.get(token);
        const active = expires !== undefined && Date.now() < expires;
        introspections.push({ token, active });
        return answer(
          response,
          200,
          active ? { active: true, username: options.username } : { active: false },
        );
      }
      answer(response, 404, { error: 'not_found' });
    });
  };

  let server: http.Server | null = null;
  const up = async () => {
    if (server) return;
    const next = http.createServer(handler);
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    server = next;
  };
  const down = async () => {
    const current = server;
    server = null;
    if (!current) return;
    current.closeAllConnections();
    await new Promise<void>((resolve) => current.close(() => resolve()));
  };
  await up();

  return {
    clientId,
    clientSecret,
    tokenUrl: `http://127.0.0.1:${port}/token`,
    introspectionUrl: `http://127.0.0.1:${port}/introspect`,
    /** A refresh token the provider honours, as an admin would get it from the consent flow. */
    grant(): string {
      const token = random('rt');
      refreshTokens.add(token);
      return token;
    },
    /** Revokes a refresh token (the user withdrew consent): invalid_grant from then on. */
    revoke(token: string) {
      refreshTokens.delete(token);
    },
    honours: (token: string) => refreshTokens.has(token),
    /** The lifetime of the access tokens issued from now on. */
    setLifetime(ms: number) {
      lifetimeMs = ms;
    },
    /** Revokes an access token before its expiry: the IMAP server refuses it from then on. */
    revokeAccess(token: string) {
      accessTokens.delete(token);
    },
    /** Whether an access token is still valid here. */
    active: (token: string) => (accessTokens.get(token) ?? 0) > Date.now(),
    tokenRequests,
    introspections,
    up,
    down,
    stop: down,
  };
}
