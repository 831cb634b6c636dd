/**
 * Creating a ticket: the type must be a type of the project, an assignee an active user, the custom
 * fields valid for the type (defaults applied); the ticket starts in the project's first status at
 * the end of that lane, numbered `<prefix>-<n>` gap-free per project, stamped with its author and
 * source, and its ticket.created event (its data written from the numbered ticket) is written
 * atomically with it (one statement).
 *
 * A call carrying a claimed Idempotency-Key (CallContext.idempotency, from the gateway) records it in
 * that same statement. A create whose key is already recorded creates nothing: the same fingerprint
 * gets the recorded ticket back (as it is now; no new event), another fingerprint 409. This is what
 * answers a client's retry when the gateway died after the create but before storing its response.
 */
import type { FieldSchema } from '@tix/custom-fields';
import { actorOf, AppError, FieldErrors, type IdempotencyContext } from '@tix/kit';
import type { LookupCaller } from '../lookup/lookup-directory.js';
import { initialStatus, statusLabel } from '../lookup/workflow.js';
import { requireAuthor, type SourceType } from '../shared/caller.js';
import { retryOnWriteConflict } from '../shared/write-retry.js';
import { checkCustomFields, parseCustomFieldsJson } from './custom-field-rules.js';
import { IDEMPOTENCY_MISMATCH_MESSAGE } from './idempotency-sweep.js';
import type { ProjectTicket, TicketDeps } from './ticket-steps.js';
import { eventTypesOfCreate, ticketEventEnvelopes } from './ticket-events.js';
import { checkAssignee, checkTicketType } from './ticket-references.js';
import {
  checkDescription,
  checkPriority,
  checkRequester,
  checkTitle,
  normaliseCc,
  normaliseTags,
} from './ticket-rules.js';

export interface CreateTicketInput {
  projectId: number;
  ticketTypeId: number;
  title: string;
  /** Absent: no description. */
  description?: string;
  /** Absent: medium. */
  priority?: string;
  /** Absent or 0: unassigned. */
  assignedTo?: number;
  /** JSON object text; empty: none given. */
  customFieldsJson: string;
  tags: readonly string[];
  /** Absent: no requester. */
  requesterId?: number;
  cc: readonly number[];
  /** Only `email`, and only from a system principal (the mail service); absent: the principal's. */
  sourceType?: string;
  /** `mail:<inbound id>`: a repeat answers the first ticket; system principals only. */
  sourceRef?: string;
}

/** Longest source_ref (the column's size). */
const SOURCE_REF_MAX = 200;
export const SOURCE_REF_DENIED = 'Only the mail service or the portal can give a source_ref';

/** The caller of a create: who, and the Idempotency-Key claimed for the request, if any. */
export type CreateCaller = LookupCaller & { idempotency?: IdempotencyContext | null };

/**
 * ticket.created's defaulted_fields: `priority` when it was left out (medium applied) and
 * `custom_fields.<name>` for each field the request did not send whose schema default filled it.
 * status is not listed: the server always sets it (the project's first status).
 */
export function defaultedFieldsOf(
  input: Pick<CreateTicketInput, 'priority'>,
  schema: FieldSchema,
  customInput: unknown,
): string[] {
  const sent =
    typeof customInput === 'object' && customInput !== null ? (customInput as Record<string, unknown>) : {};
  const defaulted = input.priority === undefined ? ['priority'] : [];
  for (const field of schema)
    if (sent[field.name] === undefined && field.default_value !== null && field.default_value !== undefined)
      defaulted.push(`custom_fields.${field.name}`);
  return defaulted;
}

/**
 * The source a create is stamped with: the principal's (api, web, system), or `email` when a system
 * principal (the mail service) says so. `portal` is reserved for the customer portal and refused
 * until it exists (docs/decisions.md, "Requesters and cc on tickets").
 */
function checkSourceType(errors: FieldErrors, given: string | undefined, principal: SourceType): SourceType {
  if (given === undefined || given === principal) return principal;
  if (given === 'email' && principal === 'system') return 'email';
  errors.add('source_type', 'source_type can only be email, set by the mail service');
  return principal;
}

/** Validates and creates the ticket (see the file header); 422 listing every problem. */
export async function createTicket(
  deps: TicketDeps,
  input: CreateTicketInput,
  caller: CreateCaller,
): Promise<ProjectTicket> {
  const author = requireAuthor(caller.principal);
  if (input.sourceRef !== undefined && author.sourceType !== 'system')
    throw AppError.permissionDenied(SOURCE_REF_DENIED);
  const project = await deps.lookup.project(input.projectId, caller);
  const errors = new FieldErrors();
  const title = checkTitle(errors, input.title);
  const description = input.description === undefined ? null : checkDescription(errors, input.description);
  const priority = input.priority === undefined ? 'medium' : checkPriority(errors, input.priority);
  const tags = normaliseTags(errors, input.tags);
  const customInput = parseCustomFieldsJson(errors, input.customFieldsJson);
  const assignedTo = input.assignedTo ? input.assignedTo : null;
  const requesterId = input.requesterId === undefined ? null : checkRequester(errors, input.requesterId);
  const cc = normaliseCc(errors, input.cc, requesterId);
  const sourceType = checkSourceType(errors, input.sourceType, author.sourceType);
  if (
    input.sourceRef !== undefined &&
    (input.sourceRef.trim() === '' || input.sourceRef.length > SOURCE_REF_MAX)
  )
    errors.add('source_ref', `source_ref must be 1 to ${SOURCE_REF_MAX} characters`);
  const [type] = await Promise.all([
    checkTicketType(errors, deps.lookup, project.id, input.ticketTypeId, caller),
    assignedTo === null ? undefined : checkAssignee(errors, deps.lookup, assignedTo, caller),
  ]);
  const customFields =
    type && !errors.has('custom_fields')
      ? checkCustomFields(errors, type.fieldSchema, customInput)
      : undefined;
  errors.throwIfAny();
  if (!priority || !customFields) throw AppError.internal('create validation passed without values');

  const status = initialStatus(project);
  if (!status) throw AppError.internal(`project ${project.id} has no statuses`);
  const idempotency = caller.idempotency ?? null;
  const outcome = await retryOnWriteConflict(() =>
    deps.writes.create(
      {
        projectId: project.id,
        prefix: project.prefix,
        statusLabel: statusLabel(project, status.slug),
        statusClosed: status.isClosed,
        ticketTypeId: input.ticketTypeId,
        title,
        description,
        status: status.slug,
        priority,
        assignedTo,
        customFields,
        tags,
        resolutionType: null,
        mergedIntoId: null,
        requesterId,
        cc,
        createdBy: author.userId,
        sourceType,
        sourceRef: input.sourceRef ?? null,
      },
      (created) =>
        ticketEventEnvelopes(eventTypesOfCreate(), created, {
          actor: actorOf(caller.principal),
          changes: {},
          defaultedFields: defaultedFieldsOf(input, type?.fieldSchema ?? [], customInput),
        }),
      idempotency,
    ),
  );
  if (outcome.kind === 'created') return { row: outcome.row, project };
  if (outcome.kind === 'sourced') {
    // The first create of this source: answered as it is now (no new event).
    const first = await deps.reads.findTicket(project.id, outcome.ticketId, { includeDeleted: true });
    if (!first) throw AppError.conflict('The ticket made from this source_ref is gone');
    return { row: first, project };
  }
  if (outcome.fingerprint !== idempotency?.fingerprint) throw AppError.conflict(IDEMPOTENCY_MISMATCH_MESSAGE);
  // The same fingerprint means the same path and query, hence the same project; a ticket found
  // elsewhere (or gone) is not the one this request made, so it is refused like a mismatch.
  const recorded = await deps.reads.findTicket(project.id, outcome.ticketId, { includeDeleted: true });
  if (!recorded) throw AppError.conflict(IDEMPOTENCY_MISMATCH_MESSAGE);
  return { row: recorded, project };
}
