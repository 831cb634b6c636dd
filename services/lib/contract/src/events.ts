/**
 * The domain-event catalog. Events are written to a service's outbox in the same transaction as the
 * change, relayed to the RabbitMQ topic exchange EVENTS_EXCHANGE with the event type as routing key,
 * and consumed (by id, idempotently) by the webhook and activity services.
 */

/** The topic exchange that carries every domain event. */
export const EVENTS_EXCHANGE = 'tix.events';

/** Every event type a Tix service emits, grouped by the service that owns the aggregate. */
export const EVENT_TYPES = {
  tickets: [
    'ticket.created',
    'ticket.updated',
    'ticket.status_changed',
    'ticket.assigned',
    'ticket.deleted',
    'ticket.merged',
    'ticket.restored',
  ],
  comments: ['comment.created', 'comment.updated', 'comment.deleted'],
  attachments: ['attachment.created', 'attachment.deleted'],
  lookup: ['api_key.revoked', 'user.updated', 'project.updated', 'ticket_type.updated'],
  // A merge of one customer into another (docs/events.md): the ticket service re-points the
  // requester and cc of the merged customer's tickets. Not in SUBSCRIBABLE_EVENT_TYPES.
  customers: ['customer.merged'],
  // The assistant's autonomy (docs/assistant.md, "Autonomy"): its settings, and each action it
  // takes and what people did with it. Not in SUBSCRIBABLE_EVENT_TYPES; the activity log binds
  // `ai.*`.
  ai: [
    'ai.guardrails_updated',
    'ai.kill_switch_activated',
    'ai.kill_switch_cleared',
    'ai.action_executed',
    'ai.action_acknowledged',
    'ai.action_reverted',
    'ai.action_type_paused',
  ],
  // SLA clocks (docs/sla.md, "The service"): a target's warning and breach at their instant (the
  // service's durable timers) and a target met in time. Not in SUBSCRIBABLE_EVENT_TYPES.
  sla: ['sla.warning', 'sla.breached', 'sla.fulfilled'],
} as const;

export type EventType = (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES][number];

/**
 * Event types a webhook subscription may name in `events`: the spec's create-request enum, then
 * the additive values (the spec lets new event types come without a version change).
 */
export const SUBSCRIBABLE_EVENT_TYPES = [
  'ticket.created',
  'ticket.updated',
  'ticket.status_changed',
  'ticket.assigned',
  'comment.created',
  'ticket.deleted',
  'ticket.merged',
  'ticket.restored',
] as const satisfies readonly EventType[];

/** The `event` of a test delivery (POST /webhooks/{id}/ping): never a domain event, never subscribed to. */
export const WEBHOOK_PING_EVENT = 'ping';

/**
 * Who made a change (envelope v1.1, docs/events.md): `user` a browser session, `api_key` an
 * integration (with its key id), `system` internal jobs and operator tooling, `ai` the assistant
 * acting as its system user. `via` names the assistant's action (`ai_action`) or, on a person, the
 * action they revert (`ai_revert`), both from the principal (kit actorOf).
 */
export interface EventActor {
  kind: 'user' | 'api_key' | 'ai' | 'system';
  user_id: number | null;
  api_key_id: number | null;
  via?: { type: string; id: number };
}

/** One changed field of an update-like event, by its public (API) name. */
export interface FieldChange {
  from: unknown;
  to: unknown;
}

/** The JSON body of every message on EVENTS_EXCHANGE. */
export interface DomainEvent<Data = Record<string, unknown>> {
  /** Unique per change (UUID); consumers deduplicate on it. Also the AMQP messageId. */
  id: string;
  type: EventType;
  /** ISO 8601 time of the change (the transaction that wrote it). */
  occurred_at: string;
  /** The service that emitted it (lookup, tickets, comments, attachments). */
  source: string;
  /** Project the aggregate belongs to; absent for events without one (api_key.revoked). */
  project_id?: number;
  /** v1.1: who made the change; absent only on events written before v1.1. */
  actor?: EventActor;
  /**
   * v1.1: the fields the change altered, by public name, `{ from, to }` (`{}` for creations,
   * deletions and events that change no field). Every event of one write carries the same map.
   */
  changes?: Record<string, FieldChange>;
  /** v1.1, ticket.created only: fields the server filled with defaults (`priority`, `custom_fields.<name>`). */
  defaulted_fields?: string[];
  /**
   * v1.1, ticket events: every type the same write emitted, this one included, in emission order
   * (a merge: updated, status_changed, merged). A consumer folding one write into one entry knows
   * the write's most specific type from whichever of its events arrives first.
   */
  write_types?: EventType[];
  /** The resource as the public API returns it, plus what a consumer needs to act. */
  data: Data;
}

/**
 * The webhook delivery body of an event, `{ event, timestamp, data }` (timestamp: Unix seconds of
 * occurred_at), serialised once: webhooks sign and send these bytes, and the event stream
 * (GET /v1/events) serves the same payload, so a receiver handles both alike. Built from the type,
 * time and data only, so the v1.1 envelope fields never reach receivers.
 */
export function deliveryBody(event: {
  /** A DomainEvent's type, or the webhooks' own `ping`. */
  type: string;
  occurred_at: string;
  data: unknown;
}): string {
  return JSON.stringify({
    event: event.type,
    timestamp: Math.floor(Date.parse(event.occurred_at) / 1000),
    data: event.data,
  });
}

/** Dead-letter exchange for messages a consumer gave up on. */
export const EVENTS_DEAD_LETTER_EXCHANGE = 'tix.events.dlx';
