/**
 * Mailboxes on the session host, for admins, in the project context (`?project=` or `?project_id=`)
 * (docs/mail.md, "Mailboxes"): the addresses and IMAP accounts that open the project's tickets.
 *   GET    /api/mailboxes                the project's mailboxes;
 *   GET    /api/mailboxes/{id}           one of them;
 *   POST   /api/mailboxes                a new one (an SMTP address, or an IMAP account with its secret);
 *   PATCH  /api/mailboxes/{id}           pause or resume it, change its default ticket type or sign-in;
 *   POST   /api/mailboxes/{id}/test      connect now and say what happened;
 *   GET    /api/mailboxes/{id}/messages  what it received, newest first, and what became of each;
 *   GET    /api/mail-settings            the project's sender, signature, acknowledgement, reopen window;
 *   PUT    /api/mail-settings            change them (only the given fields).
 * And on both hosts, for anyone who may read comments: GET /tickets/{id}/mail, the mail Tix sent for
 * a ticket of the project (optionally one comment's), with each message's delivery state, and the
 * mail it received for it (`received`, with each message's sender checks).
 * The gateway checks shapes and bounds; the mail service holds the rules (an address is one mailbox,
 * secrets are stored sealed and never shown) and answers for a mailbox of another project as unknown.
 */
import { z } from 'zod';
import {
  inboundMessageSchema,
  mailboxSchema,
  mailSettingsSchema,
  outboundMessageSchema,
  MAILBOX_AUTH,
  MAILBOX_KINDS,
  OAUTH2_CLIENT_LIMITS,
  type OUTBOUND_KINDS,
  type OUTBOUND_STATES,
  type mail,
} from '@tix/protos';
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
import { ticketIdParams } from '../v1/tickets.schemas.js';

export const INVALID_MAILBOX_ID_MESSAGE = 'Invalid mailbox id';
/** The most messages one page of a mailbox's log shows. */
const MAX_MESSAGES = 100;

const ADMIN = { scope: null, role: 'admin' } as const;
/** The mail service's bounds for the settings (services/mail/src/outbound/settings.ts). */
const SETTINGS_MAX = { fromName: 200, fromAddress: 320, signature: 10_000, ackSubject: 500, ackBody: 10_000 };

const mailboxIdParams = z.object({
  id: idParam({ message: INVALID_MAILBOX_ID_MESSAGE, description: 'Mailbox id.', example: 2 }),
});

const OAUTH2_LABELS = {
  token_url: 'Token URL',
  client_id: 'Client ID',
  client_secret: 'Client secret',
  refresh_token: 'Refresh token',
  scope: 'Scope',
} as const;
const OAUTH2_DOCS = {
  token_url:
    "The provider's token endpoint (https): Google `https://oauth2.googleapis.com/token`, Microsoft `https://login.microsoftonline.com/<tenant>/oauth2/v2.0/token`.",
  client_id: 'The OAuth2 client (application) id.',
  client_secret: 'The client secret; stored sealed, never shown. Empty for a public client.',
  refresh_token: 'The refresh token of the consent for the IMAP user; stored sealed, never shown.',
  scope:
    'Optional: Google `https://mail.google.com/`, Microsoft `https://outlook.office.com/IMAP.AccessAsUser.All offline_access`.',
} as const;
type OAuth2Field = keyof typeof OAUTH2_LABELS;
const oauth2Field = (field: OAuth2Field) =>
  textField(OAUTH2_LABELS[field], { max: OAUTH2_CLIENT_LIMITS[field], description: OAUTH2_DOCS[field] });

/** The OAuth2 client of an XOAUTH2 mailbox (docs/mail.md, "OAuth2 (XOAUTH2)"). */
const oauth2Body = z
  .object(
    {
      token_url: oauth2Field('token_url'),
      client_id: oauth2Field('client_id'),
      client_secret: oauth2Field('client_secret').optional(),
      refresh_token: oauth2Field('refresh_token'),
      scope: oauth2Field('scope').optional(),
    },
    { error: 'oauth2 must be an object' },
  )
  .meta({ description: 'With auth `xoauth2`: the OAuth2 client Tix refreshes access tokens with.' });

/** A change of the OAuth2 client: the fields given replace the stored ones. */
const oauth2UpdateBody = z
  .object(
    {
      token_url: oauth2Field('token_url').optional(),
      client_id: oauth2Field('client_id').optional(),
      client_secret: oauth2Field('client_secret').optional(),
      refresh_token: oauth2Field('refresh_token').optional(),
      scope: oauth2Field('scope').optional(),
    },
    { error: 'oauth2 must be an object' },
  )
  .meta({
    description: 'The OAuth2 client fields to replace (e.g. a new refresh token after `invalid_grant`).',
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
      description:
        '`password` (default) or `xoauth2` (OAuth2: give `oauth2`, or an access token as `secret`).',
    }).optional(),
    secret: textField('Secret', {
      max: 8192,
      description:
        'The IMAP password, or with `xoauth2` and no `oauth2` an access token used as is (it is not refreshed); stored sealed, never shown again.',
    }).optional(),
    oauth2: oauth2Body.optional(),
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
    auth: enumField('auth', MAILBOX_AUTH, { description: 'IMAP only: a new sign-in method.' }).optional(),
    secret: textField('Secret', {
      max: 8192,
      description: 'IMAP only: a new password (or raw access token); stored sealed, never shown.',
    }).optional(),
    oauth2: oauth2UpdateBody.optional(),
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

const ticketMailQuery = z.object({
  comment_id: integerParam({
    min: 1,
    max: 2147483647,
    message: 'Invalid comment id',
    description: "Only this comment's mail.",
    example: 7,
  }).optional(),
});

const updateMailSettingsBody = z.object(
  {
    from_name: textField('From name', {
      max: SETTINGS_MAX.fromName,
      description: "Sender name; empty: the project's name.",
    }).optional(),
    from_address: textField('From address', {
      max: SETTINGS_MAX.fromAddress,
      description: 'Sender address; empty: `<project slug>@MAIL_DOMAIN`.',
    }).optional(),
    signature: textField('Signature', {
      max: SETTINGS_MAX.signature,
      description: 'Appended to replies.',
    }).optional(),
    acknowledge: z
      .boolean({ error: 'acknowledge must be true or false' })
      .optional()
      .meta({ description: 'Acknowledge each new ticket opened by mail.' }),
    ack_subject: textField('Acknowledgement subject', {
      max: SETTINGS_MAX.ackSubject,
      description: 'One line; placeholders as the body.',
    }).optional(),
    ack_body: textField('Acknowledgement body', {
      max: SETTINGS_MAX.ackBody,
      description: 'Placeholders {{ticket.number}}, {{ticket.title}}, {{requester.name}}, {{project.name}}.',
    }).optional(),
    reopen_window_days: integerField('Reopen window days', {
      min: 0,
      max: 365,
      description: 'A reply to a ticket closed within this many days reopens it.',
    }).optional(),
    accept_list_mail: z
      .boolean({ error: 'accept_list_mail must be true or false' })
      .optional()
      .meta({ description: 'Open tickets from mailing-list mail too.' }),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

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
  oauth2: null,
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

const RECEIVED_EXAMPLE = {
  id: 43,
  mailbox_id: 2,
  source: 'smtp',
  message_id: '<CAFx9@mail.example.com>',
  size: 4210,
  received_at: '2026-12-03T10:15:00.000Z',
  state: 'processed',
  outcome: {
    action: 'comment',
    ticket_id: 42,
    comment_id: 8,
    customer_id: 5,
    automatic: false,
    from: 'carol@customer.example',
    auth: {
      spf: 'pass',
      dkim: 'pass',
      dkim_domain: 'customer.example',
      dmarc: 'pass',
      dmarc_domain: 'customer.example',
    },
  },
};

const OUTBOUND_EXAMPLE = {
  id: 12,
  kind: 'reply',
  ticket_id: 42,
  comment_id: 7,
  to: ['carol@customer.example'],
  cc: [],
  subject: 'Re: [#42] Printer offline',
  message_id: '<tix.42.7@alpha.tix.example>',
  state: 'sent',
  attempts: 1,
  last_error: null,
  sent_at: '2026-12-03T09:06:00.000Z',
  bounced_at: null,
  bounce_reason: null,
  created_at: '2026-12-03T09:05:58.000Z',
};

const SETTINGS_EXAMPLE = {
  project_id: 1,
  from_name: 'Alpha Support',
  from_address: 'help@alpha.example',
  signature: '-- \nAlpha Support',
  acknowledge: true,
  ack_subject: 'We got your request [#{{ticket.number}}]',
  ack_body: 'Hello {{requester.name}}, we are on it.',
  reopen_window_days: 14,
  accept_list_mail: false,
  updated_at: '2026-12-03T09:00:00.000Z',
};

/** An OutboundMessage as the API's JSON (absent optionals null, the Message-ID in angle brackets). */
export function presentOutboundMessage(message: mail.OutboundMessage__Output) {
  const messageId = message.message_id;
  return {
    id: int64Number(message.id, 'mail'),
    kind: message.kind as (typeof OUTBOUND_KINDS)[number],
    ticket_id: message.ticket_id || null,
    comment_id: message.comment_id || null,
    to: message.to,
    cc: message.cc,
    subject: message.subject,
    message_id: messageId ? (messageId.startsWith('<') ? messageId : `<${messageId}>`) : null,
    state: message.state as (typeof OUTBOUND_STATES)[number],
    attempts: message.attempt_count,
    last_error: message.last_error || null,
    sent_at: message.sent_at || null,
    bounced_at: message.bounced_at || null,
    bounce_reason: message.bounce_reason || null,
    created_at: message.created_at,
  };
}

/** ProjectMailSettings as the API's JSON. */
export function presentMailSettings(settings: mail.ProjectMailSettings__Output) {
  return {
    project_id: settings.project_id,
    from_name: settings.from_name,
    from_address: settings.from_address,
    signature: settings.signature,
    acknowledge: settings.acknowledge,
    ack_subject: settings.ack_subject,
    ack_body: settings.ack_body,
    reopen_window_days: settings.reopen_window_days,
    accept_list_mail: settings.accept_list_mail,
    updated_at: settings.updated_at || null,
  };
}

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
    oauth2: mailbox.oauth2
      ? {
          token_url: mailbox.oauth2.token_url,
          client_id: mailbox.oauth2.client_id,
          scope: mailbox.oauth2.scope || null,
          access_token_expires_at: mailbox.oauth2.access_token_expires_at || null,
        }
      : null,
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
 * The project's mailbox `id`: the mail service answers NOT_FOUND (404 "Mailbox not found") for one of
 * another project as for an unknown one.
 */
async function projectMailbox(
  services: RequiredServices,
  projectId: number,
  id: number,
  call: OutgoingContext,
): Promise<mail.Mailbox__Output> {
  return services.mail.GetMailbox({ project_id: projectId, id }, call);
}

const mailAdministration = operationGroup({ hosts: ['app'], project: 'required', tag: 'Mail' });
const ticketMail = operationGroup({ hosts: ['api', 'app'], project: 'required', tag: 'Mail' });

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
          oauth2: body.oauth2
            ? { client_secret: '', scope: '', ...body.oauth2, token_url: body.oauth2.token_url.trim() }
            : null,
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
          ...(body.auth === undefined ? {} : { auth: body.auth }),
          ...(body.secret === undefined ? {} : { secret: body.secret }),
          oauth2: body.oauth2 ?? null,
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

  ticketMail({
    method: 'get',
    path: '/tickets/:id/mail',
    access: { scope: 'comments:read', role: 'viewer' },
    request: { params: ticketIdParams, query: ticketMailQuery },
    operationId: 'listTicketMail',
    summary: 'The mail Tix sent and received for a ticket',
    success: json(
      200,
      'The messages sent and those received, each oldest first.',
      z.object({
        messages: z.array(outboundMessageSchema),
        count: z.number().int(),
        received: z.array(inboundMessageSchema).meta({
          description:
            'The mail that opened the ticket or became one of its comments, with its sender checks (outcome.auth).',
        }),
      }),
      { messages: [OUTBOUND_EXAMPLE], count: 1, received: [RECEIVED_EXAMPLE] },
    ),
    errors: [400, 404],
    async handle({ params, query, services, project, call }) {
      // The mail service's log is fleet-wide: the ticket must be one of the project's (404 otherwise).
      await services.tickets.GetTicket({ project_id: project.id, id: params.id }, call);
      const [list, inbound] = await Promise.all([
        services.mail.ListOutboundMessages(
          query.comment_id === undefined ? { ticket_id: params.id } : { comment_id: query.comment_id },
          call,
        ),
        services.mail.ListInboundMessages({ ticket_id: params.id, mailbox_id: 0, limit: 0 }, call),
      ]);
      const messages = list.messages
        .filter((message) => message.ticket_id === params.id)
        .map(presentOutboundMessage);
      const received = inbound.messages.map(presentInboundMessage).filter((message) => {
        const outcome = message.outcome ?? {};
        if (outcome.ticket_id !== params.id) return false;
        return query.comment_id === undefined || outcome.comment_id === query.comment_id;
      });
      return { data: { messages, count: messages.length, received } };
    },
  }),

  mailAdministration({
    method: 'get',
    path: '/mail-settings',
    access: ADMIN,
    operationId: 'getMailSettings',
    summary: "The project's mail settings (admin)",
    success: single(200, 'The settings.', 'settings', mailSettingsSchema, SETTINGS_EXAMPLE),
    errors: [],
    async handle({ services, project, call }) {
      const settings = await services.mail.GetProjectMailSettings({ project_id: project.id }, call);
      return { data: { settings: presentMailSettings(settings) } };
    },
  }),

  mailAdministration({
    method: 'put',
    path: '/mail-settings',
    access: ADMIN,
    request: { body: updateMailSettingsBody },
    bodyExample: { from_name: 'Alpha Support', acknowledge: true, reopen_window_days: 14 },
    operationId: 'updateMailSettings',
    summary: "Change the project's mail settings (admin)",
    success: single(200, 'The settings.', 'settings', mailSettingsSchema, SETTINGS_EXAMPLE),
    errors: [422],
    async handle({ body, services, project, call }) {
      const settings = await services.mail.UpdateProjectMailSettings(
        { project_id: project.id, ...body },
        call,
      );
      return { data: { settings: presentMailSettings(settings) } };
    },
  }),
];
