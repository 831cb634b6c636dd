/**
 * Intake: a raw message becomes durable. The bytes go to the object store first, then the
 * inbound_messages row is committed; only then does the caller acknowledge (SMTP 250, IMAP
 * last_uid). A message already held for the mailbox (same Message-ID, or same UIDVALIDITY+UID) is
 * not stored twice: the unique indexes decide, so concurrent or repeated deliveries are one row.
 */
import type pg from 'pg';
import { extractMessageId } from './message-id.js';
import type { RawStore } from './raw-store.js';

export interface IntakeInput {
  mailboxId: number;
  source: 'smtp' | 'imap';
  raw: Buffer;
  uid?: number;
  uidvalidity?: number;
  /** SMTP only: what the listener saw, for SPF (docs/mail.md, "Sender authentication"). */
  envelope?: { clientIp: string; helo: string | null; mailFrom: string | null };
}

export interface IntakeResult {
  /** The row's id (the existing one on a duplicate). */
  id: string;
  duplicate: boolean;
}

/**
 * Stores the message and inserts its row with `client` (inside the caller's transaction, so an
 * IMAP fetch advances last_uid with it). Throws when the store or the database fails.
 */
export async function storeInbound(
  client: pg.ClientBase,
  store: RawStore,
  input: IntakeInput,
): Promise<IntakeResult> {
  const messageId = extractMessageId(input.raw);
  const existing = await findExisting(client, input, messageId);
  if (existing) return { id: existing, duplicate: true };
  const key = await store.put(input.mailboxId, input.raw);
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO inbound_messages (mailbox_id, source, uid, uidvalidity, message_id, object_key, size,
                                   smtp_client_ip, smtp_helo, smtp_mail_from)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT DO NOTHING
     RETURNING id`,
    [
      input.mailboxId,
      input.source,
      input.uid ?? null,
      input.uidvalidity ?? null,
      messageId,
      key,
      input.raw.length,
      input.envelope?.clientIp ?? null,
      input.envelope?.helo ?? null,
      input.envelope?.mailFrom ?? null,
    ],
  );
  if (inserted.rows[0]) return { id: inserted.rows[0].id, duplicate: false };
  const raced = await findExisting(client, input, messageId);
  if (!raced) throw new Error('inbound message conflicted but no row holds it');
  return { id: raced, duplicate: true };
}

async function findExisting(
  client: pg.ClientBase,
  input: IntakeInput,
  messageId: string | null,
): Promise<string | null> {
  const found = await client.query<{ id: string }>(
    `SELECT id FROM inbound_messages
     WHERE mailbox_id = $1
       AND (($2::text IS NOT NULL AND message_id = $2)
         OR ($3::bigint IS NOT NULL AND uidvalidity = $4 AND uid = $3))
     LIMIT 1`,
    [input.mailboxId, messageId, input.uid ?? null, input.uidvalidity ?? null],
  );
  return found.rows[0]?.id ?? null;
}
