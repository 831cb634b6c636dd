/**
 * Activity requests -> ActivityService messages (docs/activity.md): the filter of a feed request, and
 * who may see comment text. The answers' JSON is resources/presenters/activity.ts.
 */
import type { activity, Principal } from '@tix/protos';
import { givenFields } from '../../http/validate.js';
import { holdsScope } from '../../middleware/require-access.js';
import type { ActivityFilterQuery } from './activity.schemas.js';

/**
 * Whether comment text (excerpts, comment.* events) may be shown: the caller holds `comments:read`
 * (every signed-in role does; an API key only when given it).
 */
export function mayReadComments(principal: Principal): boolean {
  return holdsScope(principal, 'comments:read');
}

/** The ActivityFilter of a feed request; no project: every project. */
export function activityFilter(
  projectId: number | undefined,
  query: ActivityFilterQuery,
): activity.ActivityFilter {
  return {
    project_ids: projectId === undefined ? [] : [projectId],
    types: query.type ?? [],
    ...givenFields(query, 'ticket_id', 'actor_id', 'actor_kind', 'field', 'since', 'until'),
  };
}
