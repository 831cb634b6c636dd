/**
 * The response side of the OpenAPI document: zod schemas of the resources as the presenters send
 * them (spec "Resources and their fields", plus the additive fields the gateway sends), the two
 * envelopes, and the headers every response carries. They document; they never validate traffic.
 * Objects are open (no additionalProperties: false): the spec lets new optional fields appear in v1.
 */
import { z } from './zod-openapi.js';
import {
  attachmentSchema as attachmentResource,
  commentSchema as commentResource,
  CUSTOM_FIELD_TYPES,
  guardrailsSchema as guardrailsResource,
  idField as id,
  SUBSCRIBABLE_EVENT_TYPES,
  ticketSchema as ticketResource,
  timestampField as timestamp,
  WEBHOOK_PING_EVENT,
} from '@tix/protos';
import { EXAMPLES } from './examples.js';

/** Spec Pagination object. */
export const paginationSchema = z
  .object({
    total: z.number().int().meta({ description: 'Items matching, over all pages.' }),
    page: z.number().int().meta({ description: 'This page, from 1.' }),
    per_page: z.number().int().meta({ description: 'Items per page.' }),
    total_pages: z.number().int().meta({ description: 'Number of pages.' }),
  })
  .openapi('Pagination', {
    description: 'Where a page sits in the whole list.',
    examples: [EXAMPLES.pagination],
  });

export const projectStatusSchema = z
  .object({
    slug: z.string().meta({ description: 'Status slug, used in tickets and as a board lane key.' }),
    label: z.string().meta({ description: 'Display label.' }),
    is_closed: z.boolean().meta({ description: 'True for terminal (closed) statuses.' }),
    position: z.number().int().meta({ description: 'Workflow order, from 0.' }),
  })
  .openapi('ProjectStatus', { description: 'A status of the project (additive).' });

export const projectSchema = z
  .object({
    id: id('Project id.'),
    name: z.string(),
    slug: z.string().meta({ description: 'Human-readable identifier, usable as `?project=<slug>`.' }),
    prefix: z.string().meta({ description: 'Ticket number prefix (additive).' }),
    description: z.string(),
    statuses: z.array(projectStatusSchema).meta({ description: 'The workflow, in order (additive).' }),
  })
  .openapi('Project', { description: 'A project (spec Project).', examples: [EXAMPLES.project] });

export const fieldSchemaEntrySchema = z
  .object({
    name: z.string().meta({ description: 'Key used in `custom_fields`.' }),
    label: z.string(),
    type: z.enum(CUSTOM_FIELD_TYPES),
    required: z.boolean(),
    constraints: z.record(z.string(), z.unknown()).meta({
      description:
        'By type: text min_length, max_length, pattern; textarea min_length, max_length; number min_value, ' +
        'max_value; select and multi_select allowed_values (required); other types none.',
    }),
    default_value: z.unknown().meta({ description: 'Used when no value is given; null for none.' }),
    order: z.number().int().meta({ description: 'Lower values display first.' }),
  })
  .openapi('FieldSchemaEntry', { description: 'One custom field of a ticket type.' });

export const ticketTypeSchema = z
  .object({
    id: id('Ticket type id.'),
    name: z.string(),
    slug: z.string(),
    description: z.string(),
    is_default: z.boolean(),
    field_schema: z.array(fieldSchemaEntrySchema),
    retired_at: z.string().nullable().meta({
      description:
        'When the type was retired (ISO 8601; additive): it keeps its tickets but takes no new ones. Null while it is in use.',
      format: 'date-time',
    }),
  })
  .openapi('TicketType', {
    description: 'A ticket type (spec Ticket type).',
    examples: [EXAMPLES.ticketType],
  });

export const userSchema = z
  .object({
    id: id('User id.'),
    name: z.string(),
    email: z.string(),
    role: z.string().meta({ description: 'admin, team_lead, agent or viewer.' }),
    is_active: z.boolean(),
    is_system: z.boolean().meta({
      description:
        "True only for the assistant's own user (Tix AI, additive): the actor of the assistant's changes. It never signs in, holds no API keys and cannot be edited.",
    }),
  })
  .openapi('User', { description: 'A user (spec User).', examples: [EXAMPLES.user] });

export const apiKeySchema = z
  .object({
    id: id('API key id.'),
    name: z.string(),
    prefix: z.string().meta({ description: 'The first characters of the key, to recognise it.' }),
    scopes: z.array(z.string()),
    project_id: id('The one project the key reaches; null: every project.').nullable(),
    user_id: id('The user the key acts as.'),
    created_at: z.string(),
    last_used_at: z.string().nullable().meta({ description: 'Recorded at most once a minute.' }),
    revoked_at: z.string().nullable(),
  })
  .openapi('ApiKey', {
    description: 'An API key as admins see it: never its value.',
    examples: [EXAMPLES.apiKey],
  });

/** Spec Ticket, declared in the contract; named here, with the presenters' examples. */
export const ticketSchema = ticketResource.meta({
  id: 'Ticket',
  examples: [EXAMPLES.ticket, EXAMPLES.mergedTicket],
});

/** Spec Comment, declared in the contract; named here, with its example. */
export const commentSchema = commentResource.meta({ id: 'Comment', examples: [EXAMPLES.comment] });

/** Spec Attachment, declared in the contract; named here, with its example. */
export const attachmentSchema = attachmentResource.meta({
  id: 'Attachment',
  examples: [EXAMPLES.attachment],
});

/** A project's guardrails, declared in the contract; named here, with the example GET shows. */
export const guardrailsSchema = guardrailsResource.meta({
  id: 'Guardrails',
  examples: [EXAMPLES.guardrails],
});

const webhookShape = {
  id: id('Webhook id.'),
  url: z.string().meta({ description: 'Delivery target.', format: 'uri' }),
  events: z
    .array(z.string())
    .meta({ description: `Subscribed event types (${SUBSCRIBABLE_EVENT_TYPES.join(', ')}).` }),
  is_active: z.boolean(),
  created_at: timestamp('Creation time'),
  project_id: id('Project id (additive).'),
};

export const webhookSchema = z.object(webhookShape).openapi('Webhook', {
  description: 'A webhook subscription; never shows the secret.',
  examples: [EXAMPLES.webhook],
});

export const createdWebhookSchema = z
  .object({
    ...webhookShape,
    secret: z.string().meta({ description: 'Signing secret; shown only in this response.' }),
  })
  .openapi('CreatedWebhook', {
    description: 'A webhook subscription as created: with its signing secret.',
    examples: [EXAMPLES.createdWebhook],
  });

export const deliveryAttemptSchema = z
  .object({
    number: z.number().int().meta({ description: 'Attempt number, from 1.' }),
    response_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The receiver's HTTP status; null on timeout or connection failure." }),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    attempted_at: timestamp('Attempt time'),
    response_body: z.string().nullable().meta({
      description:
        "The start of the receiver's answer: its first 4096 bytes (UTF-8, cut at a character). Null when no answer arrived.",
    }),
    response_body_truncated: z.boolean().meta({ description: 'The answer was longer than `response_body`.' }),
  })
  .openapi('DeliveryAttempt', { description: 'One attempt of a delivery.' });

export const deliverySchema = z
  .object({
    id: z.string().meta({ description: 'Delivery id (UUID).', format: 'uuid' }),
    webhook_id: id('Webhook id.'),
    event: z.string().meta({ description: 'Event type.' }),
    event_id: z.string().meta({ description: 'Domain event id (UUID).', format: 'uuid' }),
    status: z.string().meta({ description: 'pending, delivered or failed.' }),
    attempts: z.array(deliveryAttemptSchema).meta({ description: 'Oldest first.' }),
    created_at: timestamp('Creation time'),
    updated_at: timestamp('Last change'),
    request_body: z.string().meta({
      description: 'The start of the body sent (every attempt sends the same bytes): its first 4096 bytes.',
    }),
    request_body_truncated: z
      .boolean()
      .meta({ description: 'The body sent was longer than `request_body`.' }),
  })
  .openapi('Delivery', {
    description: 'One delivery of one event to one webhook (additive delivery log).',
    examples: [EXAMPLES.delivery],
  });

const previousSecretExpiresAt = z
  .string()
  .nullable()
  .meta({
    description:
      'After a secret rotation: until when the previous secret still signs `webhook-signature` beside the new one ' +
      '(ISO 8601); null when no previous secret signs.',
    format: 'date-time',
  });

export const webhookDetailSchema = z
  .object({ ...webhookShape, previous_secret_expires_at: previousSecretExpiresAt })
  .openapi('WebhookDetail', {
    description: 'A webhook subscription as its own endpoints answer it (additive): never the secret.',
    examples: [EXAMPLES.webhookDetail],
  });

export const rotatedWebhookSchema = z
  .object({
    ...webhookShape,
    previous_secret_expires_at: previousSecretExpiresAt,
    secret: z.string().meta({ description: 'The new signing secret; shown only in this response.' }),
  })
  .openapi('RotatedWebhook', {
    description: 'A webhook subscription after a secret rotation, with its new secret.',
    examples: [EXAMPLES.rotatedWebhook],
  });

export const pingResultSchema = z
  .object({
    event_id: z.string().meta({ description: 'The `webhook-id` the ping carried (UUID).', format: 'uuid' }),
    ok: z.boolean().meta({ description: 'The receiver answered 2xx.' }),
    response_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The receiver's HTTP status; null on timeout, refusal or connection failure." }),
    duration_ms: z.number().int(),
    error: z
      .string()
      .nullable()
      .meta({ description: 'What failed (e.g. `HTTP 500`, `timeout after 10000 ms`).' }),
    request_body: z.string().meta({ description: 'The body sent: the `ping` payload.' }),
    response_body: z.string().nullable().meta({
      description: "The start of the receiver's answer (first 4096 bytes); null when none arrived.",
    }),
    response_body_truncated: z.boolean(),
  })
  .openapi('PingResult', {
    description: 'The outcome of one signed test delivery (not in the delivery log).',
    examples: [EXAMPLES.ping],
  });

const activityActorSchema = z
  .object({
    kind: z
      .string()
      .meta({ description: 'user (a signed-in person), api_key, ai (the assistant) or system.' }),
    user_id: id('The user who made the change (or on whose key or behalf it was made).').nullable(),
    name: z.string().nullable().meta({ description: "The user's name as it is now; null when unknown." }),
    api_key_id: id('The API key it was made with (kind api_key).').nullable(),
    via: z
      .object({ type: z.string(), id: z.number().int() })
      .nullable()
      .meta({ description: "What the change was made through on the actor's behalf (an assistant action)." }),
  })
  .openapi('ActivityActor', { description: 'Who made a change.' });

const activitySubjectSchema = z
  .object({
    type: z.string().meta({
      description:
        "`ticket`; for the assistant's project-wide entries `project`, or `all_projects` (id 0) for a global kill switch.",
    }),
    id: id('Ticket (or project) id.'),
    ticket_number: z.string().nullable(),
    title: z.string().nullable().meta({ description: 'The title as of the change.' }),
  })
  .openapi('ActivitySubject', { description: 'What was changed.' });

export const activitySchema = z
  .object({
    id: z.number().int().meta({
      description: 'Entry id; entries are numbered in commit order (a later entry never has a lower id).',
    }),
    type: z.string().meta({
      description:
        'The most specific type of the write: ticket.created, ticket.updated, ticket.deleted, ticket.restored, ' +
        'ticket.merged, comment.created, comment.updated, comment.deleted, attachment.created, attachment.deleted, ' +
        'ai.guardrails_updated, ai.kill_switch_activated, ai.kill_switch_cleared, ai.action_acknowledged, ' +
        'ai.action_type_paused (session host only); tolerate new values.',
    }),
    occurred_at: timestamp('When the change was committed'),
    project_id: id('Project id.').nullable(),
    actor: activityActorSchema,
    subject: activitySubjectSchema,
    changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })).meta({
      description: 'The fields the write changed, by API name; `{}` for creations, comments and files.',
    }),
    comment: z
      .object({
        id: id('Comment id.'),
        is_internal: z.boolean(),
        excerpt: z.string().nullable().meta({
          description: 'At most 200 characters of the comment; null when you may not read comments.',
        }),
      })
      .nullable()
      .meta({ description: 'The comment of comment.* entries; null otherwise.' }),
    summary: z.string().meta({ description: 'One sentence for people, with names as they are now.' }),
  })
  .openapi('Activity', {
    description: 'One user-visible change: one write, however many events it emitted.',
    examples: [EXAMPLES.activity, EXAMPLES.commentActivity],
  });

export const streamedEventSchema = z
  .object({
    id: z
      .string()
      .meta({ description: 'Event id (UUID): the `webhook-id` of its webhook deliveries.', format: 'uuid' }),
    sequence: z.number().int().meta({ description: "The event's position in the stream (commit order)." }),
    event: z.string().meta({ description: 'Event type; tolerate new values.' }),
    timestamp: z.number().int().meta({ description: 'When it happened (Unix seconds).' }),
    data: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The resource as the API returns it: exactly what webhooks deliver.' }),
  })
  .openapi('StreamedEvent', {
    description: 'A domain event of the stream: its id and sequence, then the webhook delivery body.',
    examples: [EXAMPLES.streamedEvent],
  });

/** How sure the assistant is, and the label of that (protos confidenceLabel). */
export const confidenceFields = {
  confidence: z.number().meta({ description: 'How sure the assistant is, 0 to 1.' }),
  confidence_label: z
    .enum(['high', 'medium', 'low'])
    .meta({ description: 'high from 0.85, medium from 0.6, low below.' }),
};

export const aiProviderSchema = z
  .object({
    kind: z
      .string()
      .meta({ description: '`retrieval` (built in) or `openai` (a model server); tolerate new values.' }),
    model: z.string().meta({ description: 'The model that composed the text, e.g. `tix-retrieval-1`.' }),
    external: z.boolean().meta({
      description: 'True when ticket text was sent outside the fleet (a model server the operator set up).',
    }),
  })
  .openapi('AiProvider', { description: 'What composed an answer.' });

export const aiSourceSchema = z
  .object({
    ticket_id: id('A resolved ticket the text draws on.'),
    ticket_number: z.string(),
    title: z.string(),
    similarity: z.number().meta({ description: 'How close it is to the question or ticket, 0 to 1.' }),
    comment_id: id('The customer-visible reply reused; null when none was.').nullable(),
    resolved_at: z.string().nullable().meta({
      description: 'When the ticket was resolved (ISO 8601); null when unknown.',
      format: 'date-time',
    }),
  })
  .openapi('AiSource', { description: 'A ticket an answer draws on, for agents to check it.' });

export const suggestionSchema = z
  .object({
    id: id('Suggestion id.'),
    project_id: id('Project id.'),
    ticket_id: id('The ticket it replies to.'),
    content: z.string().meta({ description: 'The reply, with personal data replaced by `[redacted]`.' }),
    content_html: z.string().meta({ description: 'The reply as sanitized HTML.' }),
    is_internal: z
      .boolean()
      .meta({ description: 'Whether it is meant as an internal note (false: a reply).' }),
    ...confidenceFields,
    provider: aiProviderSchema,
    sources: z
      .array(aiSourceSchema)
      .meta({ description: 'The resolved tickets it draws on, closest first.' }),
    redactions: z.number().int().meta({ description: 'How many pieces of personal data were replaced.' }),
    generated_at: timestamp('When it was composed'),
    tone: z.string().meta({ description: 'neutral, friendly or formal.' }),
  })
  .openapi('Suggestion', {
    description: 'A reply composed from resolved similar tickets, never from internal notes.',
    examples: [EXAMPLES.suggestion],
  });

export const predictionSchema = z
  .object({
    id: id('Prediction id.'),
    action_type: z.string().meta({
      description:
        'set_priority, assign, add_tags, close_duplicate, post_internal_note or send_reply; tolerate new values.',
    }),
    value: z.unknown().meta({
      description:
        'What it predicts: a priority (`"high"`), a user id (`7`), tags (`["login"]`), a ticket (`{ "ticket_id": 12 }`), a drafted reply (`{ "content": "Hello, ..." }`).',
    }),
    ...confidenceFields,
    rationale: z.string().meta({ description: 'Why, in one sentence.' }),
    sources: z.array(aiSourceSchema).meta({ description: 'The similar tickets it was drawn from.' }),
    created_at: timestamp('When it was recorded'),
    outcome: z
      .string()
      .nullable()
      .meta({ description: '`accepted` once someone applied it; null while nobody has.' }),
    held_back: z
      .string()
      .nullable()
      .meta({
        description:
          "Why the assistant's own rules hold it back on the ticket as it is now, whatever the mode: " +
          '`would_downgrade` (a lower priority, while the guardrails say `never_downgrade`); tolerate new ' +
          'values. Null when nothing holds it back. Offer a prediction to apply only when this is null.',
      }),
  })
  .openapi('Prediction', {
    description: 'What the assistant would do to a new ticket, recorded without doing it (shadow mode).',
    examples: [EXAMPLES.prediction],
  });

export const searchResultSchema = z
  .object({
    ticket_id: id('Ticket id.'),
    project_id: id('Project id.'),
    ticket_number: z.string(),
    title: z.string(),
    status: z.string().meta({ description: 'A status slug of its project.' }),
    rank: z.number().meta({ description: 'Relevance; results come highest first.' }),
    matched_in: z
      .string()
      .meta({ description: 'Where the best match is: title, description, comment or number.' }),
    snippet_html: z
      .string()
      .meta({ description: 'The matching passage, HTML-escaped, the matched words in `<mark>`.' }),
    comment_id: id('The comment matched (matched_in comment); null otherwise.').nullable(),
  })
  .openapi('SearchResult', {
    description: 'A ticket that matches a search.',
    examples: [EXAMPLES.searchResult],
  });

export const boardSchema = z
  .object({
    lanes: z.record(z.string(), z.array(ticketSchema)).meta({
      description: "Keyed by the project's status slugs (the authoritative list), in workflow order.",
    }),
    counts: z.record(z.string(), z.number().int()).meta({
      description: 'Exact count per lane key, plus `total`.',
    }),
  })
  .openapi('Board', { description: 'The board (spec Board).' });

export const errorSchema = z
  .object({
    code: z.number().int().meta({ description: 'The HTTP status.' }),
    message: z.string(),
    validation_errors: z.record(z.string(), z.unknown()).optional().meta({
      description:
        'Field name -> array of messages; for structured errors such as 402 the values may be scalars.',
    }),
  })
  .openapi('Error', { description: 'What went wrong.' });

export const errorEnvelopeSchema = z
  .object({ ok: z.literal(false), error: errorSchema })
  .openapi('ErrorEnvelope', {
    description: 'Every error answer.',
    examples: [
      {
        ok: false,
        error: {
          code: 422,
          message: 'Validation failed',
          validation_errors: { title: ['Title cannot be empty'] },
        },
      },
    ],
  });

// ---- webhook payloads (the document's top-level `webhooks`) -------------------------------------

/** The component name of an event's payload: ticket.status_changed -> TicketStatusChangedEvent. */
export function webhookPayloadName(eventType: string): string {
  const words = eventType.split(/[._]/).map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return `${words.join('')}Event`;
}

/** What `data` holds for each delivered event type (spec "Delivery payload"), and an example of it. */
function payloadData(eventType: string): { schema: z.ZodType; example: unknown; description: string } {
  if (eventType === 'comment.created') {
    return { schema: commentSchema, example: EXAMPLES.comment, description: 'The comment.' };
  }
  if (eventType === WEBHOOK_PING_EVENT) {
    return {
      schema: z.object({ webhook_id: id('The pinged webhook.'), project_id: id('Its project.') }),
      example: { webhook_id: 3, project_id: 1 },
      description: 'Which subscription was pinged.',
    };
  }
  const deleted = eventType === 'ticket.deleted';
  return {
    schema: ticketSchema,
    example: eventType === 'ticket.merged' ? EXAMPLES.mergedTicket : EXAMPLES.ticket,
    description: deleted
      ? 'The ticket as it was deleted.'
      : 'The ticket after the change, as the API returns it.',
  };
}

/** Every event a webhook may receive: the subscribable types, and the test delivery. */
export const WEBHOOK_PAYLOAD_EVENTS: readonly string[] = [...SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_PING_EVENT];

/** One payload schema per event type, `{ event, timestamp, data }` with `event` fixed. */
export const WEBHOOK_PAYLOAD_SCHEMAS: Record<string, z.ZodType> = Object.fromEntries(
  WEBHOOK_PAYLOAD_EVENTS.map((eventType) => {
    const data = payloadData(eventType);
    const name = webhookPayloadName(eventType);
    const schema = z
      .object({
        event: z.literal(eventType).meta({ description: 'The event type (also in `X-Webhook-Event`).' }),
        timestamp: z.number().int().meta({ description: 'When it happened (Unix seconds).' }),
        data: data.schema,
      })
      .openapi(name, {
        description: `The body of a \`${eventType}\` delivery; \`data\`: ${data.description}`,
        examples: [{ event: eventType, timestamp: 1741944413, data: data.example }],
      });
    return [name, schema];
  }),
);

/** `{ ok: true, data }` for one operation's data. */
export function successEnvelope(data: z.ZodType): z.ZodType {
  return z.object({ ok: z.literal(true), data });
}

/** Every component schema by its name (the same name each gives itself with `.openapi(name)`). */
export const COMPONENT_SCHEMAS: Record<string, z.ZodType> = {
  Pagination: paginationSchema,
  ProjectStatus: projectStatusSchema,
  Project: projectSchema,
  FieldSchemaEntry: fieldSchemaEntrySchema,
  TicketType: ticketTypeSchema,
  User: userSchema,
  Ticket: ticketSchema,
  Comment: commentSchema,
  Attachment: attachmentSchema,
  Guardrails: guardrailsSchema,
  Webhook: webhookSchema,
  CreatedWebhook: createdWebhookSchema,
  DeliveryAttempt: deliveryAttemptSchema,
  Delivery: deliverySchema,
  WebhookDetail: webhookDetailSchema,
  RotatedWebhook: rotatedWebhookSchema,
  PingResult: pingResultSchema,
  ...WEBHOOK_PAYLOAD_SCHEMAS,
  Board: boardSchema,
  ActivityActor: activityActorSchema,
  ActivitySubject: activitySubjectSchema,
  Activity: activitySchema,
  StreamedEvent: streamedEventSchema,
  AiProvider: aiProviderSchema,
  AiSource: aiSourceSchema,
  Suggestion: suggestionSchema,
  Prediction: predictionSchema,
  SearchResult: searchResultSchema,
  Error: errorSchema,
  ErrorEnvelope: errorEnvelopeSchema,
};
