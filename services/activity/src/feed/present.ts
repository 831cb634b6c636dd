/**
 * Entries as the contract's Activity messages: actor names and merge targets resolved in one batch
 * per read, the summary composed (summary.ts), and a comment's excerpt only for callers who may read
 * comments.
 */
import type { CallContext } from '@tix/kit';
import type { activity } from '@tix/protos';
import type { ActivityRow, FeedStore } from './feed-store.js';
import type { People } from './people.js';
import { summarize } from './summary.js';

export interface PresentDeps {
  feed: Pick<FeedStore, 'subjects'>;
  people: People;
}

const isId = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);

/** Users a page names: actors and the people an assignment moved between. */
function userIdsOf(rows: readonly ActivityRow[]): number[] {
  const ids: number[] = [];
  for (const row of rows) {
    if (row.actor_user_id !== null) ids.push(row.actor_user_id);
    const assigned = row.changes.assigned_to;
    if (assigned) ids.push(...[assigned.from, assigned.to].filter(isId));
  }
  return ids;
}

/**
 * What an entry is about: its ticket; else its project (the assistant's guardrails, kill switch or
 * a paused action type there); else every project (the global kill switch), id 0.
 */
function subjectOf(row: ActivityRow): activity.Subject {
  if (row.ticket_id !== null)
    return {
      type: 'ticket',
      id: row.ticket_id,
      ...(row.ticket_number === null ? {} : { ticket_number: row.ticket_number }),
      ...(row.title === null ? {} : { title: row.title }),
    };
  if (row.project_id !== null) return { type: 'project', id: row.project_id };
  return { type: 'all_projects', id: 0 };
}

export async function presentActivities(
  deps: PresentDeps,
  rows: readonly ActivityRow[],
  options: { includeCommentText: boolean; caller: Pick<CallContext, 'correlationId' | 'principal'> },
): Promise<activity.Activity[]> {
  if (rows.length === 0) return [];
  const mergeTargets = rows.map((row) => row.changes.merged_into_id?.to).filter(isId);
  const [names, tickets] = await Promise.all([
    deps.people.names(userIdsOf(rows), options.caller),
    deps.feed.subjects(mergeTargets),
  ]);
  const lookup = {
    user: (id: number) => names.get(id) ?? null,
    ticket: (id: number) => tickets.get(id) ?? null,
  };
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    occurred_at: row.occurred_at.toISOString(),
    ...(row.project_id === null ? {} : { project_id: row.project_id }),
    actor: {
      kind: row.actor_kind,
      ...(row.actor_user_id === null ? {} : { user_id: row.actor_user_id }),
      ...(row.actor_api_key_id === null ? {} : { api_key_id: row.actor_api_key_id }),
      ...(row.actor_user_id !== null && names.has(row.actor_user_id)
        ? { name: names.get(row.actor_user_id) }
        : {}),
      ...(row.via_type === null || row.via_id === null
        ? {}
        : { via: { type: row.via_type, id: row.via_id } }),
    },
    subject: subjectOf(row),
    changes_json: JSON.stringify(row.changes),
    ...(row.comment_id === null
      ? {}
      : {
          comment: {
            id: row.comment_id,
            is_internal: row.comment_internal ?? true,
            ...(options.includeCommentText && row.comment_excerpt !== null
              ? { excerpt: row.comment_excerpt }
              : {}),
          },
        }),
    summary: summarize(row, lookup),
  }));
}
