/**
 * The sender: sends every queued outbound_messages row (docs/mail.md, "Outbound"; decisions.md,
 * "Outbound mail").
 *
 * - A pass claims due rows (`queued`, next_attempt_at <= now) with FOR UPDATE SKIP LOCKED, so
 *   replicas never claim the same row, and commits them as `sending` (attempt_count + 1,
 *   next_attempt_at = now + lease) BEFORE it talks to the relay. After the relay's answer the row is
 *   `sent` (sent_at), or back to `queued` with the kit's backoff, or `failed` after maxAttempts or on
 *   a permanent (5xx) refusal; every attempt is appended to attempts (the delivery log).
 * - A row still `sending` when its lease ran out was being sent by a process that died mid-send: it
 *   is queued again (logged as interrupted) and sent with the same Message-ID. The mail may then
 *   arrive twice, exactly as SMTP's own at-least-once allows, never more than once per crash.
 * - The relay down loses nothing: rows wait in `queued` and go once it answers again.
 * - Automatic mail (acknowledgements, refusals) carries `Auto-Submitted: auto-replied` and
 *   `X-Auto-Response-Suppress: All`, and is `suppressed` when a recipient reached the per-sender
 *   limit (auto-reply-limit.ts).
 */
import type pg from 'pg';
import {
  backoffDelay,
  inTransaction,
  type BackgroundWorker,
  type BackoffPolicy,
  type Logger,
  type MailMessage,
  type MailTransport,
} from '@tix/kit';
import { plusAddress } from '@tix/threading';
import { fetchAttachments, linkedAttachmentIds, type AttachmentReader } from './attachments.js';
import { autoReplyAllowed, lockAddresses, recordAutoReply, AUTO_REPLY_LIMIT } from './auto-reply-limit.js';
import type { SystemCaller } from './system-caller.js';

/** 1 min doubling to 1 h: eight attempts span about four hours of a relay's outage. */
export const SEND_BACKOFF: BackoffPolicy = { initialMs: 60_000, maxMs: 3_600_000 };

export interface OutboundRow {
  id: string;
  kind: string;
  project_id: number;
  ticket_id: number | null;
  comment_id: number | null;
  message_id: string;
  from_address: string;
  to_addresses: string[];
  cc_addresses: string[];
  subject: string;
  text: string;
  html: string | null;
  in_reply_to: string | null;
  references: string[];
  automatic: boolean;
  state: string;
  attempt_count: number;
}

export interface SenderOptions {
  pool: pg.Pool;
  transport: MailTransport;
  attachments: AttachmentReader;
  caller: SystemCaller;
  logger: Logger;
  /** MAIL_DOMAIN and the token secret: the Reply-To plus-address of mail from <slug>@MAIL_DOMAIN. */
  domain: string;
  tokenSecret: string;
  maxAttempts: number;
  /** Delay before retry `attempt` (1 after the first failure); default the kit's backoff over SEND_BACKOFF. */
  retryDelay?: (attempt: number) => number;
  /** How long a claimed row may stay `sending` before it counts as interrupted (default 10 min). */
  leaseMs?: number;
  /** Fallback poll for due rows (default 1 s); wake() starts a pass at once. */
  pollIntervalMs?: number;
  batchSize?: number;
  autoReplyLimit?: { max: number; windowMs: number };
}

export interface Sender extends BackgroundWorker {
  /** A pass now (a row was queued). */
  wake(): void;
  /** One pass: requeues interrupted rows, sends the due ones; resolves with how many it attempted. */
  runOnce(): Promise<number>;
}

const INTERRUPTED = 'interrupted: the sender stopped while sending; sent again with the same Message-ID';

/** The address part of `"Name" <address>` or of a bare address. */
export function addressOf(from: string): string {
  return (/<([^<>]+)>\s*$/.exec(from)?.[1] ?? from).trim().toLowerCase();
}

/** The relay refused for good (5xx): retrying cannot help. */
function permanent(error: unknown): boolean {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

const errorText = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').slice(0, 1000);

export function startSender(options: SenderOptions): Sender {
  const { pool, transport, logger } = options;
  const leaseMs = options.leaseMs ?? 10 * 60_000;
  const batchSize = options.batchSize ?? 10;
  const retryDelay = options.retryDelay ?? ((attempt: number) => backoffDelay(attempt - 1, SEND_BACKOFF));
  const limit = options.autoReplyLimit ?? AUTO_REPLY_LIMIT;
  let stopped = false;
  let running: Promise<number> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  /** Rows whose lease ran out while `sending` go back to `queued` (or `failed` when out of attempts). */
  async function requeueInterrupted(): Promise<void> {
    const { rows } = await pool.query<{ id: string; state: string }>(
      `UPDATE outbound_messages
          SET state = CASE WHEN attempt_count >= $1 THEN 'failed' ELSE 'queued' END,
              next_attempt_at = now(), last_error = $2,
              attempts = attempts || jsonb_build_array(jsonb_build_object('at', now(), 'ok', false, 'error', $2::text))
        WHERE state = 'sending' AND next_attempt_at <= now()
        RETURNING id, state`,
      [options.maxAttempts, INTERRUPTED],
    );
    for (const row of rows)
      logger.warn({ outbound_id: row.id, state: row.state }, 'outbound mail interrupted mid-send');
  }

  /** Claims due rows as `sending`; automatic ones over the per-sender limit become `suppressed`. */
  async function claim(): Promise<OutboundRow[]> {
    return inTransaction(pool, async (client) => {
      const { rows } = await client.query<OutboundRow>(
        `SELECT * FROM outbound_messages WHERE state = 'queued' AND next_attempt_at <= now()
          ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [batchSize],
      );
      const claimed: OutboundRow[] = [];
      for (const row of rows) {
        // The limit admits an automatic mail once, on its first claim; its retries are the same mail.
        if (row.automatic && row.attempt_count === 0) {
          const recipients = [...row.to_addresses, ...row.cc_addresses];
          await lockAddresses(client, recipients);
          if (!(await autoReplyAllowed(client, recipients, limit))) {
            const reason = `suppressed: a recipient already got ${limit.max} automatic mail(s) within ${Math.round(limit.windowMs / 60_000)} min`;
            await client.query(
              `UPDATE outbound_messages SET state = 'suppressed', last_error = $2,
                  attempts = attempts || jsonb_build_array(jsonb_build_object('at', now(), 'ok', false, 'error', $2::text))
                WHERE id = $1`,
              [row.id, reason],
            );
            logger.info({ outbound_id: row.id }, 'automatic mail suppressed by the per-sender limit');
            continue;
          }
          // Recorded with the claim, under the lock: a second automatic mail claimed meanwhile sees it.
          await recordAutoReply(client, recipients);
        }
        await client.query(
          `UPDATE outbound_messages SET state = 'sending', attempt_count = attempt_count + 1,
              next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
            WHERE id = $1`,
          [row.id, leaseMs],
        );
        claimed.push({ ...row, attempt_count: row.attempt_count + 1 });
      }
      return claimed;
    });
  }

  async function message(row: OutboundRow): Promise<MailMessage> {
    const headers: Record<string, string> = {};
    if (row.automatic) {
      headers['Auto-Submitted'] = 'auto-replied';
      headers['X-Auto-Response-Suppress'] = 'All';
    }
    const from = addressOf(row.from_address);
    const [local, domain] = from.split('@');
    const replyTo =
      row.ticket_id !== null && local !== undefined && domain === options.domain && !local.includes('+')
        ? plusAddress(local, domain, row.ticket_id, options.tokenSecret)
        : undefined;
    const ids = row.ticket_id === null ? [] : linkedAttachmentIds(row.text, row.html);
    const files =
      ids.length === 0 || row.ticket_id === null
        ? []
        : (
            await fetchAttachments(
              options.attachments,
              options.caller,
              { projectId: row.project_id, ticketId: row.ticket_id },
              ids,
            )
          ).files;
    return {
      from: row.from_address,
      to: row.to_addresses,
      cc: row.cc_addresses,
      subject: row.subject,
      text: row.text,
      ...(row.html === null ? {} : { html: row.html }),
      ...(replyTo === undefined ? {} : { replyTo }),
      messageId: row.message_id,
      ...(row.in_reply_to === null ? {} : { inReplyTo: row.in_reply_to }),
      references: row.references,
      headers,
      attachments: files,
    };
  }

  async function attempt(row: OutboundRow): Promise<void> {
    try {
      const sent = await transport.send(await message(row));
      const response = sent.response ?? sent.file ?? '';
      await pool.query(
        `UPDATE outbound_messages SET state = 'sent', sent_at = now(), last_error = NULL,
            attempts = attempts || jsonb_build_array(jsonb_build_object('at', now(), 'ok', true, 'response', $2::text))
          WHERE id = $1 AND state = 'sending'`,
        [row.id, response],
      );
      logger.info({ outbound_id: row.id, message_id: row.message_id, kind: row.kind }, 'outbound mail sent');
    } catch (error) {
      const text = errorText(error);
      const final = permanent(error) || row.attempt_count >= options.maxAttempts;
      await pool.query(
        `UPDATE outbound_messages SET state = $2, last_error = $3,
            next_attempt_at = now() + make_interval(secs => $4::double precision / 1000),
            attempts = attempts || jsonb_build_array(jsonb_build_object('at', now(), 'ok', false, 'error', $3::text))
          WHERE id = $1 AND state = 'sending'`,
        [row.id, final ? 'failed' : 'queued', text, final ? 0 : retryDelay(row.attempt_count)],
      );
      logger.warn(
        { outbound_id: row.id, attempt: row.attempt_count, err: error, final },
        final ? 'outbound mail failed for good' : 'outbound mail not sent; retrying later',
      );
    }
  }

  async function pass(): Promise<number> {
    await requeueInterrupted();
    let attempted = 0;
    for (;;) {
      if (stopped) return attempted;
      const rows = await claim();
      for (const row of rows) await attempt(row);
      attempted += rows.length;
      if (rows.length < batchSize) return attempted;
    }
  }

  function runOnce(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = pass().finally(() => {
      running = undefined;
      if (again && !stopped) {
        again = false;
        void runOnce().catch(() => undefined);
      }
    });
    return running;
  }

  const tick = () => {
    if (stopped) return;
    runOnce()
      .catch((error: unknown) => logger.warn({ err: error }, 'outbound sender pass failed; retrying'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, options.pollIntervalMs ?? 1_000).unref();
      });
  };

  if (transport.kind === 'none') {
    logger.error('SMTP_URL is not set in production: outgoing mail stays queued until a relay is configured');
  } else {
    timer = setTimeout(tick, 0).unref();
  }

  return {
    wake() {
      if (stopped || transport.kind === 'none') return;
      runOnce().catch((error: unknown) =>
        logger.warn({ err: error }, 'outbound sender pass failed; retrying'),
      );
    },
    runOnce,
    async stop(graceMs: number) {
      stopped = true;
      clearTimeout(timer);
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        running?.catch(() => undefined),
        new Promise((resolve) => (grace = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(grace);
      transport.close();
    },
  };
}
