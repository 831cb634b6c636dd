/**
 * The inbound processor (docs/decisions.md, "Inbound mail: the processor"): a worker that claims
 * `received` rows of inbound_messages (FOR UPDATE SKIP LOCKED, so replicas share the work), wakes at
 * once on LISTEN tix_mail_inbound (the insert trigger) and polls as well, processes each message
 * (process-message.ts) and ends each attempt with one transaction (finish.ts).
 *
 * - A row stays `processing` while its attempt runs; one older than the lease is reclaimed (its
 *   processor crashed or hung) and, since every peer write is idempotent, redone without duplicates.
 * - A failed attempt puts the row back to `received`; it is retried after a delay growing with the
 *   attempts, and after MAX attempts (or at once, for a refusal no retry can cure) it is `failed`
 *   with the error in its outcome.
 */
import pg from 'pg';
import { finishMessage, type FinishOptions } from './finish.js';
import {
  isPermanent,
  processMessage,
  type ClaimedMessage,
  type Final,
  type ProcessDeps,
  type Progress,
} from './process-message.js';

export const INBOUND_CHANNEL = 'tix_mail_inbound';

export interface ProcessorOptions extends FinishOptions {
  /** For the LISTEN connection. */
  connectionString: string;
  pollIntervalMs?: number;
  /** A `processing` row older than this is reclaimed. */
  leaseMs?: number;
  /** Attempts before a message is `failed`. */
  maxAttempts?: number;
  /** The first retry's delay; doubled per attempt. */
  retryDelayMs?: number;
  /** Messages processed at once. */
  concurrency?: number;
  /** Called when an attempt queued an automatic mail (wakes the sender). */
  onQueued?: () => void;
}

export interface InboundProcessor {
  /** Looks for work now. */
  wake(): void;
  stop(graceMs?: number): Promise<void>;
}

interface ClaimRow {
  id: string;
  attempts: number;
  object_key: string;
  project_id: number;
  address: string;
  default_ticket_type_id: number | null;
  progress: Progress | null;
  smtp_client_ip: string | null;
  smtp_helo: string | null;
  smtp_mail_from: string | null;
}

const CLAIM = `
  UPDATE inbound_messages i
     SET state = 'processing', attempts = i.attempts + 1, claimed_at = now()
    FROM mailboxes m
   WHERE m.id = i.mailbox_id AND i.id IN (
     SELECT id FROM inbound_messages
      WHERE (state = 'received'
             AND (claimed_at IS NULL
                  OR claimed_at < now() - make_interval(secs => $2::double precision * power(2, greatest(attempts - 1, 0)) / 1000)))
         OR (state = 'processing' AND claimed_at < now() - make_interval(secs => $3::double precision / 1000))
      ORDER BY id
      LIMIT $1
      FOR UPDATE SKIP LOCKED)
  RETURNING i.id, i.attempts, i.object_key, m.project_id, m.address, m.default_ticket_type_id, i.progress,
            i.smtp_client_ip, i.smtp_helo, i.smtp_mail_from`;

function errorText(error: unknown): string {
  return String((error as Error)?.message ?? error).slice(0, 1000);
}

export function startInboundProcessor(deps: ProcessDeps, options: ProcessorOptions): InboundProcessor {
  const { pool, logger } = deps;
  const pollIntervalMs = options.pollIntervalMs ?? 2_000;
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const maxAttempts = options.maxAttempts ?? 8;
  const retryDelayMs = options.retryDelayMs ?? 5_000;
  const concurrency = options.concurrency ?? 4;
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let notified = false;
  let listener: pg.Client | null = null;
  const inFlight = new Set<Promise<void>>();

  const wake = () => {
    notified = true;
    wakeUp?.();
  };

  async function ensureListener(): Promise<void> {
    if (listener || stopped) return;
    const client = new pg.Client({ connectionString: options.connectionString });
    client.on('error', (error) => {
      logger.warn({ err: error }, 'inbound processor: LISTEN connection lost; polling until it is back');
      if (listener === client) listener = null;
    });
    client.on('notification', wake);
    await client.connect();
    await client.query(`LISTEN ${INBOUND_CHANNEL}`);
    listener = client;
  }

  async function fail(row: ClaimedMessage, error: unknown): Promise<void> {
    const final = isPermanent(error) || row.attempts >= maxAttempts;
    if (final) {
      const outcome = {
        action: 'fail',
        reason: errorText(error),
        automatic: false,
        from: null,
        auth: { spf: 'none', dkim: 'none', dmarc: 'none' },
      };
      const done: Final = { state: 'failed', outcome, ticketMessages: [], automaticMail: null, bounce: null };
      await finishMessage(pool, row, done, options);
      logger.error({ err: error, inbound_id: row.id, attempts: row.attempts }, 'inbound message failed');
      return;
    }
    await pool.query(
      "UPDATE inbound_messages SET state = 'received', outcome = $3 WHERE id = $1 AND state = 'processing' AND attempts = $2",
      [row.id, row.attempts, JSON.stringify({ action: 'retry', reason: errorText(error) })],
    );
    logger.warn(
      { err: error, inbound_id: row.id, attempts: row.attempts },
      'inbound message: attempt failed, will retry',
    );
  }

  async function handle(row: ClaimedMessage): Promise<void> {
    try {
      const final = await processMessage(deps, row);
      const written = await finishMessage(pool, row, final, options);
      if (written && final.automaticMail) options.onQueued?.();
      if (written)
        logger.info(
          {
            inbound_id: row.id,
            state: final.state,
            action: final.outcome.action,
            ticket_id: final.outcome.ticket_id,
          },
          'inbound message processed',
        );
    } catch (error) {
      await fail(row, error).catch((failure: unknown) =>
        logger.error({ err: failure, inbound_id: row.id }, 'inbound message: recording the failure failed'),
      );
    }
  }

  async function claim(limit: number): Promise<ClaimedMessage[]> {
    const { rows } = await pool.query<ClaimRow>(CLAIM, [limit, retryDelayMs, leaseMs]);
    return rows.map((row) => ({
      id: String(row.id),
      attempts: row.attempts,
      objectKey: row.object_key,
      projectId: row.project_id,
      mailboxAddress: row.address.toLowerCase(),
      defaultTicketTypeId: row.default_ticket_type_id,
      progress: row.progress,
      envelope:
        row.smtp_client_ip === null
          ? null
          : { clientIp: row.smtp_client_ip, helo: row.smtp_helo, mailFrom: row.smtp_mail_from },
    }));
  }

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (notified || stopped) return resolve();
      const timer = setTimeout(() => {
        wakeUp = null;
        resolve();
      }, ms);
      wakeUp = () => {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      };
    });

  const loop = (async () => {
    while (!stopped) {
      try {
        await ensureListener().catch((error: unknown) =>
          logger.debug({ err: error }, 'inbound processor: LISTEN unavailable'),
        );
        notified = false;
        const free = concurrency - inFlight.size;
        const rows = free > 0 ? await claim(free) : [];
        for (const row of rows) {
          const task = handle(row).finally(() => {
            inFlight.delete(task);
            wake();
          });
          inFlight.add(task);
        }
        if (rows.length === free && free > 0) continue;
        await sleep(pollIntervalMs);
      } catch (error) {
        logger.warn({ err: error }, 'inbound processor: claiming failed; trying again');
        await sleep(pollIntervalMs);
      }
    }
  })();

  return {
    wake,
    async stop(graceMs = 10_000) {
      stopped = true;
      wakeUp?.();
      await loop;
      // Messages still running after the grace are left `processing`: the lease reclaims them.
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((resolve) => setTimeout(resolve, graceMs).unref()),
      ]);
      await listener?.end().catch(() => undefined);
      listener = null;
    },
  };
}
