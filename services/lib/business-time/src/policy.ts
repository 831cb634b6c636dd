/**
 * SLA policies (docs/sla.md, "Policies"): an ordered list per project; the first whose filter
 * matches a ticket's facts applies. A filter's criteria all have to hold; a criterion listing
 * several values holds when any of them does.
 */
import {
  MAX_FILTER_CUSTOM_FIELDS,
  MAX_FILTER_VALUES,
  MAX_NAME_LENGTH,
  MAX_PAUSE_STATUSES,
  MAX_POLICIES,
  MAX_TARGET_MINUTES,
  MIN_TARGET_MINUTES,
} from './limits.js';
import { addError, type FieldErrors, isPlainObject, type Result } from './types.js';

export const TARGET_KINDS = ['first_response', 'next_response', 'resolution', 'periodic_update'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export interface Target {
  minutes: number;
  /** business: counted on the policy's calendar; calendar: every minute counts (24x7). */
  mode: 'business' | 'calendar';
  /** Status slugs during which this target does not count. */
  pause_statuses: string[];
  /** Warn this many minutes (same mode) before the due time; null: no warning. */
  warn_before_minutes: number | null;
}

export interface PolicyFilter {
  priorities?: string[];
  ticket_types?: string[];
  organizations?: string[];
  requesters?: string[];
  /** At least one of these tags. */
  tags_any?: string[];
  /** Every one of these tags. */
  tags_all?: string[];
  /** None of these tags. */
  tags_none?: string[];
  /** Field name -> accepted values (a multi-value field matches when any value is accepted). */
  custom_fields?: Record<string, Array<string | number | boolean>>;
}

export interface Policy {
  id: string;
  name: string;
  /** The calendar business targets count on; null when every target counts calendar minutes. */
  calendar_id: string | null;
  filter: PolicyFilter;
  targets: Partial<Record<TargetKind, Target>>;
}

/** What a filter looks at. */
export interface TicketFacts {
  priority: string;
  ticket_type: string | null;
  organization: string | null;
  requester: string | null;
  tags: string[];
  custom_fields: Record<string, unknown>;
}

const POLICY_KEYS = new Set(['id', 'name', 'calendar_id', 'filter', 'targets']);
const TARGET_KEYS = new Set(['minutes', 'mode', 'pause_statuses', 'warn_before_minutes']);
const LIST_CRITERIA = [
  'priorities',
  'ticket_types',
  'organizations',
  'requesters',
  'tags_any',
  'tags_all',
  'tags_none',
] as const;
const SLUG = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const FIELD_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Validates a policy. Refuses targets outside MIN_TARGET_MINUTES..MAX_TARGET_MINUTES, a warning
 * not before its due time, a business target without a calendar, a policy without targets, empty
 * criteria (they would match nothing) and contradictory ones (a tag both required and excluded,
 * every accepted tag excluded). `knownCalendars`, when given, also checks calendar_id.
 */
export function validatePolicy(input: unknown, knownCalendars?: ReadonlySet<string>): Result<Policy> {
  const errors: FieldErrors = {};
  if (!isPlainObject(input)) return { ok: false, errors: { policy: ['policy must be an object'] } };
  for (const key of Object.keys(input)) if (!POLICY_KEYS.has(key)) addError(errors, key, 'Unknown property');

  const id = input.id;
  if (typeof id !== 'string' && typeof id !== 'number') addError(errors, 'id', 'id is required (string)');
  const name = input.name ?? '';
  if (typeof name !== 'string' || name.length > MAX_NAME_LENGTH)
    addError(errors, 'name', `name must be a string of at most ${MAX_NAME_LENGTH} characters`);

  const rawCalendarId = input.calendar_id ?? null;
  const calendarId =
    typeof rawCalendarId === 'string' || typeof rawCalendarId === 'number' ? String(rawCalendarId) : null;
  if (rawCalendarId !== null && calendarId === null)
    addError(errors, 'calendar_id', 'calendar_id must be a string or null');
  else if (calendarId !== null && knownCalendars && !knownCalendars.has(calendarId))
    addError(errors, 'calendar_id', `calendar ${calendarId} does not exist`);

  const filter = parseFilter(input.filter, errors);
  const targets = parseTargets(input.targets, errors);
  if (targets && calendarId === null && Object.values(targets).some((t) => t.mode === 'business'))
    addError(errors, 'calendar_id', 'business-minute targets need a calendar_id');

  if (Object.keys(errors).length > 0 || !filter || !targets) return { ok: false, errors };
  return {
    ok: true,
    value: {
      id: String(id),
      name: name as string,
      calendar_id: calendarId,
      filter,
      targets,
    },
  };
}

/** Validates a project's ordered list of policies (ids unique, at most MAX_POLICIES). */
export function validatePolicies(input: unknown, knownCalendars?: ReadonlySet<string>): Result<Policy[]> {
  if (!Array.isArray(input)) return { ok: false, errors: { policies: ['policies must be an array'] } };
  if (input.length > MAX_POLICIES)
    return { ok: false, errors: { policies: [`at most ${MAX_POLICIES} policies`] } };
  const errors: FieldErrors = {};
  const policies: Policy[] = [];
  const ids = new Set<string>();
  input.forEach((entry: unknown, index) => {
    const result = validatePolicy(entry, knownCalendars);
    if (!result.ok) {
      for (const [field, messages] of Object.entries(result.errors))
        for (const message of messages) addError(errors, `policies[${index}].${field}`, message);
      return;
    }
    if (ids.has(result.value.id))
      addError(errors, `policies[${index}].id`, `id "${result.value.id}" is used twice`);
    ids.add(result.value.id);
    policies.push(result.value);
  });
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: policies };
}

function parseFilter(input: unknown, errors: FieldErrors): PolicyFilter | null {
  if (input === undefined || input === null) return {};
  if (!isPlainObject(input)) {
    addError(errors, 'filter', 'filter must be an object');
    return null;
  }
  const before = Object.keys(errors).length;
  const filter: PolicyFilter = {};
  for (const [key, value] of Object.entries(input)) {
    const path = `filter.${key}`;
    if ((LIST_CRITERIA as readonly string[]).includes(key)) {
      const list = parseValueList(value, path, errors, (v) => typeof v === 'string' || typeof v === 'number');
      if (list) filter[key as (typeof LIST_CRITERIA)[number]] = [...new Set(list.map(String))];
    } else if (key === 'custom_fields') {
      if (!isPlainObject(value)) {
        addError(errors, path, 'custom_fields must be an object: field name -> accepted values');
        continue;
      }
      const names = Object.keys(value);
      if (names.length === 0) addError(errors, path, 'custom_fields must name at least one field');
      if (names.length > MAX_FILTER_CUSTOM_FIELDS)
        addError(errors, path, `at most ${MAX_FILTER_CUSTOM_FIELDS} custom fields`);
      const fields: Record<string, Array<string | number | boolean>> = {};
      for (const [field, accepted] of Object.entries(value)) {
        if (!FIELD_NAME.test(field)) {
          addError(errors, `${path}.${field}`, 'not a custom field name');
          continue;
        }
        const list = parseValueList(accepted, `${path}.${field}`, errors, (v) =>
          ['string', 'number', 'boolean'].includes(typeof v),
        );
        if (list) fields[field] = list as Array<string | number | boolean>;
      }
      filter.custom_fields = fields;
    } else addError(errors, path, 'Unknown criterion');
  }
  const all = new Set(filter.tags_all ?? []);
  const none = new Set(filter.tags_none ?? []);
  for (const tag of all)
    if (none.has(tag))
      addError(errors, 'filter', `contradictory filter: tag "${tag}" is both in tags_all and tags_none`);
  if (filter.tags_any && filter.tags_any.every((tag) => none.has(tag)))
    addError(errors, 'filter', 'contradictory filter: every tag of tags_any is in tags_none');
  return Object.keys(errors).length > before ? null : filter;
}

function parseValueList(
  value: unknown,
  path: string,
  errors: FieldErrors,
  accept: (v: unknown) => boolean,
): unknown[] | null {
  if (!Array.isArray(value)) {
    addError(errors, path, 'must be an array of values');
    return null;
  }
  if (value.length === 0) {
    addError(errors, path, 'must not be empty (an empty list matches no ticket; leave the criterion out)');
    return null;
  }
  if (value.length > MAX_FILTER_VALUES) {
    addError(errors, path, `at most ${MAX_FILTER_VALUES} values`);
    return null;
  }
  if (!value.every((v) => accept(v) && String(v).length > 0 && String(v).length <= MAX_NAME_LENGTH)) {
    addError(errors, path, 'values must be non-empty strings or numbers');
    return null;
  }
  return value as unknown[];
}

function parseTargets(input: unknown, errors: FieldErrors): Partial<Record<TargetKind, Target>> | null {
  if (!isPlainObject(input)) {
    addError(errors, 'targets', 'targets must be an object keyed by target (first_response, ...)');
    return null;
  }
  const before = Object.keys(errors).length;
  const targets: Partial<Record<TargetKind, Target>> = {};
  for (const [kind, value] of Object.entries(input)) {
    const path = `targets.${kind}`;
    if (!(TARGET_KINDS as readonly string[]).includes(kind)) {
      addError(errors, path, `Unknown target (${TARGET_KINDS.join(', ')})`);
      continue;
    }
    if (!isPlainObject(value)) {
      addError(
        errors,
        path,
        'target must be an object {minutes, mode, pause_statuses?, warn_before_minutes?}',
      );
      continue;
    }
    for (const key of Object.keys(value))
      if (!TARGET_KEYS.has(key)) addError(errors, `${path}.${key}`, 'Unknown property');
    const { minutes, mode, pause_statuses: pauses = [], warn_before_minutes: warn = null } = value;
    const minutesOk =
      Number.isInteger(minutes) &&
      (minutes as number) >= MIN_TARGET_MINUTES &&
      (minutes as number) <= MAX_TARGET_MINUTES;
    if (!minutesOk)
      addError(
        errors,
        `${path}.minutes`,
        `minutes must be a whole number from ${MIN_TARGET_MINUTES} to ${MAX_TARGET_MINUTES} (365 days)`,
      );
    if (mode !== 'business' && mode !== 'calendar')
      addError(errors, `${path}.mode`, 'mode must be "business" or "calendar"');
    let statuses: string[] = [];
    if (!Array.isArray(pauses) || !pauses.every((s) => typeof s === 'string' && SLUG.test(s)))
      addError(errors, `${path}.pause_statuses`, 'pause_statuses must be an array of status slugs');
    else if (pauses.length > MAX_PAUSE_STATUSES)
      addError(errors, `${path}.pause_statuses`, `at most ${MAX_PAUSE_STATUSES} statuses`);
    else statuses = [...new Set(pauses as string[])];
    if (warn !== null) {
      if (!Number.isInteger(warn) || (warn as number) < 1)
        addError(
          errors,
          `${path}.warn_before_minutes`,
          'warn_before_minutes must be a whole number of minutes, at least 1',
        );
      else if (minutesOk && (warn as number) >= (minutes as number))
        addError(errors, `${path}.warn_before_minutes`, 'warn_before_minutes must be less than minutes');
    }
    targets[kind as TargetKind] = {
      minutes: minutes as number,
      mode: mode as Target['mode'],
      pause_statuses: statuses,
      warn_before_minutes: warn as number | null,
    };
  }
  if (Object.keys(targets).length === 0 && Object.keys(errors).length === before)
    addError(errors, 'targets', 'a policy needs at least one target');
  return Object.keys(errors).length > before ? null : targets;
}

/** True when every criterion of `filter` holds for `facts`. */
export function matchesFilter(filter: PolicyFilter, facts: TicketFacts): boolean {
  const inList = (list: string[] | undefined, value: string | null): boolean =>
    list === undefined || (value !== null && list.includes(value));
  if (!inList(filter.priorities, facts.priority)) return false;
  if (!inList(filter.ticket_types, facts.ticket_type)) return false;
  if (!inList(filter.organizations, facts.organization)) return false;
  if (!inList(filter.requesters, facts.requester)) return false;
  const tags = new Set(facts.tags);
  if (filter.tags_any && !filter.tags_any.some((tag) => tags.has(tag))) return false;
  if (filter.tags_all && !filter.tags_all.every((tag) => tags.has(tag))) return false;
  if (filter.tags_none && filter.tags_none.some((tag) => tags.has(tag))) return false;
  for (const [field, accepted] of Object.entries(filter.custom_fields ?? {})) {
    const value = facts.custom_fields[field];
    const values = Array.isArray(value) ? value : [value];
    if (!values.some((v) => accepted.includes(v as string | number | boolean))) return false;
  }
  return true;
}

/**
 * The first policy (in the given order) whose filter matches; `usable`, when given, skips
 * policies it refuses (the clock engine skips those whose calendar is unknown). Null: none.
 */
export function selectPolicy(
  policies: readonly Policy[],
  facts: TicketFacts,
  usable?: (policy: Policy) => boolean,
): Policy | null {
  for (const policy of policies)
    if ((!usable || usable(policy)) && matchesFilter(policy.filter, facts)) return policy;
  return null;
}
