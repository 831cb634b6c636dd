/**
 * Where the gateway's mail goes (nodemailer), chosen once from config:
 * - `smtp`: SMTP_URL is set; messages leave for that relay (smtp:// with STARTTLS when offered,
 *   smtps:// with TLS from the start), with short timeouts so a dead relay fails fast;
 * - `folder`: no SMTP_URL outside production; each message is written as an .eml file in MAIL_DIR,
 *   so a laptop needs no mail server and nothing reaches an outside address;
 * - `none`: no SMTP_URL in production; messages are dropped and an error is logged (the gateway
 *   keeps serving: docs/decisions.md).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '@tix/kit';

export interface MailConfig {
  /** smtp:// or smtps:// URL of the relay (may carry user:password); undefined = no relay. */
  smtpUrl: string | undefined;
  /** The From header, e.g. `Tix <no-reply@example.com>`. */
  from: string;
  /** Where messages are written when there is no relay outside production; null in production. */
  dir: string | null;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export type MailTransportKind = 'smtp' | 'folder' | 'none';

export interface MailTransport {
  readonly kind: MailTransportKind;
  /**
   * Sends (smtp), writes (folder) or drops (none) the message. Resolves with the written file's
   * path for `folder`; rejects when the relay or the disk fails.
   */
  send(message: MailMessage): Promise<{ file?: string }>;
  close(): void;
}

const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

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

/** The transport `config` asks for (see the file header). */
export function createMailTransport(config: MailConfig, logger: Logger): MailTransport {
  if (config.smtpUrl !== undefined) {
    const transporter: Transporter = nodemailer.createTransport(smtpOptionsOf(config.smtpUrl));
    return {
      kind: 'smtp',
      async send(message) {
        await transporter.sendMail({ from: config.from, ...message });
        return {};
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
        const info = await renderer.sendMail({ from: config.from, ...message });
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
