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
