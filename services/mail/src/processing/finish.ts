/**
 * The one transaction that ends every attempt at a message (docs/decisions.md, "Inbound mail: the
 * processor"): the Message-IDs received (ticket_messages, direction in), the automatic mail it
 * queues (outbound_messages), a bounce recorded on the mail it names, and the row's final state and
 * outcome. It applies only while the row is still held by this attempt (state processing, the same
 * attempt number): a processor whose lease ran out and whose message was reclaimed writes nothing.
 */
import type pg from 'pg';
import { inTransaction } from '@tix/kit';
import { queueAutomaticMail } from '../automatic/automatic-mail.js';
import { recordBounce } from '../outbound/bounces.js';
import type { ClaimedMessage, Final } from './process-message.js';

export interface FinishOptions {
  autoReplyLimit?: { max: number; windowMs: number };
}

/** Writes the attempt's result; false when the row was no longer this attempt's (nothing written). */
export function finishMessage(
  pool: pg.Pool,
  row: Pick<ClaimedMessage, 'id' | 'attempts'>,
  final: Final,
  options: FinishOptions = {},
): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const held = await client.query(
      "SELECT 1 FROM inbound_messages WHERE id = $1 AND state = 'processing' AND attempts = $2 FOR UPDATE",
      [row.id, row.attempts],
    );
    if (!held.rowCount) return false;
    const outcome = { ...final.outcome };
    for (const entry of final.ticketMessages) {
      await client.query(
        `INSERT INTO ticket_messages (message_id, ticket_id, project_id, direction, comment_id, inbound_message_id)
         SELECT $1, $2, m.project_id, 'in', $3, $4 FROM mailboxes m
           JOIN inbound_messages i ON i.mailbox_id = m.id WHERE i.id = $4
         ON CONFLICT (message_id) DO NOTHING`,
        [entry.messageId, entry.ticketId, entry.commentId, row.id],
      );
    }
    if (final.automaticMail) {
      const queued = await queueAutomaticMail(client, final.automaticMail, options.autoReplyLimit);
      const state = queued.queued ? 'queued' : queued.reason === 'limit' ? 'limit' : 'queued';
      if (final.automaticMail.kind === 'acknowledgement') outcome.acknowledgement = state;
      else outcome.refusal = state;
    }
    if (final.bounce) {
      const bounce = await recordBounce(client, final.bounce);
      if (bounce) outcome.bounced = { message_id: bounce.messageId, reason: bounce.reason };
    }
    await client.query(
      'UPDATE inbound_messages SET state = $2, outcome = $3, progress = NULL WHERE id = $1',
      [row.id, final.state, JSON.stringify(outcome)],
    );
    return true;
  });
}
