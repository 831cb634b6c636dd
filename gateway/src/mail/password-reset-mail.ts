/**
 * The password reset message (plain text and simple HTML): names the product, carries the link
 * `{APP_URL}/reset-password?token=…` and when it expires, and tells whoever did not ask to ignore
 * it. Sent through the gateway's mail transport; in development (folder transport) the link is
 * also logged, so a laptop needs no mail client.
 */
import type { Logger } from '@tix/kit';
import { passwordResetLink } from '@tix/protos';
import type { MailMessage, MailTransport, MailTransportKind } from './mail-transport.js';

/** What lookup's IssuePasswordReset answers when it issued a token. */
export interface IssuedPasswordReset {
  token: string;
  expiresAt: Date;
  user: { name: string; email: string };
}

export interface PasswordResetMailer {
  /** How messages leave (smtp) or do not (folder, none): the admin route returns the link unless smtp. */
  readonly transport: MailTransportKind;
  /** The link of a token. */
  linkOf(token: string): string;
  /** Mails the link to the reset's user; resolves with the link; rejects when the transport fails. */
  send(
    reset: IssuedPasswordReset,
    options: { issuedByAdmin: boolean; log: Logger; now?: Date },
  ): Promise<string>;
  /**
   * Runs `task` (issuing and mailing after the answer went out) without anyone awaiting it: its
   * failure is logged on `log`, and close() waits for it.
   */
  inBackground(task: () => Promise<void>, log: Logger): void;
  /** Waits (at most CLOSE_WAIT_MS) for background tasks, then closes the transport. */
  close(): Promise<void>;
}

/** How long stopping waits for reset mails still being sent (within the shutdown grace period). */
export const CLOSE_WAIT_MS = 5_000;

const PRODUCT = 'Tix';

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (character) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] ?? character,
  );
}

/** The message for `reset`, its link `link` (pure). */
export function passwordResetMessage(
  reset: IssuedPasswordReset,
  link: string,
  options: { issuedByAdmin: boolean; now: Date },
): MailMessage {
  const minutes = Math.max(1, Math.round((reset.expiresAt.getTime() - options.now.getTime()) / 60_000));
  const expiry = `${reset.expiresAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
  const why = options.issuedByAdmin
    ? `An administrator of ${PRODUCT} issued a link for you to set the password of your account (${reset.user.email}).`
    : `Someone, hopefully you, asked to reset the password of your ${PRODUCT} account (${reset.user.email}).`;
  const expires = `The link works once and expires in ${minutes} minutes (at ${expiry}).`;
  const ignore = `If you didn't ask for this, ignore this message: your password stays as it is.`;
  const text = [
    `Hello ${reset.user.name},`,
    '',
    why,
    'Open this link to choose a new password:',
    '',
    link,
    '',
    expires,
    ignore,
    '',
    `— ${PRODUCT}`,
    '',
  ].join('\n');
  const html = [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    `<p>Hello ${escapeHtml(reset.user.name)},</p>`,
    `<p>${escapeHtml(why)}</p>`,
    `<p><a href="${escapeHtml(link)}">Choose a new password</a></p>`,
    `<p>Or paste this address into your browser:<br>${escapeHtml(link)}</p>`,
    `<p>${escapeHtml(expires)}<br>${escapeHtml(ignore)}</p>`,
    `<p>— ${PRODUCT}</p>`,
    '</body></html>',
    '',
  ].join('\n');
  return { to: reset.user.email, subject: `Reset your ${PRODUCT} password`, text, html };
}

/** The reset mailer over `transport`; links start at `appUrl` (the session host's public origin). */
export function createPasswordResetMailer(transport: MailTransport, appUrl: string): PasswordResetMailer {
  const pending = new Set<Promise<void>>();
  const linkOf = (token: string) => passwordResetLink(appUrl, token);
  return {
    transport: transport.kind,
    linkOf,
    async send(reset, { issuedByAdmin, log, now }) {
      const link = linkOf(reset.token);
      const { file } = await transport.send(
        passwordResetMessage(reset, link, { issuedByAdmin, now: now ?? new Date() }),
      );
      // Development only: the folder transport never runs in production, where links are never logged.
      if (transport.kind === 'folder') log.info({ file, link }, 'password reset mail written');
      return link;
    },
    inBackground(task, log) {
      const running = task()
        .catch((error: unknown) => log.error({ err: error }, 'password reset: issuing or mailing failed'))
        .finally(() => pending.delete(running));
      pending.add(running);
    },
    async close() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
      await Promise.race([Promise.allSettled([...pending]), timeout]);
      clearTimeout(timer);
      transport.close();
    },
  };
}
