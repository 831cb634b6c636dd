/**
 * OAuth2 access tokens for XOAUTH2 mailboxes (docs/mail.md, "OAuth2 (XOAUTH2)"): the mailbox keeps
 * an OAuth2 client (token URL, client id and secret, refresh token, scope) sealed in `oauth_client`
 * and the current access token with its expiry sealed in `oauth_token`. `accessToken()` answers the
 * cached token while it is fresh, else runs the refresh_token grant (RFC 6749 §6: a form POST, the
 * client authenticated in the body, §2.3.1) and stores the new token, and the rotated refresh token
 * when the provider sends one, before answering it. One refresh per mailbox at a time (an advisory
 * lock), so the fetcher and "Test connection" never spend one refresh token twice.
 */
import type pg from 'pg';
import { inTransaction, type SecretBox } from '@tix/kit';

export interface OAuth2Client {
  token_url: string;
  client_id: string;
  /** Empty for a public client. */
  client_secret: string;
  refresh_token: string;
  /** Empty: the scope the refresh token was granted (RFC 6749 §6). */
  scope: string;
}

export interface CachedToken {
  access_token: string;
  /** When the provider says it expires (ms since the epoch). */
  expires_at: number;
  /** When to refresh it: a minute before expiry, or halfway through a lifetime shorter than two. */
  refresh_at: number;
}

/** Refreshing a token within this long of its expiry. */
export const REFRESH_MARGIN_MS = 60_000;
/** The token endpoint's answer must come within this long. */
const TOKEN_TIMEOUT_MS = 10_000;
/** RFC 6749 §5.1 recommends expires_in; without it, an hour (what Google and Microsoft give). */
const DEFAULT_LIFETIME_S = 3600;
/** The advisory lock namespace of token refreshes (the second key is the mailbox id). */
const REFRESH_LOCK = 28_0002;

/**
 * The provider refused the grant or the client (invalid_grant: the refresh token was revoked or
 * expired; invalid_client: wrong client id or secret): nothing but an admin's new values helps.
 */
export class OAuth2RefusedError extends Error {
  constructor(
    readonly code: string,
    description: string,
  ) {
    super(
      `OAuth2 token refresh refused: ${code}${description ? ` (${description})` : ''}; ` +
        (code === 'invalid_client'
          ? 'check the client id and secret of the mailbox'
          : 'give the mailbox a new refresh token'),
    );
  }
}

/** The token endpoint could not be used now (down, timeout, 5xx, a malformed answer): retry later. */
export class OAuth2UnavailableError extends Error {}

/** Error codes of RFC 6749 §5.2 that a retry cannot cure. */
const REFUSALS = new Set([
  'invalid_grant',
  'invalid_client',
  'unauthorized_client',
  'invalid_scope',
  'unsupported_grant_type',
  'invalid_request',
]);

/** A token URL Tix posts to: https, or http on a loopback host (a local proxy, tests). */
export function tokenUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be a URL';
  }
  if (url.protocol === 'https:') return null;
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol === 'http:' && loopback) return null;
  return 'must be an https URL';
}

/** One refresh_token grant; throws OAuth2RefusedError or OAuth2UnavailableError. */
export async function refreshGrant(
  client: OAuth2Client,
  now = Date.now,
): Promise<{ token: CachedToken; refreshToken: string | null }> {
  const form = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: client.refresh_token,
    client_id: client.client_id,
  });
  // A public client (no secret) sends its id alone.
  if (client.client_secret) form.set('client_secret', client.client_secret);
  if (client.scope) form.set('scope', client.scope);
  const host = (() => {
    try {
      return new URL(client.token_url).host;
    } catch {
      return client.token_url;
    }
  })();
  let response: Response;
  try {
    response = await fetch(client.token_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
      redirect: 'error',
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    });
  } catch (error) {
    // fetch says "fetch failed"; its cause says why (ECONNREFUSED, a timeout, "bad port").
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new OAuth2UnavailableError(`OAuth2 token endpoint ${host} unreachable: ${why}`);
  }
  const text = await response.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: judged by the status below.
  }
  const issued = now();
  if (response.ok && typeof body.access_token === 'string' && body.access_token) {
    const expiresIn = Number(body.expires_in);
    const lifetimeMs = (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_LIFETIME_S) * 1000;
    return {
      token: {
        access_token: body.access_token,
        expires_at: issued + lifetimeMs,
        refresh_at: issued + Math.max(lifetimeMs - REFRESH_MARGIN_MS, lifetimeMs / 2),
      },
      refreshToken: typeof body.refresh_token === 'string' && body.refresh_token ? body.refresh_token : null,
    };
  }
  const code = typeof body.error === 'string' ? body.error : '';
  const description = typeof body.error_description === 'string' ? body.error_description.slice(0, 200) : '';
  if (response.status >= 400 && response.status < 500 && REFUSALS.has(code))
    throw new OAuth2RefusedError(code, description);
  throw new OAuth2UnavailableError(
    response.ok
      ? `OAuth2 token endpoint ${host} answered no access_token`
      : `OAuth2 token endpoint ${host} answered ${response.status}${code ? ` ${code}` : ''}`,
  );
}

interface TokenRow {
  auth: string;
  secret: string | null;
  oauth_client: string | null;
  oauth_token: string | null;
}

export interface MailboxTokens {
  /**
   * The access token to sign in with: the cached one while fresh, else a refreshed one (stored
   * first). `refused`: the token the server just refused, which is not answered again. Null when the
   * mailbox has no OAuth2 client (its secret is the token, used as is).
   */
  accessToken(mailboxId: number, refused?: string): Promise<CachedToken | null>;
}

export function openClient(secrets: SecretBox, sealed: string): OAuth2Client {
  return JSON.parse(secrets.open(sealed)) as OAuth2Client;
}

function openToken(secrets: SecretBox, sealed: string | null): CachedToken | null {
  if (sealed === null) return null;
  try {
    return JSON.parse(secrets.open(sealed)) as CachedToken;
  } catch {
    return null;
  }
}

/** Takes the lock that serialises refreshes and credential changes of one mailbox. */
export async function lockMailboxTokens(db: pg.PoolClient, mailboxId: number): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1, $2)', [REFRESH_LOCK, mailboxId]);
}

export function mailboxTokens(pool: pg.Pool, secrets: SecretBox, now = Date.now): MailboxTokens {
  const fresh = (token: CachedToken | null, refused?: string): token is CachedToken =>
    token !== null && token.access_token !== refused && now() < token.refresh_at;
  return {
    async accessToken(mailboxId, refused) {
      const read = await pool.query<TokenRow>(
        'SELECT auth, secret, oauth_client, oauth_token FROM mailboxes WHERE id = $1',
        [mailboxId],
      );
      const row = read.rows[0];
      if (!row || row.auth !== 'xoauth2' || row.oauth_client === null) return null;
      const cached = openToken(secrets, row.oauth_token);
      if (fresh(cached, refused)) return cached;
      return inTransaction(pool, async (db) => {
        await lockMailboxTokens(db, mailboxId);
        // Another refresh may have finished while this one waited for the lock.
        const locked = await db.query<TokenRow>(
          'SELECT auth, secret, oauth_client, oauth_token FROM mailboxes WHERE id = $1',
          [mailboxId],
        );
        const current = locked.rows[0];
        if (!current || current.auth !== 'xoauth2' || current.oauth_client === null) return null;
        const again = openToken(secrets, current.oauth_token);
        if (fresh(again, refused)) return again;
        const client = openClient(secrets, current.oauth_client);
        const { token, refreshToken } = await refreshGrant(client, now);
        // Durable before use: a rotated refresh token is the only one the provider honours now.
        await db.query(
          `UPDATE mailboxes SET oauth_token = $2, oauth_token_expires_at = $3,
             oauth_client = COALESCE($4, oauth_client), updated_at = now()
           WHERE id = $1`,
          [
            mailboxId,
            secrets.seal(JSON.stringify(token)),
            new Date(token.expires_at),
            refreshToken && refreshToken !== client.refresh_token
              ? secrets.seal(JSON.stringify({ ...client, refresh_token: refreshToken }))
              : null,
          ],
        );
        return token;
      });
    },
  };
}
