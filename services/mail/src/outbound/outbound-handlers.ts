/** gRPC handlers of the outbound side: the delivery log of a comment or ticket, and project mail settings. */
import type pg from 'pg';
import { AppError, type AsyncHandlers } from '@tix/kit';
import type { mail } from '@tix/protos';
import type { OutboundRow } from './sender.js';
import { readSettings, updateSettings, type ProjectMailSettings } from './settings.js';

type OutboundHandlers = Pick<
  AsyncHandlers<mail.MailServiceHandlers>,
  'ListOutboundMessages' | 'GetProjectMailSettings' | 'UpdateProjectMailSettings'
>;

/** A row of the log: the sender's row without the body, with what happened to it. */
interface OutboundListRow extends Omit<OutboundRow, 'text' | 'html' | 'in_reply_to' | 'references'> {
  attempts: unknown;
  last_error: string | null;
  sent_at: Date | null;
  bounced_at: Date | null;
  bounce_reason: string | null;
  created_at: Date;
  next_attempt_at: Date;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function presentAttempts(value: unknown): mail.OutboundAttempt[] {
  if (!Array.isArray(value)) return [];
  return value.map((entry: Record<string, unknown>) => ({
    at: text(entry.at),
    ok: entry.ok === true,
    error: text(entry.error),
    response: text(entry.response),
    bounce: text(entry.bounce),
  }));
}

function presentOutbound(row: OutboundListRow): mail.OutboundMessage {
  return {
    id: row.id,
    kind: row.kind,
    project_id: row.project_id,
    ticket_id: row.ticket_id ?? 0,
    comment_id: row.comment_id ?? 0,
    message_id: row.message_id,
    from: row.from_address,
    to: row.to_addresses,
    cc: row.cc_addresses,
    subject: row.subject,
    state: row.state,
    attempt_count: row.attempt_count,
    attempts: presentAttempts(row.attempts),
    last_error: row.last_error ?? '',
    sent_at: row.sent_at?.toISOString() ?? '',
    bounced_at: row.bounced_at?.toISOString() ?? '',
    bounce_reason: row.bounce_reason ?? '',
    automatic: row.automatic,
    created_at: row.created_at.toISOString(),
    next_attempt_at: row.next_attempt_at.toISOString(),
  };
}

function presentSettings(settings: ProjectMailSettings): mail.ProjectMailSettings {
  return {
    project_id: settings.projectId,
    from_name: settings.fromName,
    from_address: settings.fromAddress,
    signature: settings.signature,
    acknowledge: settings.acknowledge,
    ack_subject: settings.ackSubject,
    ack_body: settings.ackBody,
    reopen_window_days: settings.reopenWindowDays,
    accept_list_mail: settings.acceptListMail,
    updated_at: settings.updatedAt?.toISOString() ?? '',
  };
}

/** A proto3 optional field that was set. */
const given = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

const validId = (value: number) => Number.isInteger(value) && value > 0;

const LIST_LIMIT = 200;

export function outboundHandlers(deps: { pool: pg.Pool }): OutboundHandlers {
  const { pool } = deps;
  return {
    async ListOutboundMessages(request) {
      const byComment = request.comment_id !== 0;
      const id = byComment ? request.comment_id : request.ticket_id;
      if (!validId(id))
        throw AppError.badRequest('comment_id or ticket_id is required', {
          [byComment ? 'comment_id' : 'ticket_id']: ['must be a positive integer'],
        });
      const { rows } = await pool.query<OutboundListRow>(
        `SELECT id, kind, project_id, ticket_id, comment_id, message_id, from_address, to_addresses, cc_addresses,
                subject, state, attempt_count, attempts, last_error, sent_at, bounced_at, bounce_reason, automatic,
                created_at, next_attempt_at
           FROM outbound_messages WHERE ${byComment ? 'comment_id' : 'ticket_id'} = $1 ORDER BY id LIMIT $2`,
        [id, LIST_LIMIT],
      );
      return { messages: rows.map(presentOutbound) };
    },
    async GetProjectMailSettings(request) {
      if (!validId(request.project_id)) throw AppError.badRequest('Invalid project id');
      return presentSettings(await readSettings(pool, request.project_id));
    },
    async UpdateProjectMailSettings(request) {
      return presentSettings(
        await updateSettings(pool, request.project_id, {
          ...(!given(request.from_name) ? {} : { fromName: request.from_name }),
          ...(!given(request.from_address) ? {} : { fromAddress: request.from_address.trim() }),
          ...(!given(request.signature) ? {} : { signature: request.signature }),
          ...(!given(request.acknowledge) ? {} : { acknowledge: request.acknowledge }),
          ...(!given(request.ack_subject) ? {} : { ackSubject: request.ack_subject }),
          ...(!given(request.ack_body) ? {} : { ackBody: request.ack_body }),
          ...(!given(request.reopen_window_days) ? {} : { reopenWindowDays: request.reopen_window_days }),
          ...(!given(request.accept_list_mail) ? {} : { acceptListMail: request.accept_list_mail }),
        }),
      );
    },
  };
}
