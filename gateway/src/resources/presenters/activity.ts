/**
 * ActivityService messages -> the API's JSON (docs/activity.md): an Activity (int64 ids as numbers,
 * absent optionals as null, changes parsed) and a streamed event (the webhook delivery body plus its
 * id and sequence). The request side (a feed's filter, who may see comment text) is
 * routes/v1/activity.mapping.ts.
 */
import { AppError } from '@tix/kit';
import type { activity, ActivityJson, StreamedEventJson } from '@tix/protos';
import { int64Number } from '../../services.js';

export function presentActivity(message: activity.Activity__Output): ActivityJson {
  const { actor, subject, comment } = message;
  if (!actor || !subject)
    throw AppError.internal(`the activity service sent entry ${message.id} without actor or subject`);
  return {
    id: int64Number(message.id, 'activity'),
    type: message.type,
    occurred_at: message.occurred_at,
    project_id: message.project_id ?? null,
    actor: {
      kind: actor.kind,
      user_id: actor.user_id ?? null,
      name: actor.name ?? null,
      api_key_id: actor.api_key_id ?? null,
      via: actor.via ? { type: actor.via.type, id: int64Number(actor.via.id, 'activity') } : null,
    },
    subject: {
      type: subject.type,
      id: subject.id,
      ticket_number: subject.ticket_number ?? null,
      title: subject.title ?? null,
    },
    changes: message.changes_json === '' ? {} : (JSON.parse(message.changes_json) as ActivityJson['changes']),
    comment: comment
      ? { id: comment.id, is_internal: comment.is_internal, excerpt: comment.excerpt ?? null }
      : null,
    summary: message.summary,
  };
}

/** A page of entries with its pagination (the feed, a ticket's history). */
export function presentActivityPage(page: activity.ActivityPage__Output) {
  if (!page.pagination) throw AppError.internal('the activity service answered a page without pagination');
  return { activities: page.activities.map(presentActivity), pagination: page.pagination };
}

/** An event of the stream: `{ id, sequence }` and then exactly what a webhook receives. */
export function presentStreamedEvent(message: activity.StreamedEvent__Output): StreamedEventJson {
  const body = JSON.parse(message.body_json) as Omit<StreamedEventJson, 'id' | 'sequence'>;
  return { id: message.id, sequence: int64Number(message.sequence, 'activity'), ...body };
}
