/**
 * Bounces (docs/mail.md, "Loop protection"): a delivery status notification naming one of the
 * Message-IDs Tix sent marks that outbound row `bounced` with the reason the DSN gives, and appends
 * the bounce to its delivery log. The inbound processor calls recordBounce for machineKind `bounce`.
 */
import type pg from 'pg';
import type { ParsedInbound } from '@tix/threading';

export interface RecordedBounce {
  outboundId: string;
  messageId: string;
  ticketId: number | null;
  commentId: number | null;
  reason: string;
}

type Queryable = Pick<pg.PoolClient, 'query'>;

const RETURNED_TYPES = ['text/rfc822-headers', 'message/rfc822', 'message/global-headers'];
const STATUS_TYPES = ['message/delivery-status', 'message/global-delivery-status'];

/** Message-IDs the DSN names: the returned headers first, then In-Reply-To and References. */
export function bouncedMessageIds(parsed: ParsedInbound): string[] {
  const returned = parsed.attachments
    .filter((a) => RETURNED_TYPES.includes(a.contentType))
    .map(
      (a) => /^message-id:\s*(<[^<>\s]+>)/im.exec(a.content.subarray(0, 64 * 1024).toString('latin1'))?.[1],
    )
    .filter((id): id is string => id !== undefined);
  return [
    ...new Set([
      ...returned,
      ...(parsed.inReplyTo ? [parsed.inReplyTo] : []),
      ...[...parsed.references].reverse(),
    ]),
  ];
}

/**
 * The DSN's reason: recipient, status and diagnostic code of the failed recipient (from the
 * message/delivery-status part, or from the text, where mailparser puts that part), else the first
 * line of its text.
 */
export function bounceReason(parsed: ParsedInbound): string {
  const status = parsed.attachments.find((a) => STATUS_TYPES.includes(a.contentType));
  const text = status
    ? status.content.subarray(0, 64 * 1024).toString('utf8')
    : parsed.text.slice(0, 64 * 1024);
  const field = (name: string) =>
    new RegExp(`^${name}:[ \\t]*(.+(?:\\r?\\n[ \\t].+)*)`, 'im').exec(text)?.[1]?.replace(/\s+/g, ' ').trim();
  const recipient = field('Final-Recipient')?.replace(/^rfc822;\s*/i, '');
  const code = field('Status');
  const parts = [
    recipient,
    code && `status ${code}`,
    field('Diagnostic-Code')?.replace(/^smtp;\s*/i, ''),
  ].filter((part): part is string => Boolean(part));
  if (parts.length > 0) return parts.join(': ').slice(0, 1000);
  const firstLine = parsed.text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line !== '');
  return (firstLine ?? (parsed.subject || 'bounced')).slice(0, 1000);
}

/**
 * Marks the outbound mail the DSN names as bounced and appends the bounce to its attempts. Answers
 * the row, or null when the DSN names no mail Tix sent. Processing the same DSN again changes
 * nothing (the entry names the DSN's Message-ID).
 */
export async function recordBounce(client: Queryable, parsed: ParsedInbound): Promise<RecordedBounce | null> {
  const ids = bouncedMessageIds(parsed);
  if (ids.length === 0) return null;
  const reason = bounceReason(parsed);
  const dsn = parsed.messageId ?? '';
  const { rows } = await client.query<{
    id: string;
    message_id: string;
    ticket_id: number | null;
    comment_id: number | null;
  }>(
    `WITH target AS (
       SELECT id, array_position($1::text[], message_id) AS rank FROM outbound_messages
        WHERE message_id = ANY($1::text[]) ORDER BY rank LIMIT 1 FOR UPDATE
     )
     UPDATE outbound_messages o SET
        state = 'bounced',
        bounced_at = COALESCE(o.bounced_at, now()),
        bounce_reason = $2,
        attempts = CASE WHEN $3 <> '' AND o.attempts @> jsonb_build_array(jsonb_build_object('dsn', $3::text))
                        THEN o.attempts
                        ELSE o.attempts || jsonb_build_array(jsonb_build_object('at', now(), 'ok', false, 'bounce', $2::text, 'dsn', $3::text)) END
       FROM target WHERE o.id = target.id
     RETURNING o.id, o.message_id, o.ticket_id, o.comment_id`,
    [ids, reason, dsn],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    outboundId: row.id,
    messageId: row.message_id,
    ticketId: row.ticket_id,
    commentId: row.comment_id,
    reason,
  };
}
