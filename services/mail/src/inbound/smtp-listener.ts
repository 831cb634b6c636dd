/**
 * The SMTP listener (smtp-server) for mail an MX or relay forwards. RCPT TO is accepted for
 * `<project slug>@<MAIL_DOMAIN>` and `<slug>+<anything>@<MAIL_DOMAIN>` when the lookup service knows
 * the slug (550 otherwise); a message over MAIL_MAX_BYTES is refused with 552; 250 is answered only
 * once the raw message is in the object store and its row committed (451 when either is down, so
 * the sender retries). The project's SMTP mailbox is created on first use.
 */
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import { AppError, inTransaction, type Logger, type ServiceClient } from '@tix/kit';
import { storeInbound } from './intake.js';
import type { RawStore } from './raw-store.js';

export interface SmtpListenerOptions {
  host: string;
  port: number;
  domain: string;
  maxBytes: number;
  pool: pg.Pool;
  store: RawStore;
  lookup: ServiceClient<'lookup'>;
  logger: Logger;
}

export interface SmtpListener {
  readonly port: number;
  stop(graceMs: number): Promise<void>;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** The slug an address names, or null when it is not one of ours. */
export function recipientSlug(address: string, domain: string): string | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  if (address.slice(at + 1).toLowerCase() !== domain) return null;
  const local = address.slice(0, at).toLowerCase();
  const slug = local.split('+')[0]!;
  return /^[a-z0-9][a-z0-9-]{0,62}$/.test(slug) ? slug : null;
}

async function mailboxFor(
  pool: pg.Pool,
  projectId: number,
  address: string,
): Promise<{ id: number; paused: boolean }> {
  const { rows } = await pool.query<{ id: number; paused: boolean }>(
    `INSERT INTO mailboxes (project_id, kind, address) VALUES ($1, 'smtp', $2)
     ON CONFLICT (address) DO UPDATE SET address = EXCLUDED.address
     RETURNING id, paused`,
    [projectId, address],
  );
  return rows[0]!;
}

/**
 * The SMTP mailbox an admin added for this address (a relay or MX forwards its mail here), the
 * plus-part ignored (`help+anything@example.com` is `help@example.com`); null when there is none.
 */
export async function configuredMailbox(
  pool: pg.Pool,
  address: string,
): Promise<{ id: number; paused: boolean } | null> {
  const lower = address.toLowerCase();
  const at = lower.lastIndexOf('@');
  const base = at > 0 ? `${lower.slice(0, at).split('+')[0]}${lower.slice(at)}` : lower;
  const { rows } = await pool.query<{ id: number; paused: boolean }>(
    `SELECT id, paused FROM mailboxes WHERE kind = 'smtp' AND address IN ($1, $2) ORDER BY address = $1 DESC LIMIT 1`,
    [lower, base],
  );
  return rows[0] ?? null;
}

/** What SPF checks (the client IP, HELO and MAIL FROM this session gave), kept with the row. */
export function envelopeOf(
  session: Pick<SMTPServerSession, 'remoteAddress' | 'hostNameAppearsAs' | 'envelope'>,
): { clientIp: string; helo: string | null; mailFrom: string | null } | null {
  const ip = (session.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  if (ip === '') return null;
  const mailFrom = session.envelope?.mailFrom ? session.envelope.mailFrom.address : '';
  const helo = (session.hostNameAppearsAs ?? '').slice(0, 255);
  return {
    clientIp: ip,
    helo: helo === '' ? null : helo,
    mailFrom: mailFrom === '' ? null : mailFrom.slice(0, 512),
  };
}

export async function startSmtpListener(options: SmtpListenerOptions): Promise<SmtpListener> {
  const { domain, maxBytes, pool, store, lookup, logger } = options;
  // Recipients of the session's current transaction: mailbox ids.
  const recipients = new WeakMap<SMTPServerSession, Set<number>>();

  async function onRcptTo(address: SMTPServerAddress, session: SMTPServerSession) {
    let mailbox: { id: number; paused: boolean } | null;
    try {
      mailbox = await configuredMailbox(pool, address.address);
    } catch (error) {
      logger.warn({ err: error }, 'mail: database unavailable for RCPT');
      throw smtpError(451, '4.3.0 temporarily unable to accept mail, try again later');
    }
    mailbox ??= await projectMailbox(address.address);
    // Paused: a temporary refusal, so the sender's server keeps the message and retries later.
    if (mailbox.paused) throw smtpError(450, `4.2.1 <${address.address}>: mailbox paused, try again later`);
    const set = recipients.get(session) ?? new Set<number>();
    set.add(mailbox.id);
    recipients.set(session, set);
  }

  /** `<slug>@MAIL_DOMAIN` (or `<slug>+anything@`): the project's own mailbox, made on first use. */
  async function projectMailbox(address: string): Promise<{ id: number; paused: boolean }> {
    const slug = recipientSlug(address, domain);
    if (slug === null) throw smtpError(550, `5.1.1 <${address}>: no such mailbox here`);
    let projectId: number;
    try {
      const project = await lookup.ResolveProject({ slug }, {});
      projectId = project.id;
    } catch (error) {
      if (error instanceof AppError && error.kind === 'not_found')
        throw smtpError(550, `5.1.1 <${address}>: no such mailbox here`);
      logger.warn({ err: error }, 'mail: lookup unavailable for RCPT');
      throw smtpError(451, '4.3.0 temporarily unable to check the recipient, try again later');
    }
    try {
      return await mailboxFor(pool, projectId, `${slug}@${domain}`);
    } catch (error) {
      logger.warn({ err: error }, 'mail: database unavailable for RCPT');
      throw smtpError(451, '4.3.0 temporarily unable to accept mail, try again later');
    }
  }

  async function onData(stream: Readable & { sizeExceeded?: boolean }, session: SMTPServerSession) {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size <= maxBytes) chunks.push(chunk as Buffer);
    }
    const mailboxes = recipients.get(session) ?? new Set<number>();
    recipients.delete(session);
    if (stream.sizeExceeded || size > maxBytes)
      throw smtpError(552, `5.3.4 message exceeds the size limit of ${maxBytes} bytes`);
    if (mailboxes.size === 0) throw smtpError(503, '5.5.1 no valid recipients');
    const raw = Buffer.concat(chunks);
    const envelope = envelopeOf(session);
    try {
      for (const mailboxId of mailboxes) {
        await inTransaction(pool, (client) =>
          storeInbound(client, store, { mailboxId, source: 'smtp', raw, ...(envelope ? { envelope } : {}) }),
        );
      }
    } catch (error) {
      logger.warn({ err: error }, 'mail: message not stored, sender told to retry');
      throw smtpError(451, '4.3.0 temporarily unable to store the message, try again later');
    }
  }

  const server = new SMTPServer({
    name: domain,
    banner: 'Tix mail intake',
    size: maxBytes,
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onMailFrom(_address, session, callback) {
      recipients.delete(session);
      callback();
    },
    onRcptTo(address, session, callback) {
      onRcptTo(address, session).then(
        () => callback(),
        (error: Error) => callback(error),
      );
    },
    onData(stream, session, callback) {
      onData(stream, session).then(
        () => callback(),
        (error: Error) => {
          stream.resume();
          callback(error);
        },
      );
    },
  });
  server.on('error', (error) => logger.warn({ err: error }, 'mail: SMTP session error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.server.address() as { port: number }).port;
  logger.info({ host: options.host, port: bound, domain }, 'mail: SMTP listener ready');
  return {
    port: bound,
    stop: (graceMs) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
