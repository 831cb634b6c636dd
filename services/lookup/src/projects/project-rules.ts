/**
 * What makes a project valid: name, slug, ticket-number prefix, description and its workflow (the
 * ordered statuses). Pure; the service applies these before anything is stored.
 */
import { FieldErrors } from '@tix/kit';
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
