/** Fixtures of the SLA integration tests: a publisher of ticket and comment events, the events themselves, a listener of sla.*. */
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { assertEventTopology } from '@tix/kit';
import { listenToEvents } from '@tix/kit/testing';
import { type DomainEvent, EVENTS_EXCHANGE, type EventType } from '@tix/protos';

/** A publisher of DomainEvents to the vhost's events exchange (topology declared, confirmed). */
export async function openPublisher(amqpUrl: string) {
  const connection = await amqp.connect(amqpUrl);
  const channel = await connection.createConfirmChannel();
  await assertEventTopology(channel);
  return {
    async publish(...events: DomainEvent[]) {
      for (const event of events)
        channel.publish(EVENTS_EXCHANGE, event.type, Buffer.from(JSON.stringify(event)), {
          persistent: true,
          contentType: 'application/json',
          messageId: event.id,
        });
      await channel.waitForConfirms();
    },
    close: () => connection.close(),
  };
}

export interface Ticket {
  id: number;
  version: number;
  status: string;
  priority: string;
  created_at: string;
  tags?: string[];
}

/** A ticket event as the ticket service writes it (data: the ticket; the fields the SLA reads and a few more). */
export function ticketEvent(
  type: EventType,
  projectId: number,
  ticket: Ticket,
  options: {
    at?: Date;
    changes?: Record<string, { from: unknown; to: unknown }>;
    writeTypes?: EventType[];
  } = {},
): DomainEvent {
  const at = options.at ?? new Date();
  return {
    id: randomUUID(),
    type,
    occurred_at: at.toISOString(),
    source: 'tickets',
    project_id: projectId,
    actor: { kind: 'user', user_id: 1, api_key_id: null },
    changes: options.changes ?? {},
    write_types: options.writeTypes ?? [type],
    data: {
      project_id: projectId,
      ticket_type_id: 1,
      title: `Ticket ${ticket.id}`,
      status_label: ticket.status,
      priority_label: ticket.priority,
      assigned_to: null,
      custom_fields: {},
      tags: [],
      requester_id: null,
      merged_into_id: null,
      updated_at: at.toISOString(),
      ...ticket,
    },
  };
}

/** A comment.created event: a public staff reply, a customer's message or an internal note. */
export function commentEvent(
  projectId: number,
  ticketId: number,
  comment: { id: number; at: Date; author_type: 'staff' | 'customer'; is_internal?: boolean },
): DomainEvent {
  return {
    id: randomUUID(),
    type: 'comment.created',
    occurred_at: comment.at.toISOString(),
    source: 'comments',
    project_id: projectId,
    changes: {},
    data: {
      id: comment.id,
      ticket_id: ticketId,
      user_id: 1,
      content: 'Hello',
      content_html: null,
      is_internal: comment.is_internal ?? false,
      author_type: comment.author_type,
      customer_id: comment.author_type === 'customer' ? 7 : null,
      created_at: comment.at.toISOString(),
      updated_at: comment.at.toISOString(),
    },
  };
}

export interface HeardEvent {
  type: string;
  heardAt: number;
  data: Record<string, unknown>;
}

/** Every sla.* event reaching the exchange, with the time it was heard. */
export async function hearSlaEvents(amqpUrl: string) {
  const heard: HeardEvent[] = [];
  const connection = await listenToEvents(amqpUrl, 'sla.*', (message) => {
    const event = JSON.parse(message.content.toString()) as DomainEvent;
    heard.push({ type: event.type, heardAt: Date.now(), data: event.data });
  });
  return {
    heard,
    of: (ticketId: number, type?: string) =>
      heard.filter(
        (event) => event.data.ticket_id === ticketId && (type === undefined || event.type === type),
      ),
    close: () => connection.close(),
  };
}
