/**
 * Updating a ticket (PUT): only the fields given change; `assigned_to` 0 (or an absent value)
 * unassigns; custom fields are merged over the stored ones and re-validated; a new status puts the
 * ticket at the end of that lane (and clears resolution_type unless the status is closed). The write
 * is conditional on the version read (or the one the caller gave): a stale version, or a
 * simultaneous write that won, is 409 `Ticket was modified by another user`. Success bumps the
 * version by exactly 1 and writes ticket.updated (+ status_changed / assigned).
 */
import type { CustomFieldValues } from '@tix/custom-fields';
import { actorOf, FieldErrors } from '@tix/kit';
import type { LookupCaller } from '../lookup/lookup-directory.js';
import type { ProjectWorkflow, WorkflowStatus } from '../lookup/workflow.js';
import { requireAuthor } from '../shared/caller.js';
import { retryOnWriteConflict } from '../shared/write-retry.js';
import { checkCustomFields, parseCustomFieldsJson } from './custom-field-rules.js';
import { applyOneChange, loadLiveTicket, type ProjectTicket, type TicketDeps } from './ticket-steps.js';
import { checkExpectedVersion, ticketModified } from './ticket-errors.js';
import { checkAssignee } from './ticket-references.js';
import { stateOf, type Priority, type TicketRow, type TicketState } from './ticket-row.js';
import {
  checkDescription,
  checkPriority,
  checkRequester,
  checkStatus,
  checkTitle,
  normaliseCc,
  normaliseTags,
} from './ticket-rules.js';

export interface UpdateTicketInput {
  projectId: number;
  id: number;
  title?: string;
  /** Absent: unchanged; null: cleared. */
  description?: string | null;
  status?: string;
  priority?: string;
  /** Absent: unchanged; null or 0: unassigned. */
  assignedTo?: number | null;
  /** JSON object text merged over the stored values. */
  customFieldsJson?: string;
  /** Absent: unchanged; a list replaces the tags. */
  tags?: readonly string[];
  /** Absent: unchanged; null: no requester. */
  requesterId?: number | null;
  /** Absent: unchanged; a list replaces the cc. */
  cc?: readonly number[];
  /** Expected current version; absent: no client-side check. */
  version?: number;
  /** If-Match's version: 412 unless the ticket is at it (checked before `version`). */
  expectedVersion?: number;
}

export const NOTHING_TO_UPDATE = 'At least one field to update is required';

/** The request's changes, checked for shape (everything that needs no ticket). */
interface CheckedUpdate {
  title?: string;
  description?: string | null;
  status?: WorkflowStatus;
  priority?: Priority;
  assignedTo?: number | null;
  customInput?: unknown;
  tags?: string[];
  requesterId?: number | null;
  /** Checked for shape; the requester is left out once the next state is known. */
  cc?: readonly number[];
}

function checkShape(input: UpdateTicketInput, project: ProjectWorkflow): CheckedUpdate {
  const errors = new FieldErrors();
  const given = [
    input.title,
    input.description,
    input.status,
    input.priority,
    input.assignedTo,
    input.customFieldsJson,
    input.tags,
    input.requesterId,
    input.cc,
  ];
  if (given.every((value) => value === undefined)) errors.add('body', NOTHING_TO_UPDATE);
  if (input.version !== undefined && input.version < 1) errors.add('version', 'version must be at least 1');
  const update: CheckedUpdate = {};
  if (input.title !== undefined) update.title = checkTitle(errors, input.title);
  if (input.description !== undefined)
    update.description = input.description === null ? null : checkDescription(errors, input.description);
  if (input.status !== undefined) update.status = checkStatus(errors, project, input.status);
  if (input.priority !== undefined) update.priority = checkPriority(errors, input.priority);
  if (input.assignedTo !== undefined) update.assignedTo = input.assignedTo || null;
  if (input.customFieldsJson !== undefined) {
    update.customInput = parseCustomFieldsJson(errors, input.customFieldsJson) ?? {};
  }
  if (input.tags !== undefined) update.tags = normaliseTags(errors, input.tags);
  if (input.requesterId !== undefined)
    update.requesterId = input.requesterId === null ? null : checkRequester(errors, input.requesterId);
  if (input.cc !== undefined) update.cc = normaliseCc(errors, input.cc, null);
  errors.throwIfAny();
  return update;
}

/** The state after applying `update` to `before`, checking what depends on the ticket (assignee, custom fields). */
async function nextState(
  deps: TicketDeps,
  project: ProjectWorkflow,
  before: TicketRow,
  update: CheckedUpdate,
  caller: LookupCaller,
): Promise<TicketState> {
  const errors = new FieldErrors();
  const next = stateOf(before);
  if (update.title !== undefined) next.title = update.title;
  if (update.description !== undefined) next.description = update.description;
  if (update.status) {
    next.status = update.status.slug;
    if (!update.status.isClosed) next.resolutionType = null;
  }
  if (update.priority) next.priority = update.priority;
  if (update.tags) next.tags = update.tags;
  if (update.requesterId !== undefined) next.requesterId = update.requesterId;
  // A new requester leaves the cc (the one given, or the stored one) if it was on it.
  if (update.cc !== undefined || update.requesterId !== undefined)
    next.cc = (update.cc ?? next.cc).filter((id) => id !== next.requesterId);
  if (update.assignedTo !== undefined) {
    // Re-sending the current assignee is no change, even if that user was deactivated since.
    if (update.assignedTo !== null && update.assignedTo !== before.assignedTo)
      await checkAssignee(errors, deps.lookup, update.assignedTo, caller);
    next.assignedTo = update.assignedTo;
  }
  if (update.customInput !== undefined) {
    const type = await deps.lookup.ticketType(project.id, before.ticketTypeId, caller);
    let merged: CustomFieldValues | undefined;
    if (!type) errors.add('custom_fields', 'The ticket type of this ticket no longer exists');
    else merged = checkCustomFields(errors, type.fieldSchema, update.customInput, before.customFields);
    if (merged) next.customFields = merged;
  }
  errors.throwIfAny();
  return next;
}

/** Applies the update (see the file header). */
export async function updateTicket(
  deps: TicketDeps,
  input: UpdateTicketInput,
  caller: LookupCaller,
): Promise<ProjectTicket> {
  const author = requireAuthor(caller.principal);
  const project = await deps.lookup.project(input.projectId, caller);
  const update = checkShape(input, project);
  const row = await retryOnWriteConflict(async () => {
    const before = await loadLiveTicket(deps, project.id, input.id);
    checkExpectedVersion(input.expectedVersion, before);
    if (input.version !== undefined && input.version !== before.version) throw ticketModified();
    const next = await nextState(deps, project, before, update, caller);
    return applyOneChange(
      deps,
      project,
      {
        before,
        next,
        placement: next.status === before.status ? { kind: 'keep' } : { kind: 'end' },
        deleted: false,
        updatedBy: author.userId,
      },
      'update',
      { onRace: 'conflict', actor: actorOf(caller.principal) },
    );
  });
  return { row, project };
}
