/**
 * The consumer of `tickets.lookup-events` (kit durableQueue, declared as producers declare it:
 * quorum, delivery limit 5, dead letters to `tickets.lookup-events.dlq`): what the ticket service
 * does when lookup changes a project or a ticket type.
 * - project.updated: forget the cached project (its name, prefix and workflow are read again), then
 *   move the tickets of every removed status (`statuses_removed`) to its `moved_to`, or to the first
 *   status of the workflow as lookup has it now when `moved_to` is null or no longer exists. A
 *   status that exists again (removed, then added back) is left alone: its tickets belong there.
 * - ticket_type.updated: forget the cached ticket type.
 * A message is acknowledged only once its work committed; a redelivered one finds nothing left to
 * move. Failures that may pass (database or lookup unreachable, a write race) retry the message in
 * place; anything else sends it to the dead-letter queue.
 *
 * The queue is shared by the replicas (each event reaches one of them), so the other replicas see a
 * changed workflow or type when their cache entry expires (PROJECT_CACHE_TTL_MS,
 * TICKET_TYPE_CACHE_TTL_MS).
 */
import {
  AppError,
  durableQueue,
  startDomainEventConsumer,
  SYSTEM_ACTOR,
  type Consumer,
  type Logger,
} from '@tix/kit';
import { FLEET, type DomainEvent, type EventActor } from '@tix/protos';
import { WriteConflict } from '../db.js';
import type { LookupDirectory } from '../lookup/lookup-directory.js';
import { findStatus, initialStatus } from '../lookup/workflow.js';
import type { TicketWriteStore } from '../tickets/ticket-write-store.js';
import { moveOutOfStatus } from './move-out-of-status.js';
import type { StatusTicketsStore } from './status-tickets-store.js';

/** The durable queue this consumer reads (its FLEET entry). */
export const LOOKUP_EVENTS_QUEUE = durableQueue(
  'tickets.lookup-events',
  FLEET.tickets.queues['tickets.lookup-events'],
);

export interface LookupEventDeps {
  lookup: LookupDirectory;
  tickets: StatusTicketsStore;
  writes: TicketWriteStore;
  logger: Logger;
  /** Tickets moved per transaction (default MOVE_BATCH_SIZE). */
  batchSize?: number;
}

/** An event whose data this consumer cannot act on: dead-lettered, never retried. */
export class UnreadableLookupEvent extends Error {
  override readonly name = 'UnreadableLookupEvent';
}

const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0;

interface RemovedStatus {
  slug: string;
  moved_to: string | null;
}

function removedStatusesOf(data: Record<string, unknown>): RemovedStatus[] {
  const removed = data.statuses_removed ?? [];
  if (!Array.isArray(removed)) throw new UnreadableLookupEvent('statuses_removed is not an array');
  return removed.map((entry: unknown) => {
    const { slug, moved_to } = (entry ?? {}) as { slug?: unknown; moved_to?: unknown };
    if (
      typeof slug !== 'string' ||
      (moved_to !== null && moved_to !== undefined && typeof moved_to !== 'string')
    )
      throw new UnreadableLookupEvent('a statuses_removed entry is malformed');
    return { slug, moved_to: typeof moved_to === 'string' ? moved_to : null };
  });
}

/** Does what one lookup event means for the ticket service (see the file header). */
export function createLookupEventHandler(deps: LookupEventDeps): (event: DomainEvent) => Promise<void> {
  return async (event) => {
    const data = event.data;
    if (event.type === 'ticket_type.updated') {
      if (!isId(data.project_id) || !isId(data.id))
        throw new UnreadableLookupEvent('ticket_type.updated without project_id and id');
      deps.lookup.forgetTicketType(data.project_id, data.id);
      return;
    }
    if (event.type !== 'project.updated') return;
    const projectId = event.project_id ?? data.id;
    if (!isId(projectId)) throw new UnreadableLookupEvent('project.updated without a project id');
    const removed = removedStatusesOf(data);
    deps.lookup.forgetProject(projectId);
    if (removed.length === 0) return;
    const caller = { correlationId: event.id, principal: null };
    let project;
    try {
      project = await deps.lookup.project(projectId, caller);
    } catch (error) {
      // A project that no longer exists has no tickets to keep in a lane.
      if (error instanceof AppError && error.kind === 'not_found') return;
      throw error;
    }
    const actorId = isId(data.actor_id) ? data.actor_id : null;
    // The event's own actor (v1.1); for an older event, the user in its data, else the system.
    const actor: EventActor =
      event.actor ??
      (actorId === null ? { ...SYSTEM_ACTOR } : { kind: 'user', user_id: actorId, api_key_id: null });
    for (const { slug, moved_to } of removed) {
      if (findStatus(project, slug)) continue;
      const to = (moved_to === null ? undefined : findStatus(project, moved_to)) ?? initialStatus(project);
      if (!to) throw new UnreadableLookupEvent(`project ${projectId} has no status to move tickets to`);
      const moved = await moveOutOfStatus(
        { tickets: deps.tickets, writes: deps.writes },
        { project, from: slug, to, actorId, actor, ...(deps.batchSize ? { batchSize: deps.batchSize } : {}) },
      );
      if (moved > 0)
        deps.logger.info(
          { project_id: projectId, from: slug, to: to.slug, moved, event_id: event.id },
          'moved the tickets of a removed status',
        );
    }
  };
}

/**
 * True for failures the same message may get past later: the database or lookup unreachable or
 * overloaded, a lost write race, a deadlock. Unreadable data and refusals are not.
 */
export function isTransientLookupEventError(error: unknown): boolean {
  if (error instanceof UnreadableLookupEvent) return false;
  if (error instanceof WriteConflict) return true;
  if (error instanceof AppError) return ['unavailable', 'timeout', 'internal'].includes(error.kind);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return true; // connection errors and pool timeouts
  return (
    code.startsWith('08') ||
    code.startsWith('53') ||
    code.startsWith('57P') ||
    code === '40001' ||
    code === '40P01' ||
    code === '55P03' ||
    /^E[A-Z]+$/.test(code)
  );
}

/** Starts consuming (connecting in the background, retrying until it can). */
export function startLookupEventConsumer(
  options: LookupEventDeps & { amqpUrl: string; prefetch?: number },
): Consumer {
  return startDomainEventConsumer({
    url: options.amqpUrl,
    logger: options.logger,
    name: 'lookup events consumer',
    queue: LOOKUP_EVENTS_QUEUE,
    // One at a time: two events of one project must not move its tickets concurrently.
    prefetch: options.prefetch ?? 1,
    handle: createLookupEventHandler(options),
    isTransient: isTransientLookupEventError,
  });
}
