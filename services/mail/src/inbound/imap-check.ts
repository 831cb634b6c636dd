/** Connecting to an IMAP account (imapflow), for TestMailbox and the fetcher. */
import { ImapFlow } from 'imapflow';

export interface ImapAccount {
  host: string;
  port: number;
  tls: boolean;
  user: string;
  auth: 'password' | 'xoauth2';
  /** The password, or the OAuth2 access token (XOAUTH2). */
  secret: string;
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

/** Connects, opens INBOX and reports; never throws. */
export async function testImapMailbox(account: ImapAccount) {
  const client = imapClient(account);
  client.on('error', () => undefined);
  try {
    await client.connect();
    const mailbox = await client.mailboxOpen('INBOX', { readOnly: true });
    return { ok: true, error: '', message_count: mailbox.exists };
  } catch (error) {
    const detail = (error as { responseText?: string }).responseText;
    return { ok: false, error: detail ?? (error as Error).message, message_count: 0 };
  } finally {
    await client.logout().catch(() => client.close());
  }
}
