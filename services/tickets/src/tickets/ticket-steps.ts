/**
 * What every ticket use case works with (stores and the lookup directory), and the steps they share:
 * loading a live ticket and applying one change with its events, telling 404 from 409 when the
 * conditional write finds the ticket moved on.
 */
import { AppError } from '@tix/kit';
import { WriteConflict } from '../db.js';
import type { LookupDirectory } from '../lookup/lookup-directory.js';
import type { ProjectWorkflow } from '../lookup/workflow.js';
import { TICKET_NOT_DELETED, ticketModified, ticketNotFound } from './ticket-errors.js';
import type { EventActor } from '@tix/protos';
import {
  eventTypesOfChange,
  eventTypesOfDelete,
  ticketChanges,
  ticketEvents,
  type ChangeOrigin,
} from './ticket-events.js';
import type { TicketReadStore } from './ticket-read-store.js';
import type { TicketRow } from './ticket-row.js';
import type { TicketChange, TicketWriteStore } from './ticket-write-store.js';

/** The stores and the lookup directory, handed to every use case. */
export interface TicketDeps {
  reads: TicketReadStore;
  writes: TicketWriteStore;
  lookup: LookupDirectory;
}

/** A ticket with the project it is presented in (prefix, status labels). */
export interface ProjectTicket {
  row: TicketRow;
  project: ProjectWorkflow;
}

/** The live ticket `id` of the project; 404 `Ticket not found` otherwise. */
export async function loadLiveTicket(deps: TicketDeps, projectId: number, id: number): Promise<TicketRow> {
  const row = await deps.reads.findTicket(projectId, id);
  if (!row) throw ticketNotFound();
  return row;
}

/** How a change of an existing ticket is reported in events: an update of some kind, or a deletion. */
export type ChangeKind = ChangeOrigin | 'delete';

/** The events of one change, from its before and after rows (see ticket-events.ts). */
export function changeEvents(kind: ChangeKind, project: ProjectWorkflow, actor: EventActor) {
  return (change: TicketChange, after: TicketRow) =>
    ticketEvents(
      kind === 'delete' ? eventTypesOfDelete() : eventTypesOfChange(change.before, after, kind),
      after,
      project,
      { actor, changes: ticketChanges(change.before, after, project) },
    );
}

export interface ApplyOptions {
  /** Other tickets the change relies on (see TicketWriteStore.applyChanges). */
  guards?: readonly { id: number; version: number }[];
  /**
   * What a concurrent change of the same ticket means: `conflict` (PUT: 409 `Ticket was modified
   * by another user`, the spec's rule) or `retry` (the caller gave no version to check, and its
   * contract has no 409: a WriteConflict that retryOnWriteConflict answers by starting over).
   */
  onRace: 'conflict' | 'retry';
  /** Who makes the change (kit actorOf the call's principal), for its events. */
  actor: EventActor;
}

/**
 * Applies one change and returns the ticket after it. When the ticket moved on since `before`:
 * 404 if it is gone (or deleted, for a live change), 409 `Ticket is not deleted` if a restore finds
 * it live, else as `onRace` says.
 */
export async function applyOneChange(
  deps: TicketDeps,
  project: ProjectWorkflow,
  change: TicketChange,
  kind: ChangeKind,
  options: ApplyOptions,
): Promise<TicketRow> {
  const [after] = await deps.writes.applyChanges(
    project,
    [change],
    changeEvents(kind, project, options.actor),
    options.guards ?? [],
  );
  if (after) return after;
  const current = await deps.reads.findTicket(project.id, change.before.id, { includeDeleted: true });
  const expectedDeleted = change.before.deletedAt !== null;
  if (!current) throw ticketNotFound();
  if (!expectedDeleted && current.deletedAt !== null) throw ticketNotFound();
  if (expectedDeleted && current.deletedAt === null) throw AppError.conflict(TICKET_NOT_DELETED);
  if (options.onRace === 'retry') throw new WriteConflict('version_moved');
  throw ticketModified();
}
