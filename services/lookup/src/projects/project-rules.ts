/**
 * What makes a project valid: name, slug, ticket-number prefix, description and its workflow (the
 * ordered statuses). Pure; the service applies these before anything is stored.
 */
import { AppError, FieldErrors } from '@tix/kit';
import { PROJECT_LIMITS } from '@tix/protos';
import {
  PREFIX_PATTERN,
  PREFIX_RULE,
  PROJECT_SLUG_PATTERN,
  PROJECT_SLUG_RULE,
  SNAKE_SLUG_PATTERN,
  SNAKE_SLUG_RULE,
} from '../shared/slugs.js';
import { checkOptionalText, checkRequiredText } from '../shared/text-rules.js';

export interface StatusDefinition {
  slug: string;
  label: string;
  isClosed: boolean;
}

export interface NewProject {
  name: string;
  slug: string;
  prefix: string;
  description: string;
  /** In workflow order; position = index. */
  statuses: StatusDefinition[];
}

/** The workflow a project gets when none is given (the spec's default statuses). */
export const DEFAULT_WORKFLOW: readonly StatusDefinition[] = Object.freeze([
  { slug: 'open', label: 'Open', isClosed: false },
  { slug: 'work_in_progress', label: 'Work in progress', isClosed: false },
  { slug: 'waiting', label: 'Waiting', isClosed: false },
  { slug: 'closed', label: 'Closed', isClosed: true },
]);

/**
 * Validates a create-project request and returns it normalised (names and labels trimmed, the
 * default workflow filled in), or throws 422 listing every problem.
 *
 * Workflow rule: the first status is where new tickets start, so it must be open; at least one
 * status must be closed, because tickets need somewhere to be resolved (resolution_type, closed
 * counts).
 */
export function validateNewProject(input: {
  name: string;
  slug: string;
  prefix: string;
  description: string;
  statuses: readonly StatusDefinition[];
}): NewProject {
  const errors = new FieldErrors();
  const name = checkRequiredText(errors, 'name', input.name, { label: 'Name', max: PROJECT_LIMITS.name });
  if (!PROJECT_SLUG_PATTERN.test(input.slug)) errors.add('slug', `Slug ${PROJECT_SLUG_RULE}`);
  if (!PREFIX_PATTERN.test(input.prefix)) errors.add('prefix', `Prefix ${PREFIX_RULE}`);
  const description = checkOptionalText(errors, 'description', input.description, {
    label: 'Description',
    max: PROJECT_LIMITS.description,
  });
  const statuses =
    input.statuses.length === 0
      ? DEFAULT_WORKFLOW.map((s) => ({ ...s }))
      : checkWorkflow(errors, input.statuses);
  errors.throwIfAny();
  return { name, slug: input.slug, prefix: input.prefix, description, statuses };
}

/** The board's `counts` object holds one key per status plus `total`, so no status may be called that. */
const RESERVED_STATUS_SLUGS = new Set(['total']);

function checkWorkflow(errors: FieldErrors, statuses: readonly StatusDefinition[]): StatusDefinition[] {
  // More lanes than this is not a workflow anyone can work with; it also bounds the request.
  if (statuses.length > PROJECT_LIMITS.statuses) {
    errors.add('statuses', `A workflow has at most ${PROJECT_LIMITS.statuses} statuses`);
    return [];
  }
  const seen = new Set<string>();
  const normalised = statuses.map((status, index) => {
    const field = `statuses[${index}]`;
    if (!SNAKE_SLUG_PATTERN.test(status.slug)) errors.add(`${field}.slug`, `Status slug ${SNAKE_SLUG_RULE}`);
    else if (RESERVED_STATUS_SLUGS.has(status.slug))
      errors.add(`${field}.slug`, `Status slug "${status.slug}" is reserved`);
    else if (seen.has(status.slug))
      errors.add(`${field}.slug`, `Status slug "${status.slug}" is used more than once`);
    seen.add(status.slug);
    const label = checkRequiredText(errors, `${field}.label`, status.label, {
      label: 'Status label',
      max: PROJECT_LIMITS.statusLabel,
    });
    return { slug: status.slug, label, isClosed: status.isClosed };
  });
  if (normalised[0]?.isClosed) {
    errors.add('statuses', 'The first status is where new tickets start, so it cannot be closed');
  }
  if (!normalised.some((status) => status.isClosed)) {
    errors.add('statuses', 'At least one status must be closed (where tickets are resolved)');
  }
  return normalised;
}

// ---- Editing a project and its workflow ----------------------------------------------------------

/** What UpdateProject may change; undefined fields stay. */
export interface ProjectChangeRequest {
  name?: string;
  description?: string;
}

export const NOTHING_TO_CHANGE_IN_PROJECT = 'Give at least one field to change: name or description';
export const NOTHING_TO_CHANGE_IN_STATUS = 'Give at least one field to change: label, is_closed or position';
export const STATUS_NOT_FOUND = 'Status not found';
export const FIRST_STATUS_OPEN = 'The first status is where new tickets start, so it cannot be closed';
export const ONE_CLOSED_STATUS = 'At least one status must be closed (where tickets are resolved)';

/** Validates an update-project request (rules of creation), or throws 422 listing every problem. */
export function validateProjectChanges(input: ProjectChangeRequest): ProjectChangeRequest {
  const errors = new FieldErrors();
  const change: ProjectChangeRequest = {};
  if (input.name === undefined && input.description === undefined)
    errors.add('body', NOTHING_TO_CHANGE_IN_PROJECT);
  if (input.name !== undefined)
    change.name = checkRequiredText(errors, 'name', input.name, { label: 'Name', max: PROJECT_LIMITS.name });
  if (input.description !== undefined)
    change.description = checkOptionalText(errors, 'description', input.description, {
      label: 'Description',
      max: PROJECT_LIMITS.description,
    });
  errors.throwIfAny();
  return change;
}

/** The project fields a change really changes, in the order events list them. */
export function changedProjectFields(
  before: { name: string; description: string },
  change: ProjectChangeRequest,
): ('name' | 'description')[] {
  const changed: ('name' | 'description')[] = [];
  if (change.name !== undefined && change.name !== before.name) changed.push('name');
  if (change.description !== undefined && change.description !== before.description)
    changed.push('description');
  return changed;
}

/** The 0-based positions a status may take in a workflow of `size` statuses (after the edit). */
function checkPosition(errors: FieldErrors, position: number | undefined, size: number): void {
  if (position === undefined) return;
  if (!Number.isInteger(position) || position < 0 || position > size - 1)
    errors.add('position', `Position must be from 0 to ${size - 1}`);
}

/**
 * The workflow rules of creation, applied to an edited workflow: its first status is open and one
 * status is closed. Problems are reported on `field`, the part of the request that caused them.
 */
function checkWorkflowShape(errors: FieldErrors, statuses: readonly StatusDefinition[], field: string): void {
  if (statuses[0]?.isClosed) errors.add(field, FIRST_STATUS_OPEN);
  if (!statuses.some((status) => status.isClosed)) errors.add(field, ONE_CLOSED_STATUS);
}

/** `statuses` with `status` moved to `position` (the others keep their relative order). */
function placeAt<T>(statuses: readonly T[], status: T, position: number): T[] {
  const others = statuses.filter((candidate) => candidate !== status);
  return [...others.slice(0, position), status, ...others.slice(position)];
}

/** The status of `workflow` with that slug; 404 `Status not found` otherwise. */
export function requireStatus<S extends { slug: string }>(workflow: readonly S[], slug: string): S {
  const found = workflow.find((status) => status.slug === slug);
  if (!found) throw AppError.notFound(STATUS_NOT_FOUND);
  return found;
}

/**
 * The workflow after adding `status` at `position` (default last), or 422: slug and label by the
 * rules of creation, the slug unused in the project, at most PROJECT_LIMITS.statuses statuses, and
 * the first status still open (is_closed or position says which caused it).
 */
export function planAddStatus(
  workflow: readonly StatusDefinition[],
  input: { slug: string; label: string; isClosed: boolean; position?: number },
): StatusDefinition[] {
  const errors = new FieldErrors();
  if (!SNAKE_SLUG_PATTERN.test(input.slug)) errors.add('slug', `Status slug ${SNAKE_SLUG_RULE}`);
  else if (RESERVED_STATUS_SLUGS.has(input.slug))
    errors.add('slug', `Status slug "${input.slug}" is reserved`);
  else if (workflow.some((status) => status.slug === input.slug))
    errors.add('slug', `Status slug "${input.slug}" is already used in this project`);
  const label = checkRequiredText(errors, 'label', input.label, {
    label: 'Status label',
    max: PROJECT_LIMITS.statusLabel,
  });
  if (workflow.length >= PROJECT_LIMITS.statuses)
    errors.add('slug', `A workflow has at most ${PROJECT_LIMITS.statuses} statuses`);
  checkPosition(errors, input.position, workflow.length + 1);
  errors.throwIfAny();
  const added: StatusDefinition = { slug: input.slug, label, isClosed: input.isClosed };
  const next = placeAt([...workflow, added], added, input.position ?? workflow.length);
  checkWorkflowShape(errors, next, input.position === undefined ? 'is_closed' : 'position');
  errors.throwIfAny();
  return next;
}

/**
 * The workflow after relabelling, closing/opening or moving the status `slug`: 404 when it is not
 * there, 422 for nothing to change, a bad label or position, or a workflow whose first status would
 * be closed or that would have no closed status.
 */
export function planUpdateStatus(
  workflow: readonly StatusDefinition[],
  slug: string,
  input: { label?: string; isClosed?: boolean; position?: number },
): StatusDefinition[] {
  const current = requireStatus(workflow, slug);
  const errors = new FieldErrors();
  if (input.label === undefined && input.isClosed === undefined && input.position === undefined)
    errors.add('body', NOTHING_TO_CHANGE_IN_STATUS);
  const label =
    input.label === undefined
      ? current.label
      : checkRequiredText(errors, 'label', input.label, {
          label: 'Status label',
          max: PROJECT_LIMITS.statusLabel,
        });
  checkPosition(errors, input.position, workflow.length);
  errors.throwIfAny();
  const changed: StatusDefinition = { slug, label, isClosed: input.isClosed ?? current.isClosed };
  const replaced = workflow.map((status) => (status === current ? changed : status));
  const next = input.position === undefined ? replaced : placeAt(replaced, changed, input.position);
  checkWorkflowShape(errors, next, input.position !== undefined ? 'position' : 'is_closed');
  errors.throwIfAny();
  return next;
}

/**
 * The workflow after removing the status `slug` (404 when it is not there). `moveTo`, when given,
 * must be another status of the project (422 on move_to); the rest must still be a valid workflow
 * (422 on slug: its first status open, one status closed).
 */
export function planRemoveStatus(
  workflow: readonly StatusDefinition[],
  slug: string,
  moveTo: string | undefined,
): StatusDefinition[] {
  const removed = requireStatus(workflow, slug);
  const next = workflow.filter((status) => status !== removed);
  const errors = new FieldErrors();
  if (moveTo !== undefined && !next.some((status) => status.slug === moveTo)) {
    const slugs = next.map((status) => status.slug).join(', ');
    errors.add('move_to', `move_to must be another status of the project: ${slugs}`);
  }
  checkWorkflowShape(errors, next, 'slug');
  errors.throwIfAny();
  return next;
}
