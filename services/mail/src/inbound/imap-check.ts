/** Connecting to an IMAP account (imapflow), for TestMailbox and the fetcher. */
import { ImapFlow } from 'imapflow';
import type { SecretBox } from '@tix/kit';
import type { MailboxTokens } from './oauth2.js';

export interface ImapAccount {
  host: string;
  port: number;
  tls: boolean;
  user: string;
  auth: 'password' | 'xoauth2';
  /** The password, or the OAuth2 access token (XOAUTH2). */
  secret: string;
}

/** The columns of a mailbox row that say how to sign in. */
export interface ImapMailboxRow {
  id: number;
  imap_host: string | null;
  imap_port: number | null;
  imap_tls: boolean;
  imap_user: string | null;
  secret: string | null;
  auth: string;
}

export function imapClient(account: ImapAccount): ImapFlow {
  return new ImapFlow({
    host: account.host,
    port: account.port,
    secure: account.tls,
    auth:
      account.auth === 'xoauth2'
        ? { user: account.user, accessToken: account.secret }
        : { user: account.user, pass: account.secret },
    logger: false,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
  });
}

/** The server refused the credentials (`NO [AUTHENTICATIONFAILED]`, or a failed AUTHENTICATE). */
export function isAuthenticationFailure(error: unknown): boolean {
  const failure = error as { authenticationFailed?: boolean; serverResponseCode?: string };
  return failure?.authenticationFailed === true || failure?.serverResponseCode === 'AUTHENTICATIONFAILED';
}

/**
 * A connected client for the mailbox. An XOAUTH2 mailbox with an OAuth2 client signs in with a fresh
 * access token (refreshed first when due); when the server refuses it, the token is refreshed and the
 * sign-in tried once more. `refreshAt` says when the token in use is due for a refresh (null: a
 * password or a raw access token). Throws what failed: the connection, the sign-in, the refresh.
 */
export async function connectMailbox(
  row: ImapMailboxRow,
  secrets: SecretBox,
  tokens: MailboxTokens,
  onError: (error: Error) => void = () => undefined,
): Promise<{ client: ImapFlow; refreshAt: number | null }> {
  const base = {
    host: row.imap_host ?? '',
    port: row.imap_port ?? 0,
    tls: row.imap_tls,
    user: row.imap_user ?? '',
    auth: row.auth === 'xoauth2' ? ('xoauth2' as const) : ('password' as const),
  };
  const attempt = async (secret: string) => {
    const client = imapClient({ ...base, secret });
    client.on('error', onError);
    try {
      await client.connect();
      return client;
    } catch (error) {
      client.close();
      throw error;
    }
  };
  const token = base.auth === 'xoauth2' ? await tokens.accessToken(row.id) : null;
  if (!token)
    return { client: await attempt(row.secret === null ? '' : secrets.open(row.secret)), refreshAt: null };
  try {
    return { client: await attempt(token.access_token), refreshAt: token.refresh_at };
  } catch (error) {
    if (!isAuthenticationFailure(error)) throw error;
    // Revoked or expired early at the provider: one refresh, one more sign-in.
    const renewed = await tokens.accessToken(row.id, token.access_token);
    if (!renewed) throw error;
    return { client: await attempt(renewed.access_token), refreshAt: renewed.refresh_at };
  }
}

/** What a failed connection or sign-in says, as the server (or the token endpoint) said it. */
export function connectionProblem(error: unknown): string {
  const detail = (error as { responseText?: string }).responseText;
  return (detail ?? (error as Error).message ?? String(error)).slice(0, 500);
}

/** Connects (refreshing an OAuth2 token as the fetcher does), opens INBOX and reports; never throws. */
export async function testImapMailbox(row: ImapMailboxRow, secrets: SecretBox, tokens: MailboxTokens) {
  let client: ImapFlow | null = null;
  try {
    client = (await connectMailbox(row, secrets, tokens)).client;
    const mailbox = await client.mailboxOpen('INBOX', { readOnly: true });
    return { ok: true, error: '', message_count: mailbox.exists };
  } catch (error) {
    return { ok: false, error: connectionProblem(error), message_count: 0 };
  } finally {
    const open = client;
    if (open) await open.logout().catch(() => open.close());
  }
}
