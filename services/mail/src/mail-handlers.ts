/**
 * gRPC handlers of the MailService: mailboxes and the messages they received; the outbound side
 * (delivery log, project mail settings) from outbound/outbound-handlers.ts.
 */
import type pg from 'pg';
import { AppError, inTransaction, type AsyncHandlers, type SecretBox } from '@tix/kit';
import { hasControlCharacters, OAUTH2_CLIENT_LIMITS, type mail } from '@tix/protos';
import { testImapMailbox } from './inbound/imap-check.js';
import {
  lockMailboxTokens,
  mailboxTokens,
  openClient,
  tokenUrlProblem,
  type OAuth2Client,
} from './inbound/oauth2.js';
import { outboundHandlers } from './outbound/outbound-handlers.js';

interface MailboxRow {
  id: number;
  project_id: number;
  kind: string;
  address: string;
  imap_host: string | null;
  imap_port: number | null;
  imap_tls: boolean;
  imap_user: string | null;
  secret: string | null;
  auth: string;
  oauth_client: string | null;
  oauth_token_expires_at: Date | null;
  default_ticket_type_id: number | null;
  paused: boolean;
  status: string;
  last_error: string | null;
  created_at: Date;
}

/** The bounds of an OAuth2 client's fields, the contract's (the gateway checks the same). */
const OAUTH2_MAX = OAUTH2_CLIENT_LIMITS;
const OAUTH2_FIELDS = ['token_url', 'client_id', 'client_secret', 'refresh_token', 'scope'] as const;

/** Field errors of an OAuth2 client (under `oauth2.<field>`); empty when it is complete and sane. */
function oauth2Problems(client: OAuth2Client, errors: Record<string, string[]>) {
  for (const field of OAUTH2_FIELDS) {
    const value = client[field];
    if (value.length > OAUTH2_MAX[field])
      errors[`oauth2.${field}`] = [`must be at most ${OAUTH2_MAX[field]} characters`];
    else if (hasControlCharacters(value, false))
      errors[`oauth2.${field}`] = ['must not contain control characters'];
  }
  if (!errors['oauth2.token_url']) {
    const problem = client.token_url ? tokenUrlProblem(client.token_url) : 'required for OAuth2';
    if (problem) errors['oauth2.token_url'] = [problem];
  }
  if (!client.client_id && !errors['oauth2.client_id']) errors['oauth2.client_id'] = ['required for OAuth2'];
  if (!client.refresh_token && !errors['oauth2.refresh_token'])
    errors['oauth2.refresh_token'] = ['required for OAuth2'];
}

function emptyClient(): OAuth2Client {
  return { token_url: '', client_id: '', client_secret: '', refresh_token: '', scope: '' };
}

function presentMailbox(row: MailboxRow, secrets: SecretBox): mail.Mailbox {
  let oauth2: mail.OAuth2ClientInfo | null = null;
  if (row.auth === 'xoauth2' && row.oauth_client !== null) {
    try {
      const client = openClient(secrets, row.oauth_client);
      oauth2 = {
        token_url: client.token_url,
        client_id: client.client_id,
        scope: client.scope,
        access_token_expires_at: row.oauth_token_expires_at?.toISOString() ?? '',
      };
    } catch {
      // Sealed with another key: the fetcher reports it in last_error.
      oauth2 = { token_url: '', client_id: '', scope: '', access_token_expires_at: '' };
    }
  }
  return {
    oauth2,
    id: row.id,
    project_id: row.project_id,
    kind: row.kind,
    address: row.address,
    imap_host: row.imap_host ?? '',
    imap_port: row.imap_port ?? 0,
    imap_tls: row.imap_tls,
    imap_user: row.imap_user ?? '',
    auth: row.auth,
    default_ticket_type_id: row.default_ticket_type_id ?? 0,
    paused: row.paused,
    status: row.status,
    last_error: row.last_error ?? '',
    created_at: row.created_at.toISOString(),
  };
}

const LIST_LIMIT = 100;
/** The outcomes of a message that became a ticket or a comment on one (processing/process-message.ts). */
export const LANDED_ACTIONS = ['new_ticket', 'comment', 'reopen_and_comment'] as const;

/**
 * The messages that landed on a ticket ($1), oldest first: $2 at most, $3 the LANDED_ACTIONS. The
 * partial index of migration ticket_inbound_index covers it (the text of outcome.ticket_id).
 */
export const INBOUND_BY_TICKET_SQL = `SELECT *, count(*) OVER () AS count FROM inbound_messages
  WHERE state = 'processed' AND outcome->>'ticket_id' = $1::text AND outcome->>'action' = ANY($3::text[])
  ORDER BY id LIMIT $2`;

interface InboundRow {
  id: string;
  mailbox_id: number;
  source: string;
  uid: string | null;
  uidvalidity: string | null;
  message_id: string | null;
  object_key: string;
  size: number;
  received_at: Date;
  state: string;
  outcome: unknown;
}

function presentInbound(row: InboundRow) {
  return {
    id: row.id,
    mailbox_id: row.mailbox_id,
    source: row.source,
    uid: row.uid ?? '0',
    uidvalidity: row.uidvalidity ?? '0',
    message_id: row.message_id ?? '',
    object_key: row.object_key,
    size: row.size,
    received_at: row.received_at.toISOString(),
    state: row.state,
    outcome_json: row.outcome === null ? '' : JSON.stringify(row.outcome),
  };
}

export function mailHandlers(deps: {
  pool: pg.Pool;
  secrets: SecretBox;
}): AsyncHandlers<mail.MailServiceHandlers> {
  const { pool, secrets } = deps;
  const tokens = mailboxTokens(pool, secrets);
  async function mailbox(id: number): Promise<MailboxRow> {
    const { rows } = await pool.query<MailboxRow>('SELECT * FROM mailboxes WHERE id = $1', [id]);
    if (!rows[0]) throw AppError.notFound('Mailbox not found');
    return rows[0];
  }
  return {
    ...outboundHandlers({ pool }),
    async ListMailboxes(request) {
      const { rows } = await pool.query<MailboxRow>(
        'SELECT * FROM mailboxes WHERE ($1 = 0 OR project_id = $1) ORDER BY id',
        [request.project_id],
      );
      return { mailboxes: rows.map((row) => presentMailbox(row, secrets)) };
    },
    async GetMailbox(request) {
      const { rows } = await pool.query<MailboxRow>(
        'SELECT * FROM mailboxes WHERE id = $1 AND project_id = $2',
        [request.id, request.project_id],
      );
      if (!rows[0]) throw AppError.notFound('Mailbox not found');
      return presentMailbox(rows[0], secrets);
    },
    async CreateMailbox(request) {
      const errors: Record<string, string[]> = {};
      if (request.project_id <= 0) errors.project_id = ['must be a project id'];
      if (request.kind !== 'smtp' && request.kind !== 'imap') errors.kind = ['must be smtp or imap'];
      if (!/^[^\s@]+@[^\s@]+$/.test(request.address) || request.address.length > 320)
        errors.address = ['must be an email address'];
      const auth = request.auth || 'password';
      if (auth !== 'password' && auth !== 'xoauth2') errors.auth = ['must be password or xoauth2'];
      if (request.kind === 'imap') {
        if (!request.imap_host) errors.imap_host = ['required for an IMAP mailbox'];
        if (request.imap_port <= 0 || request.imap_port > 65535) errors.imap_port = ['must be a port'];
        if (!request.imap_user) errors.imap_user = ['required for an IMAP mailbox'];
        if (auth === 'xoauth2' && request.oauth2) {
          oauth2Problems({ ...emptyClient(), ...request.oauth2 }, errors);
          if (request.secret) errors.secret = ['give an access token or an OAuth2 client, not both'];
        } else if (!request.secret)
          errors.secret = [
            auth === 'xoauth2'
              ? 'required for XOAUTH2 without an OAuth2 client'
              : 'required for an IMAP mailbox',
          ];
      }
      if (request.oauth2 && (request.kind !== 'imap' || auth !== 'xoauth2'))
        errors.oauth2 = ['only for an IMAP mailbox with auth xoauth2'];
      if (Object.keys(errors).length > 0) throw AppError.validation(errors);
      const client = request.oauth2 ? { ...emptyClient(), ...request.oauth2 } : null;
      try {
        const { rows } = await pool.query<MailboxRow>(
          `INSERT INTO mailboxes (project_id, kind, address, imap_host, imap_port, imap_tls, imap_user, secret, auth, default_ticket_type_id, oauth_client)
           VALUES ($1, $2, lower($3), $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
          [
            request.project_id,
            request.kind,
            request.address,
            request.kind === 'imap' ? request.imap_host : null,
            request.kind === 'imap' ? request.imap_port : null,
            request.imap_tls,
            request.kind === 'imap' ? request.imap_user : null,
            request.secret ? secrets.seal(request.secret) : null,
            auth,
            request.default_ticket_type_id || null,
            client ? secrets.seal(JSON.stringify(client)) : null,
          ],
        );
        return presentMailbox(rows[0]!, secrets);
      } catch (error) {
        if ((error as { code?: string }).code === '23505')
          throw AppError.conflict('A mailbox with this address exists');
        throw error;
      }
    },
    async UpdateMailbox(request) {
      const signIn = request.auth !== undefined || request.secret !== undefined || request.oauth2 !== null;
      if (!signIn) {
        await mailbox(request.id);
        const { rows } = await pool.query<MailboxRow>(
          `UPDATE mailboxes SET paused = COALESCE($2, paused),
             default_ticket_type_id = CASE WHEN $3::int IS NULL THEN default_ticket_type_id ELSE NULLIF($3, 0) END,
             updated_at = now()
           WHERE id = $1 RETURNING *`,
          [request.id, request.paused ?? null, request.default_ticket_type_id ?? null],
        );
        return presentMailbox(rows[0]!, secrets);
      }
      // A sign-in change waits for a refresh in flight, so a rotated refresh token never overwrites it.
      return inTransaction(pool, async (db) => {
        await lockMailboxTokens(db, request.id);
        const { rows } = await db.query<MailboxRow>('SELECT * FROM mailboxes WHERE id = $1 FOR UPDATE', [
          request.id,
        ]);
        const row = rows[0];
        if (!row) throw AppError.notFound('Mailbox not found');
        const errors: Record<string, string[]> = {};
        const auth = request.auth ?? row.auth;
        if (row.kind !== 'imap') errors.auth = ['only an IMAP mailbox signs in'];
        else if (auth !== 'password' && auth !== 'xoauth2') errors.auth = ['must be password or xoauth2'];
        let secret = request.secret ?? (row.secret === null ? '' : secrets.open(row.secret));
        let client: OAuth2Client | null = null;
        if (auth === 'xoauth2' && row.kind === 'imap') {
          const stored = row.oauth_client === null ? null : openClient(secrets, row.oauth_client);
          if (request.oauth2) {
            const given = Object.fromEntries(
              OAUTH2_FIELDS.flatMap((field) =>
                request.oauth2![field] === undefined ? [] : [[field, request.oauth2![field]]],
              ),
            );
            client = { ...(stored ?? emptyClient()), ...given };
          } else if (request.secret === undefined) client = stored;
          if (client) {
            oauth2Problems(client, errors);
            // An OAuth2 client replaces a raw access token; both given is a contradiction.
            if (request.secret) errors.secret = ['give an access token or an OAuth2 client, not both'];
            secret = '';
          } else if (!secret) errors.secret = ['required for XOAUTH2 without an OAuth2 client'];
        } else if (row.kind === 'imap') {
          if (request.oauth2) errors.oauth2 = ['only with auth xoauth2'];
          if (!secret) errors.secret = ['required for an IMAP mailbox'];
        }
        if (Object.keys(errors).length > 0) throw AppError.validation(errors);
        const updated = await db.query<MailboxRow>(
          `UPDATE mailboxes SET paused = COALESCE($2, paused),
             default_ticket_type_id = CASE WHEN $3::int IS NULL THEN default_ticket_type_id ELSE NULLIF($3, 0) END,
             auth = $4, secret = $5, oauth_client = $6, oauth_token = NULL, oauth_token_expires_at = NULL,
             status = 'idle', last_error = NULL, updated_at = now()
           WHERE id = $1 RETURNING *`,
          [
            request.id,
            request.paused ?? null,
            request.default_ticket_type_id ?? null,
            auth,
            secret ? secrets.seal(secret) : null,
            client ? secrets.seal(JSON.stringify(client)) : null,
          ],
        );
        return presentMailbox(updated.rows[0]!, secrets);
      });
    },
    async TestMailbox(request) {
      const row = await mailbox(request.id);
      if (row.kind === 'smtp') return { ok: true, error: '', message_count: 0 };
      return testImapMailbox(row, secrets, tokens);
    },
    async ListInboundMessages(request) {
      const limit = Math.min(Math.max(request.limit || LIST_LIMIT, 1), LIST_LIMIT);
      const byTicket = request.ticket_id !== 0;
      if (byTicket && !(Number.isInteger(request.ticket_id) && request.ticket_id > 0))
        throw AppError.badRequest('Invalid ticket id', { ticket_id: ['must be a positive integer'] });
      if (!byTicket) await mailbox(request.mailbox_id);
      const { rows } = await pool.query<InboundRow & { count: string }>(
        byTicket
          ? INBOUND_BY_TICKET_SQL
          : `SELECT *, count(*) OVER () AS count FROM inbound_messages WHERE mailbox_id = $1 ORDER BY id DESC LIMIT $2`,
        byTicket ? [request.ticket_id, limit, LANDED_ACTIONS] : [request.mailbox_id, limit],
      );
      return {
        messages: rows.map(presentInbound),
        count: Number(rows[0]?.count ?? 0),
      };
    },
  };
}
