/**
 * Examples for the OpenAPI document. Resource examples are produced by the real presenters from
 * sample service messages, so an example always has exactly the shape the gateway sends (and the
 * unit tests check each one against its documented schema); a ticket, which the services send as
 * the API's JSON already, is written as that JSON.
 */
import {
  presentAttachment,
  presentComment,
  presentProject,
  presentTicketType,
  presentUser,
  type activity,
  type ai,
  type attachment,
  type comment,
  type customer,
  defaultGuardrails,
  type Guardrails,
  type lookup,
  type TicketJson,
  type webhook,
} from '@tix/protos';
import {
  presentPrediction,
  presentProvider,
  presentSearchHit,
  presentSuggestion,
} from './presenters/assistant.js';
import { encodeCursor } from './activity-cursor.js';
import { presentActivity, presentStreamedEvent } from './presenters/activity.js';
import { presentDelivery, presentPing, presentWebhook, presentWebhookDetail } from './presenters/webhooks.js';
import { presentCustomer, presentOrganization } from './presenters/customers.js';

const CREATED_AT = '2025-03-14T09:26:53.589Z';
const UPDATED_AT = '2025-03-14T10:02:11.120Z';

const projectMessage: lookup.Project__Output = {
  id: 1,
  name: 'Acme Support',
  slug: 'acme',
  prefix: 'ACME',
  description: 'Support requests from Acme customers',
  statuses: [
    { slug: 'open', label: 'Open', is_closed: false, position: 0 },
    { slug: 'work_in_progress', label: 'Work in progress', is_closed: false, position: 1 },
    { slug: 'waiting', label: 'Waiting', is_closed: false, position: 2 },
    { slug: 'closed', label: 'Closed', is_closed: true, position: 3 },
  ],
};

const ticketTypeMessage: lookup.TicketType__Output = {
  id: 1,
  project_id: 1,
  name: 'Bug',
  slug: 'bug',
  description: 'Something does not work as documented',
  is_default: true,
  field_schema_json: JSON.stringify([
    {
      name: 'severity',
      label: 'Severity',
      type: 'select',
      required: true,
      constraints: { allowed_values: ['low', 'high'] },
      default_value: 'low',
      order: 1,
    },
  ]),
};

const userMessage: lookup.User__Output = {
  id: 7,
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  role: 'agent',
  is_active: true,
  is_system: false,
};

const ticketJson: TicketJson = {
  id: 42,
  project_id: 1,
  ticket_type_id: 1,
  project_ref_id: 17,
  ticket_number: 'ACME-17',
  title: 'Printer on fire',
  description: 'It started after the update.',
  status: 'open',
  status_label: 'Open',
  priority: 'high',
  priority_label: 'High',
  assigned_to: 7,
  created_by: 3,
  updated_by: 7,
  custom_fields: { severity: 'high' },
  source_type: 'api',
  requester_id: null,
  cc: [],
  merged_into_id: null,
  version: 2,
  created_at: CREATED_AT,
  updated_at: UPDATED_AT,
  tags: ['billing'],
  resolution_type: null,
  closed_at: null,
};

const commentMessage: comment.Comment__Output = {
  id: 7,
  ticket_id: 42,
  user_id: 7,
  content: 'Restarted the printer; please try again.',
  content_html: '<p>Restarted the printer; please try again.</p>',
  is_internal: false,
  author_type: 'staff',
  created_at: CREATED_AT,
  updated_at: CREATED_AT,
};

const customerMessage: customer.Customer__Output = {
  id: 5,
  name: 'Grace Hopper',
  emails: ['grace@example.com', 'g.hopper@example.org'],
  organization_id: 3,
  notes: 'Prefers mail in the morning.',
  deleted: false,
  created_at: CREATED_AT,
  updated_at: UPDATED_AT,
};

const organizationMessage: customer.Organization__Output = {
  id: 3,
  name: 'Acme Corp',
  domains: ['example.com'],
  notes: '',
  customer_count: 12,
  created_at: CREATED_AT,
  updated_at: UPDATED_AT,
};

const attachmentMessage: attachment.Attachment__Output = {
  id: 5,
  ticket_id: 42,
  original_filename: 'error-log.txt',
  mime_type: 'text/plain',
  size_bytes: 2048,
  created_at: CREATED_AT,
};

const webhookMessage: webhook.Webhook__Output = {
  id: 3,
  url: 'https://hooks.example.com/tix',
  events: ['ticket.created', 'comment.created'],
  is_active: true,
  created_at: CREATED_AT,
  project_id: 1,
};

const deliveryMessage: webhook.Delivery__Output = {
  id: '0b3f8a0e-6f5c-4a59-9a53-8d3f3a4f9c01',
  webhook_id: 3,
  event_id: '5d0c3c9e-2d4e-4f0e-8d83-0d1c8f3b7a10',
  event: 'ticket.created',
  status: 'delivered',
  attempts: [
    {
      number: 1,
      error: 'connect ECONNREFUSED',
      duration_ms: 12,
      attempted_at: CREATED_AT,
      response_body_truncated: false,
    },
    {
      number: 2,
      response_code: 200,
      duration_ms: 85,
      attempted_at: UPDATED_AT,
      response_body: '{"received":true}',
      response_body_truncated: false,
    },
  ],
  created_at: CREATED_AT,
  updated_at: UPDATED_AT,
  request_body:
    '{"event":"ticket.created","timestamp":1741944413,"data":{"id":42,"ticket_number":"ACME-17"}}',
  request_body_truncated: false,
};

const pingMessage: webhook.PingResult__Output = {
  event_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  ok: true,
  response_code: 200,
  duration_ms: 41,
  request_body: '{"event":"ping","timestamp":1741944413,"data":{"webhook_id":3,"project_id":1}}',
  response_body: 'ok',
  response_body_truncated: false,
};

const activityMessage: activity.Activity__Output = {
  id: '90211',
  type: 'ticket.updated',
  occurred_at: UPDATED_AT,
  project_id: 1,
  actor: { kind: 'user', user_id: 7, name: 'Ada Lovelace' },
  subject: { type: 'ticket', id: 42, ticket_number: 'ACME-17', title: 'Printer on fire' },
  changes_json: JSON.stringify({ priority: { from: 'medium', to: 'high' } }),
  summary: 'Ada Lovelace changed the priority of ACME-17 from Medium to High',
};

const streamedEventMessage: activity.StreamedEvent__Output = {
  sequence: '5120',
  id: '5d0c3c9e-2d4e-4f0e-8d83-0d1c8f3b7a10',
  type: 'ticket.updated',
  body_json: JSON.stringify({
    event: 'ticket.updated',
    timestamp: Math.floor(Date.parse(UPDATED_AT) / 1000),
    data: ticketJson,
  }),
};

const aiSourceMessage: ai.Source__Output = {
  ticket_id: 17,
  ticket_number: 'ACME-9',
  title: 'Printer smoking after firmware update',
  similarity: 0.78,
  comment_id: 311,
  resolved_at: '2025-03-02T16:40:00.000Z',
};

const retrievalProvider: ai.Provider__Output = {
  kind: 'retrieval',
  model: 'tix-retrieval-1',
  external: false,
};

const suggestionMessage: ai.Suggestion__Output = {
  id: '5012',
  project_id: 1,
  ticket_id: 42,
  content:
    'Hello,\n\nThanks for the report. Please unplug the printer and roll back to firmware 2.3: ' +
    'the update overheats the fuser. Write to [redacted] if it happens again.',
  content_html:
    '<p>Hello,</p><p>Thanks for the report. Please unplug the printer and roll back to firmware 2.3: ' +
    'the update overheats the fuser. Write to [redacted] if it happens again.</p>',
  is_internal: false,
  confidence: 0.82,
  confidence_label: 'medium',
  provider: retrievalProvider,
  sources: [aiSourceMessage],
  redactions: 1,
  generated_at: UPDATED_AT,
  tone: 'neutral',
};

const predictionMessage: ai.Prediction__Output = {
  id: '981',
  project_id: 1,
  ticket_id: 42,
  action_type: 'set_priority',
  value_json: JSON.stringify('high'),
  confidence: 0.91,
  rationale: '9 of 11 similar resolved tickets were high priority',
  sources: [aiSourceMessage],
  created_at: CREATED_AT,
};

/** A project's guardrails as GET shows them: the defaults, with set_priority suggested. */
const guardrails: Guardrails = {
  version: 7,
  ...defaultGuardrails(),
  updated_at: '2025-03-14T08:00:00.000Z',
  updated_by: { id: 3, name: 'Ada' },
};
guardrails.actions.set_priority.mode = 'suggest';

/** One example of every resource, exactly as the gateway presents it. */
export const EXAMPLES = {
  project: presentProject(projectMessage),
  ticketType: presentTicketType(ticketTypeMessage),
  user: presentUser(userMessage),
  ticket: ticketJson,
  guardrails,
  mergedTicket: {
    ...ticketJson,
    id: 43,
    project_ref_id: 18,
    ticket_number: 'ACME-18',
    status: 'closed',
    status_label: 'Closed',
    merged_into_id: 42,
    version: 3,
    resolution_type: 'duplicate',
    closed_at: UPDATED_AT,
    merged_into: 42,
  } satisfies TicketJson,
  comment: presentComment(commentMessage),
  customer: presentCustomer(customerMessage),
  organization: presentOrganization(organizationMessage),
  attachment: presentAttachment(attachmentMessage),
  webhook: presentWebhook(webhookMessage),
  createdWebhook: presentWebhook({
    ...webhookMessage,
    secret: 'whsec_9pM3cJm1oQ2fXb7yV4tZ0eR8uK6nH5aL1sD3gF2jW0E=',
  }),
  delivery: presentDelivery(deliveryMessage),
  webhookDetail: presentWebhookDetail(webhookMessage),
  rotatedWebhook: {
    ...presentWebhookDetail({ ...webhookMessage, previous_secret_expires_at: '2025-03-15T10:02:11.120Z' }),
    secret: 'whsec_Q2hhbmdlZCBzZWNyZXQgZm9yIHRoZSBleGFtcGxlIG9ubHk=',
  },
  ping: presentPing(pingMessage),
  activity: presentActivity(activityMessage),
  commentActivity: presentActivity({
    ...activityMessage,
    id: '90212',
    type: 'comment.created',
    changes_json: '{}',
    comment: { id: 7, is_internal: false, excerpt: 'Restarted the printer; please try again.' },
    summary: 'Ada Lovelace commented on ACME-17',
  }),
  streamedEvent: presentStreamedEvent(streamedEventMessage),
  aiProvider: presentProvider(retrievalProvider),
  suggestion: presentSuggestion(suggestionMessage),
  prediction: presentPrediction(predictionMessage),
  searchResult: presentSearchHit({
    ticket_id: 42,
    project_id: 1,
    ticket_number: 'ACME-17',
    title: 'Printer on fire',
    status: 'open',
    rank: 0.61,
    matched_in: 'title',
    snippet_html: '<mark>Printer</mark> on <mark>fire</mark>',
  }),
  activityCursor: encodeCursor('activity', 90211),
  eventCursor: encodeCursor('events', 5120),
  pagination: { total: 134, page: 1, per_page: 50, total_pages: 3 },
  csrfToken: 'k7Jq2VwX9yZ1aB3cD5eF7gH9iJ1kL3mN5oP7qR9sT1u',
  apiKey: {
    id: 12,
    name: 'Zapier',
    prefix: 'tix_4fGh9KqL',
    scopes: ['tickets:read', 'tickets:write'],
    project_id: 1,
    user_id: 3,
    created_at: CREATED_AT,
    last_used_at: null,
    revoked_at: null,
  },
  apiKeyValue: 'tix_4fGh9KqLm2Pa8sD3fG5hJ7kL9zX1cV3bN5mQ7wE9rT1y0aB2c',
} as const;
