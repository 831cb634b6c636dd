/**
 * What the activity integration tests share: a lookup service (actor names), an activity service
 * on it, a client, and builders of real DomainEvents the way the ticket and comment services write
 * them (v1.1 envelope, write_types).
 */
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { eventually } from '@tix/kit/testing';
import type { DomainEvent, EventActor, EventType, FieldChange } from '@tix/protos';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestActivityServer, type TestActivityServer } from '../../src/testing.js';

export interface Harness {
  lookup: TestLookupServer;
  lookupClient: ServiceClient<'lookup'>;
  activity: TestActivityServer;
  client: ServiceClient<'activity'>;
  stop(): Promise<void>;
}

export async function startHarness(options: { amqpUrl?: string; label?: string } = {}): Promise<Harness> {
  const lookup = await startTestLookupServer();
  const activity = await startTestActivityServer({ lookupAddress: lookup.address, ...options });
  const lookupClient = createServiceClient('lookup', lookup.address, { deadlineMs: 5_000 });
  const client = createServiceClient('activity', activity.address, { deadlineMs: 5_000 });
  return {
    lookup,
    lookupClient,
    activity,
    client,
    async stop() {
      client.close();
      lookupClient.close();
      await activity.stop();
      await lookup.stop();
    },
  };
}

export const userActor = (userId: number): EventActor => ({
  kind: 'user',
  user_id: userId,
  api_key_id: null,
});

export interface TicketState {
  id: number;
  projectId: number;
  version: number;
  title?: string;
  [field: string]: unknown;
}

/** The events of one ticket write, as the ticket service emits them. */
export function ticketWrite(
  types: EventType[],
  ticket: TicketState,
  options: { actor: EventActor; changes?: Record<string, FieldChange>; occurredAt?: string },
): DomainEvent[] {
  const { id, projectId, version, ...rest } = ticket;
  const data = {
    id,
    project_id: projectId,
    ticket_number: `SUP-${id}`,
    title: ticket.title ?? `Ticket ${id}`,
    version,
    ...rest,
  };
  return types.map((type) => ({
    id: randomUUID(),
    type,
    occurred_at: options.occurredAt ?? new Date().toISOString(),
    source: 'tickets',
    project_id: projectId,
    actor: options.actor,
    changes: options.changes ?? {},
    write_types: types,
    data,
  }));
}

/** A comment event, as the comment service emits it. */
export function commentEvent(
  type: EventType,
  comment: { id: number; ticketId: number; projectId: number; content: string; isInternal: boolean },
  actor: EventActor,
): DomainEvent {
  return {
    id: randomUUID(),
    type,
    occurred_at: new Date().toISOString(),
    source: 'comments',
    project_id: comment.projectId,
    actor,
    changes: {},
    data: {
      id: comment.id,
      ticket_id: comment.ticketId,
      user_id: actor.user_id,
      content: comment.content,
      content_html: null,
      is_internal: comment.isInternal,
    },
  };
}

/** An ai.* event, as the ai service's outbox writes it (no project: a global kill switch's). */
export function assistantEvent(
  type: EventType,
  options: {
    projectId: number | null;
    actor: EventActor;
    data: Record<string, unknown>;
    changes?: Record<string, FieldChange>;
  },
): DomainEvent {
  return {
    id: randomUUID(),
    type,
    occurred_at: new Date().toISOString(),
    source: 'ai',
    ...(options.projectId === null ? {} : { project_id: options.projectId }),
    actor: options.actor,
    changes: options.changes ?? {},
    data: options.data,
  };
}

/** An autonomous action as the ai.action_* events carry it (`data.action`). */
export function assistantAction(action: {
  id: number;
  projectId: number;
  ticketId: number;
  actionType: string;
  status: string;
  reviewedBy?: number;
  reviewNote?: string;
}): Record<string, unknown> {
  return {
    id: action.id,
    project_id: action.projectId,
    ticket_id: action.ticketId,
    ticket_number: `SUP-${action.ticketId}`,
    action_type: action.actionType,
    status: action.status,
    confidence: 0.93,
    before: { priority: 'medium' },
    after: { priority: 'high' },
    executed_at: new Date().toISOString(),
    reviewed_by: action.reviewedBy ?? null,
    reviewed_at: action.reviewedBy === undefined ? null : new Date().toISOString(),
    review_note: action.reviewNote ?? null,
    reverted_by: null,
    reverted_at: null,
    revert_reason: null,
  };
}

/** Waits (30 s at most) until activity.events on the broker at `amqpUrl` is empty: every copy consumed. */
export async function untilEventsConsumed(amqpUrl: string): Promise<void> {
  await eventually(async () => {
    const probe = await amqp.connect(amqpUrl);
    const queue = await (await probe.createChannel()).checkQueue('activity.events');
    await probe.close();
    return queue.messageCount === 0;
  }, 30_000);
}
