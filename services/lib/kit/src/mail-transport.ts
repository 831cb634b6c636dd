/**
 * The one way a Tix process sends mail (nodemailer), chosen once from config (docs/mail.md):
 * - `smtp`: SMTP_URL is set; messages leave for that relay (smtp:// with STARTTLS when offered,
 *   smtps:// with TLS from the start), with short timeouts so a dead relay fails fast;
 * - `folder`: no SMTP_URL outside production; each message is written as one .eml file in MAIL_DIR,
 *   so a laptop needs no mail server and nothing reaches an outside address;
 * - `none`: no SMTP_URL in production; nothing can be sent (the gateway drops and logs its password
 *   reset mail; the mail service keeps its outbox queued: docs/decisions.md).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from './logger.js';

export interface MailTransportConfig {
  /** smtp:// or smtps:// URL of the relay (may carry user:password); undefined = no relay. */
  smtpUrl: string | undefined;
  /** The default From header, e.g. `Tix <no-reply@example.com>` (a message may name its own). */
  from: string;
  /** Where messages are written when there is no relay outside production; null in production. */
  dir: string | null;
}

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface MailMessage {
  to: string | string[];
  subject: string;
  text: string;
  html?: string;
  /** Overrides the transport's default From. */
  from?: string;
  cc?: string[];
  replyTo?: string;
  /** With angle brackets; nodemailer generates one when absent. */
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  /** Further headers (Auto-Submitted, X-Auto-Response-Suppress, ...). */
  headers?: Record<string, string>;
  attachments?: MailAttachment[];
}

export type MailTransportKind = 'smtp' | 'folder' | 'none';

export interface MailSent {
  /** The written file (folder). */
  file?: string;
  /** The relay's final answer (smtp), e.g. `250 2.0.0 Ok: queued as ...`. */
  response?: string;
}

export interface MailTransport {
  readonly kind: MailTransportKind;
  /**
   * Sends (smtp), writes (folder) or drops (none) the message. Resolves with the written file's
   * path for `folder` and the relay's answer for `smtp`; rejects when the relay or the disk fails.
   */
  send(message: MailMessage): Promise<MailSent>;
  close(): void;
}

const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** True for an smtp:// or smtps:// URL with a host. */
export function isSmtpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return ['smtp:', 'smtps:'].includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The nodemailer SMTP options of an smtp:// or smtps:// URL (user and password percent-decoded). */
export function smtpOptionsOf(smtpUrl: string) {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    ...(url.username === ''
      ? {}
      : { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
    ...SMTP_TIMEOUTS,
  };
}

/** nodemailer's options of one message (the transport's From unless the message names one). */
function mailOptions(defaultFrom: string, message: MailMessage) {
  return {
    from: message.from ?? defaultFrom,
    to: message.to,
    subject: message.subject,
    text: message.text,
    ...(message.html === undefined ? {} : { html: message.html }),
    ...(message.cc && message.cc.length > 0 ? { cc: message.cc } : {}),
    ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
    ...(message.messageId === undefined ? {} : { messageId: message.messageId }),
    ...(message.inReplyTo === undefined ? {} : { inReplyTo: message.inReplyTo }),
    ...(message.references && message.references.length > 0 ? { references: message.references } : {}),
    ...(message.headers === undefined ? {} : { headers: message.headers }),
    ...(message.attachments && message.attachments.length > 0
      ? { attachments: message.attachments.map((a) => ({ ...a })) }
      : {}),
  };
}

/** The transport `config` asks for (see the file header). */
export function createMailTransport(config: MailTransportConfig, logger: Logger): MailTransport {
  if (config.smtpUrl !== undefined) {
    const transporter: Transporter = nodemailer.createTransport(smtpOptionsOf(config.smtpUrl));
    return {
      kind: 'smtp',
      async send(message) {
        const info = (await transporter.sendMail(mailOptions(config.from, message))) as { response?: string };
        return info.response === undefined ? {} : { response: info.response };
      },
      close: () => transporter.close(),
    };
  }
  if (config.dir !== null) {
    const dir = config.dir;
    // Renders the raw message (headers, text and HTML parts) without sending it anywhere.
    const renderer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    return {
      kind: 'folder',
      async send(message) {
        const info = await renderer.sendMail(mailOptions(config.from, message));
        await mkdir(dir, { recursive: true, mode: 0o700 });
        const file = path.join(
          dir,
          `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`,
        );
        await writeFile(file, info.message as Buffer, { mode: 0o600 });
        return { file };
      },
      close: () => renderer.close(),
    };
  }
  return {
    kind: 'none',
    send(message) {
      logger.error(
        { subject: message.subject },
        'mail not sent: SMTP_URL is not set (production writes no mail folder)',
      );
      return Promise.resolve({});
    },
    close: () => undefined,
  };
}
