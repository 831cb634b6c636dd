/**
 * The response side of the OpenAPI document: zod schemas of the resources as the presenters send
 * them (spec "Resources and their fields", plus the additive fields the gateway sends), the two
 * envelopes, and the headers every response carries. They document; they never validate traffic.
 * Objects are open (no additionalProperties: false): the spec lets new optional fields appear in v1.
 */
import { z } from './zod-openapi.js';
import {
  activityActorSchema,
  activitySchema as activityResource,
  activitySubjectSchema,
  apiKeySchema as apiKeyResource,
  attachmentSchema as attachmentResource,
  commentSchema as commentResource,
  createdWebhookSchema as createdWebhookResource,
  customerSchema as customerResource,
  deliveryAttemptSchema,
  deliverySchema as deliveryResource,
  fieldSchemaEntrySchema,
  guardrailsSchema as guardrailsResource,
  organizationSchema as organizationResource,
  idField as id,
  pingResultSchema as pingResultResource,
  projectSchema as projectResource,
  projectStatusSchema,
  rotatedWebhookSchema as rotatedWebhookResource,
  streamedEventSchema as streamedEventResource,
  SUBSCRIBABLE_EVENT_TYPES,
  ticketSchema as ticketResource,
  ticketTypeSchema as ticketTypeResource,
  timestampField as timestamp,
  userSchema as userResource,
  WEBHOOK_PING_EVENT,
  webhookDetailSchema as webhookDetailResource,
  webhookSchema as webhookResource,
} from '@tix/protos';
import { EXAMPLES } from './examples.js';

/** A resource declared in the contract, named in the document (`components/schemas/<id>`) with its examples. */
function named<Resource extends z.ZodType>(resource: Resource, id: string, ...examples: unknown[]): Resource {
  return resource.meta({ id, examples });
}

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

/** Spec Project, declared in the contract; named here, with its example. */
export const projectSchema = named(projectResource, 'Project', EXAMPLES.project);

/** Spec Ticket type, declared in the contract; named here, with its example. */
export const ticketTypeSchema = named(ticketTypeResource, 'TicketType', EXAMPLES.ticketType);

/** Spec User, declared in the contract; named here, with its example. */
export const userSchema = named(userResource, 'User', EXAMPLES.user);

/** An API key as admins see it, declared in the contract; named here, with its example. */
export const apiKeySchema = named(apiKeyResource, 'ApiKey', EXAMPLES.apiKey);

/** Spec Ticket, declared in the contract; named here, with the presenters' examples. */
export const ticketSchema = named(ticketResource, 'Ticket', EXAMPLES.ticket, EXAMPLES.mergedTicket);

/** Spec Comment, declared in the contract; named here, with its example. */
export const commentSchema = named(commentResource, 'Comment', EXAMPLES.comment);

/** A customer and an organization (additive), declared in the contract; named here, with examples. */
export const customerSchema = named(customerResource, 'Customer', EXAMPLES.customer);

export const organizationSchema = named(organizationResource, 'Organization', EXAMPLES.organization);

/** Spec Attachment, declared in the contract; named here, with its example. */
export const attachmentSchema = named(attachmentResource, 'Attachment', EXAMPLES.attachment);

/** A project's guardrails, declared in the contract; named here, with the example GET shows. */
export const guardrailsSchema = named(guardrailsResource, 'Guardrails', EXAMPLES.guardrails);

/** Spec Webhook and the delivery log, declared in the contract; named here, with their examples. */
export const webhookSchema = named(webhookResource, 'Webhook', EXAMPLES.webhook);

export const createdWebhookSchema = named(createdWebhookResource, 'CreatedWebhook', EXAMPLES.createdWebhook);

export const deliverySchema = named(deliveryResource, 'Delivery', EXAMPLES.delivery);

export const webhookDetailSchema = named(webhookDetailResource, 'WebhookDetail', EXAMPLES.webhookDetail);

export const rotatedWebhookSchema = named(rotatedWebhookResource, 'RotatedWebhook', EXAMPLES.rotatedWebhook);

export const pingResultSchema = named(pingResultResource, 'PingResult', EXAMPLES.ping);

/** An activity entry and a streamed event, declared in the contract; named here, with examples. */
export const activitySchema = named(
  activityResource,
  'Activity',
  EXAMPLES.activity,
  EXAMPLES.commentActivity,
);

export const streamedEventSchema = named(streamedEventResource, 'StreamedEvent', EXAMPLES.streamedEvent);

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

/**
 * A part the contract names itself (`.meta({ id })`, so that the resources holding it refer to it),
 * registered as its own component: a copy made here, which has zod-to-openapi's `.openapi()`.
 */
function nested(schema: z.ZodType): z.ZodType {
  return schema.meta({});
}

/** Every component schema by its name (the same name each gives itself with `.openapi(name)`). */
export const COMPONENT_SCHEMAS: Record<string, z.ZodType> = {
  Pagination: paginationSchema,
  ProjectStatus: nested(projectStatusSchema),
  Project: projectSchema,
  FieldSchemaEntry: nested(fieldSchemaEntrySchema),
  TicketType: ticketTypeSchema,
  User: userSchema,
  Ticket: ticketSchema,
  Comment: commentSchema,
  Attachment: attachmentSchema,
  Guardrails: guardrailsSchema,
  Webhook: webhookSchema,
  CreatedWebhook: createdWebhookSchema,
  DeliveryAttempt: nested(deliveryAttemptSchema),
  Delivery: deliverySchema,
  WebhookDetail: webhookDetailSchema,
  RotatedWebhook: rotatedWebhookSchema,
  PingResult: pingResultSchema,
  ...WEBHOOK_PAYLOAD_SCHEMAS,
  Board: boardSchema,
  ActivityActor: nested(activityActorSchema),
  ActivitySubject: nested(activitySubjectSchema),
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
