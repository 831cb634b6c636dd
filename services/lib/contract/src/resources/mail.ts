/**
 * The mail resources as the session host sends them (docs/mail.md): a mailbox (an SMTP address or an
 * IMAP account feeding one project) and the messages it received, each with what became of it.
 * Declared once here; the gateway's mail routes write them and the console reads them.
 */
import { z } from 'zod';
import { idField as id, timestampField as timestamp } from './fields.js';

export const MAILBOX_KINDS = ['smtp', 'imap'] as const;
export const MAILBOX_AUTH = ['password', 'xoauth2'] as const;
/** What became of a received message (the mail service's inbound_messages.state). */
export const INBOUND_STATES = [
  'received',
  'processing',
  'processed',
  'ignored',
  'refused',
  'failed',
] as const;

/** The bounds of an OAuth2 client's fields (the mail service checks the same). */
export const OAUTH2_CLIENT_LIMITS = {
  token_url: 2048,
  client_id: 512,
  client_secret: 4096,
  refresh_token: 8192,
  scope: 1024,
} as const;

export const mailboxOAuth2Schema = z
  .object({
    token_url: z
      .string()
      .meta({ description: 'Where Tix refreshes the access token (the refresh_token grant).' }),
    client_id: z.string(),
    scope: z
      .string()
      .nullable()
      .meta({ description: 'The scope asked for; null: what the refresh token was granted.' }),
    access_token_expires_at: z.string().nullable().meta({
      description: 'When the current access token expires; null before the first refresh.',
      format: 'date-time',
    }),
  })
  .meta({ description: "An XOAUTH2 mailbox's OAuth2 client; its secret and the tokens are never shown." });

export const mailboxSchema = z
  .object({
    id: id('Mailbox id.'),
    project_id: id('The project its mail opens tickets in.'),
    kind: z.enum(MAILBOX_KINDS).meta({
      description: '`smtp`: mail a relay forwards to the listener; `imap`: an account Tix fetches from.',
    }),
    address: z
      .string()
      .meta({ description: 'The address customers write to (lower-case).', format: 'email' }),
    imap_host: z.string().nullable().meta({ description: 'IMAP only.' }),
    imap_port: z.number().int().nullable().meta({ description: 'IMAP only.' }),
    imap_tls: z.boolean(),
    imap_user: z.string().nullable().meta({ description: 'IMAP only.' }),
    auth: z.enum(MAILBOX_AUTH).meta({ description: 'How Tix signs in to IMAP; the secret is never shown.' }),
    oauth2: mailboxOAuth2Schema.nullable().meta({
      description: 'XOAUTH2 with an OAuth2 client: what is not secret of it; null otherwise.',
    }),
    default_ticket_type_id: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Type of the tickets it opens.' }),
    paused: z.boolean().meta({ description: 'A paused mailbox fetches and accepts nothing.' }),
    status: z.string().meta({
      description:
        '`idle` (an SMTP mailbox, or IMAP not connected yet), `connected` or `error` (see last_error).',
    }),
    last_error: z.string().nullable(),
    created_at: timestamp('Creation time'),
  })
  .meta({ description: 'A mailbox feeding a project.' });

export const inboundMessageSchema = z
  .object({
    id: id('Message id (Tix).'),
    mailbox_id: id('Mailbox id.'),
    source: z.enum(MAILBOX_KINDS),
    message_id: z.string().nullable().meta({ description: 'The Message-ID header, with angle brackets.' }),
    size: z.number().int().meta({ description: 'Bytes.' }),
    received_at: timestamp('When Tix had it durably'),
    state: z.enum(INBOUND_STATES),
    outcome: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'What processing decided: action, ticket_id, comment_id, reason, auth results.' }),
  })
  .meta({ description: 'A message a mailbox received.' });

export type MailboxJson = z.output<typeof mailboxSchema>;
export type InboundMessageJson = z.output<typeof inboundMessageSchema>;

/** What became of a message Tix sent (the mail service's outbound_messages.state). */
export const OUTBOUND_STATES = ['queued', 'sending', 'sent', 'failed', 'bounced', 'suppressed'] as const;
export const OUTBOUND_KINDS = ['reply', 'acknowledgement', 'refusal'] as const;

export const outboundMessageSchema = z
  .object({
    id: id('Message id (Tix).'),
    kind: z.enum(OUTBOUND_KINDS).meta({
      description: '`reply` (a public comment), `acknowledgement` (a new ticket) or `refusal`.',
    }),
    ticket_id: z.number().int().nullable().meta({ description: 'The ticket it is about.' }),
    comment_id: z.number().int().nullable().meta({ description: 'The comment it carries (replies).' }),
    to: z.array(z.string()).meta({ description: 'Recipients.' }),
    cc: z.array(z.string()).meta({ description: 'Copied recipients.' }),
    subject: z.string(),
    message_id: z.string().nullable().meta({ description: 'The Message-ID header, with angle brackets.' }),
    state: z.enum(OUTBOUND_STATES),
    attempts: z.number().int().meta({ description: 'Delivery attempts so far.' }),
    last_error: z.string().nullable().meta({ description: 'Why the last attempt failed.' }),
    sent_at: z.string().nullable().meta({ description: 'When the relay took it.', format: 'date-time' }),
    bounced_at: z.string().nullable().meta({ description: 'When a bounce came back.', format: 'date-time' }),
    bounce_reason: z.string().nullable().meta({ description: 'What the bounce said.' }),
    created_at: timestamp('When it was queued'),
  })
  .meta({ description: 'A message Tix sent (or is sending) for a ticket.' });

export const mailSettingsSchema = z
  .object({
    project_id: id('The project.'),
    from_name: z.string().meta({ description: "Sender name; empty: the project's name." }),
    from_address: z.string().meta({ description: 'Sender address; empty: `<project slug>@MAIL_DOMAIN`.' }),
    signature: z.string().meta({ description: 'Appended to every reply.' }),
    acknowledge: z.boolean().meta({ description: 'Acknowledge each new ticket opened by mail.' }),
    ack_subject: z.string().meta({
      description: 'Placeholders {{ticket.number}}, {{ticket.title}}, {{requester.name}}, {{project.name}}.',
    }),
    ack_body: z.string(),
    reopen_window_days: z.number().int().meta({
      description: 'A reply to a closed ticket within this many days reopens it; later: a new ticket.',
    }),
    accept_list_mail: z.boolean().meta({ description: 'Open tickets from mailing-list mail too.' }),
    updated_at: z.string().nullable().meta({ description: 'Last change.', format: 'date-time' }),
  })
  .meta({ description: "The project's mail settings." });

export type OutboundMessageJson = z.output<typeof outboundMessageSchema>;
export type MailSettingsJson = z.output<typeof mailSettingsSchema>;
