/**
 * Mailboxes on the session host, for admins, in the project context (`?project=` or `?project_id=`)
 * (docs/mail.md, "Mailboxes"): the addresses and IMAP accounts that open the project's tickets.
 *   GET    /api/mailboxes                the project's mailboxes;
 *   GET    /api/mailboxes/{id}           one of them;
 *   POST   /api/mailboxes                a new one (an SMTP address, or an IMAP account with its secret);
 *   PATCH  /api/mailboxes/{id}           pause or resume it, change its default ticket type;
 *   POST   /api/mailboxes/{id}/test      connect now and say what happened;
 *   GET    /api/mailboxes/{id}/messages  what it received, newest first, and what became of each.
 * The gateway checks shapes and bounds; the mail service holds the rules (an address is one mailbox,
 * secrets are stored sealed and never shown) and answers for a mailbox of another project as unknown.
 */
import { z } from 'zod';
import { AppError } from '@tix/kit';
import { inboundMessageSchema, mailboxSchema, MAILBOX_AUTH, MAILBOX_KINDS, type mail } from '@tix/protos';
import {
  enumField,
  idField,
  idParam,
  integerField,
  integerParam,
  textField,
} from '../../http/schema-fields.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';
import { counted, countedData, json, single } from '../../resources/responses.js';
import { int64Number, type RequiredServices } from '../../services.js';
import type { OutgoingContext } from '@tix/kit';
import { operationGroup, type Operation } from '../operation.js';

export const INVALID_MAILBOX_ID_MESSAGE = 'Invalid mailbox id';
export const MAILBOX_NOT_FOUND_MESSAGE = 'Mailbox not found';
/** The most messages one page of a mailbox's log shows. */
const MAX_MESSAGES = 100;

const ADMIN = { scope: null, role: 'admin' } as const;

const mailboxIdParams = z.object({
  id: idParam({ message: INVALID_MAILBOX_ID_MESSAGE, description: 'Mailbox id.', example: 2 }),
});

const createMailboxBody = z.object(
  {
    kind: enumField('kind', MAILBOX_KINDS, { description: 'smtp or imap.', example: 'imap' }),
    address: textField('Address', { max: 320, description: 'The address customers write to.' }),
    imap_host: textField('IMAP host', { max: 255, description: 'IMAP only.' }).optional(),
    imap_port: integerField('IMAP port', { min: 1, max: 65535, description: 'IMAP only.' }).optional(),
    imap_tls: z
      .boolean({ error: 'imap_tls must be true or false' })
      .optional()
      .meta({ description: 'IMAP over TLS (default true).' }),
    imap_user: textField('IMAP user', { max: 320, description: 'IMAP only.' }).optional(),
    auth: enumField('auth', MAILBOX_AUTH, {
      description: '`password` (default) or `xoauth2` (an OAuth2 access token as the secret).',
    }).optional(),
    secret: textField('Secret', {
      max: 8192,
      description: 'The IMAP password or OAuth2 access token; stored sealed, never shown again.',
    }).optional(),
    default_ticket_type_id: idField('Default ticket type ID', {
      description: 'The type of the tickets it opens; absent: the project default.',
    }).optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const updateMailboxBody = z.object(
  {
    paused: z.boolean({ error: 'paused must be true or false' }).optional().meta({
      description: 'true stops fetching and refuses its SMTP mail with a temporary error; false resumes.',
    }),
    default_ticket_type_id: idField('Default ticket type ID', {
      description: 'The type of the tickets it opens.',
    }).optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const messagesQuery = z.object({
  limit: integerParam({
    min: 1,
    max: MAX_MESSAGES,
    message: `limit must be an integer from 1 to ${MAX_MESSAGES}`,
    description: `How many of the newest messages, 1 to ${MAX_MESSAGES}.`,
    example: 50,
  }).default(50),
});

const mailboxTestSchema = z.object({
  ok: z.boolean(),
  error: z.string().nullable().meta({ description: 'Why it failed, as the server said.' }),
  message_count: z.number().int().nullable().meta({ description: 'Messages in the IMAP inbox.' }),
});

const MAILBOX_EXAMPLE = {
  id: 2,
  project_id: 1,
  kind: 'imap',
  address: 'support@example.com',
  imap_host: 'imap.example.com',
  imap_port: 993,
  imap_tls: true,
  imap_user: 'support@example.com',
  auth: 'password',
  default_ticket_type_id: null,
  paused: false,
  status: 'connected',
  last_error: null,
  created_at: '2026-12-03T09:00:00.000Z',
};

const MESSAGE_EXAMPLE = {
  id: 41,
  mailbox_id: 2,
  source: 'imap',
  message_id: '<CAFx7@mail.example.com>',
  size: 5120,
  received_at: '2026-12-03T09:05:00.000Z',
  state: 'processed',
  outcome: { action: 'new_ticket', ticket_id: 17 },
};

/** A Mailbox message as the API's JSON (absent optionals null). */
export function presentMailbox(mailbox: mail.Mailbox__Output) {
  const imap = mailbox.kind === 'imap';
  return {
    id: mailbox.id,
    project_id: mailbox.project_id,
    kind: mailbox.kind as (typeof MAILBOX_KINDS)[number],
    address: mailbox.address,
    imap_host: imap ? mailbox.imap_host : null,
    imap_port: imap ? mailbox.imap_port : null,
    imap_tls: mailbox.imap_tls,
    imap_user: imap ? mailbox.imap_user : null,
    auth: mailbox.auth as (typeof MAILBOX_AUTH)[number],
    default_ticket_type_id: mailbox.default_ticket_type_id || null,
    paused: mailbox.paused,
    status: mailbox.status,
    last_error: mailbox.last_error || null,
    created_at: mailbox.created_at,
  };
}

/** An InboundMessage as the API's JSON (its outcome parsed). */
export function presentInboundMessage(message: mail.InboundMessage__Output) {
  return {
    id: int64Number(message.id, 'mail'),
    mailbox_id: message.mailbox_id,
    source: message.source as (typeof MAILBOX_KINDS)[number],
    // The mail service keeps the bare id (its dedupe key); the API shows it as the header has it.
    message_id: message.message_id ? `<${message.message_id}>` : null,
    size: int64Number(message.size, 'mail'),
    received_at: message.received_at,
    state: message.state as z.output<typeof inboundMessageSchema>['state'],
    outcome: message.outcome_json ? (JSON.parse(message.outcome_json) as Record<string, unknown>) : null,
  };
}

/**
 * The project's mailbox `id`: the mail service's mailboxes are fleet-wide, so one of another project
 * answers 404 as an unknown one does.
 */
async function projectMailbox(
  services: RequiredServices,
  projectId: number,
  id: number,
  call: OutgoingContext,
): Promise<mail.Mailbox__Output> {
  const { mailboxes } = await services.mail.ListMailboxes({ project_id: projectId }, call);
  const found = mailboxes.find((mailbox) => mailbox.id === id);
  if (!found) throw AppError.notFound(MAILBOX_NOT_FOUND_MESSAGE);
  return found;
}

const mailAdministration = operationGroup({ hosts: ['app'], project: 'required', tag: 'Mail' });

export const MAIL_OPERATIONS: Operation[] = [
  mailAdministration({
    method: 'get',
    path: '/mailboxes',
    access: ADMIN,
    operationId: 'listMailboxes',
    summary: "The project's mailboxes (admin)",
    success: counted('The mailboxes, oldest first.', 'mailboxes', mailboxSchema, MAILBOX_EXAMPLE),
    errors: [],
    async handle({ services, project, call }) {
      const { mailboxes } = await services.mail.ListMailboxes({ project_id: project.id }, call);
      return { data: countedData('mailboxes', mailboxes.map(presentMailbox)) };
    },
  }),

  mailAdministration({
    method: 'get',
    path: '/mailboxes/:id',
    access: ADMIN,
    request: { params: mailboxIdParams },
    operationId: 'getMailbox',
    summary: 'One mailbox of the project (admin)',
    success: single(200, 'The mailbox.', 'mailbox', mailboxSchema, MAILBOX_EXAMPLE),
    errors: [404],
    async handle({ params, services, project, call }) {
      return {
        data: { mailbox: presentMailbox(await projectMailbox(services, project.id, params.id, call)) },
      };
    },
  }),

  mailAdministration({
    method: 'post',
    path: '/mailboxes',
    access: ADMIN,
    request: { body: createMailboxBody },
    bodyExample: {
      kind: 'imap',
      address: 'support@example.com',
      imap_host: 'imap.example.com',
      imap_port: 993,
      imap_user: 'support@example.com',
      secret: 'app-password',
    },
    operationId: 'createMailbox',
    summary: 'Add a mailbox to the project (admin)',
    success: single(201, 'The mailbox.', 'mailbox', mailboxSchema, MAILBOX_EXAMPLE),
    errors: [409, 422],
    async handle({ body, services, project, call }) {
      const mailbox = await services.mail.CreateMailbox(
        {
          project_id: project.id,
          kind: body.kind,
          address: body.address.trim(),
          imap_host: body.imap_host ?? '',
          imap_port: body.imap_port ?? 0,
          imap_tls: body.imap_tls ?? true,
          imap_user: body.imap_user ?? '',
          auth: body.auth ?? 'password',
          secret: body.secret ?? '',
          default_ticket_type_id: body.default_ticket_type_id ?? 0,
        },
        call,
      );
      return {
        data: { mailbox: presentMailbox(mailbox) },
        status: 201,
        location: `/mailboxes/${mailbox.id}`,
      };
    },
  }),

  mailAdministration({
    method: 'patch',
    path: '/mailboxes/:id',
    access: ADMIN,
    request: { params: mailboxIdParams, body: updateMailboxBody },
    bodyExample: { paused: true },
    operationId: 'updateMailbox',
    summary: 'Pause, resume or retype a mailbox of the project (admin)',
    success: single(200, 'The mailbox.', 'mailbox', mailboxSchema, { ...MAILBOX_EXAMPLE, paused: true }),
    errors: [404, 422],
    async handle({ params, body, services, project, call }) {
      await projectMailbox(services, project.id, params.id, call);
      const mailbox = await services.mail.UpdateMailbox(
        {
          id: params.id,
          ...(body.paused === undefined ? {} : { paused: body.paused }),
          ...(body.default_ticket_type_id === undefined
            ? {}
            : { default_ticket_type_id: body.default_ticket_type_id }),
        },
        call,
      );
      return { data: { mailbox: presentMailbox(mailbox) } };
    },
  }),

  mailAdministration({
    method: 'post',
    path: '/mailboxes/:id/test',
    access: ADMIN,
    request: { params: mailboxIdParams },
    operationId: 'testMailbox',
    summary: 'Connect to a mailbox now and report (admin)',
    success: single(200, 'What the connection did.', 'result', mailboxTestSchema, {
      ok: false,
      error: 'Authentication failed',
      message_count: null,
    }),
    errors: [404],
    async handle({ params, services, project, call }) {
      await projectMailbox(services, project.id, params.id, call);
      const result = await services.mail.TestMailbox({ id: params.id }, call);
      return {
        data: {
          result: {
            ok: result.ok,
            error: result.error || null,
            message_count: result.ok ? result.message_count : null,
          },
        },
      };
    },
  }),

  mailAdministration({
    method: 'get',
    path: '/mailboxes/:id/messages',
    access: ADMIN,
    request: { params: mailboxIdParams, query: messagesQuery },
    operationId: 'listMailboxMessages',
    summary: 'What a mailbox of the project received (admin)',
    success: json(
      200,
      'The newest messages first, and how many the mailbox holds.',
      z.object({ messages: z.array(inboundMessageSchema), count: z.number().int() }),
      { messages: [MESSAGE_EXAMPLE], count: 1 },
    ),
    errors: [404],
    async handle({ params, query, services, project, call }) {
      await projectMailbox(services, project.id, params.id, call);
      const list = await services.mail.ListInboundMessages(
        { mailbox_id: params.id, limit: query.limit },
        call,
      );
      return { data: { messages: list.messages.map(presentInboundMessage), count: list.count } };
    },
  }),
];
