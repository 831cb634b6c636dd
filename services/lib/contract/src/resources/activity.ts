/**
 * An activity entry and a streamed event, as the API sends them: declared once here. The gateway's
 * presenters (resources/presenters/activity.ts) write them; its OpenAPI document names them
 * `Activity` and `StreamedEvent`.
 */
import { z } from 'zod';
import { idField as id, timestampField as timestamp } from './fields.js';

export const activityActorSchema = z
  .object({
    kind: z
      .string()
      .meta({ description: 'user (a signed-in person), api_key, ai (the assistant) or system.' }),
    user_id: id('The user who made the change (or on whose key or behalf it was made).').nullable(),
    name: z.string().nullable().meta({ description: "The user's name as it is now; null when unknown." }),
    api_key_id: id('The API key it was made with (kind api_key).').nullable(),
    via: z
      .object({ type: z.string(), id: z.number().int() })
      .nullable()
      .meta({ description: "What the change was made through on the actor's behalf (an assistant action)." }),
  })
  .meta({ id: 'ActivityActor', description: 'Who made a change.' });

export const activitySubjectSchema = z
  .object({
    type: z.string().meta({
      description:
        "`ticket`; for the assistant's project-wide entries `project`, or `all_projects` (id 0) for a global kill switch.",
    }),
    id: id('Ticket (or project) id.'),
    ticket_number: z.string().nullable(),
    title: z.string().nullable().meta({ description: 'The title as of the change.' }),
  })
  .meta({ id: 'ActivitySubject', description: 'What was changed.' });

export const activitySchema = z
  .object({
    id: z.number().int().meta({
      description: 'Entry id; entries are numbered in commit order (a later entry never has a lower id).',
    }),
    type: z.string().meta({
      description:
        'The most specific type of the write: ticket.created, ticket.updated, ticket.deleted, ticket.restored, ' +
        'ticket.merged, comment.created, comment.updated, comment.deleted, attachment.created, attachment.deleted, ' +
        'ai.guardrails_updated, ai.kill_switch_activated, ai.kill_switch_cleared, ai.action_acknowledged, ' +
        'ai.action_type_paused (session host only); tolerate new values.',
    }),
    occurred_at: timestamp('When the change was committed'),
    project_id: id('Project id.').nullable(),
    actor: activityActorSchema,
    subject: activitySubjectSchema,
    changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })).meta({
      description: 'The fields the write changed, by API name; `{}` for creations, comments and files.',
    }),
    comment: z
      .object({
        id: id('Comment id.'),
        is_internal: z.boolean(),
        excerpt: z.string().nullable().meta({
          description: 'At most 200 characters of the comment; null when you may not read comments.',
        }),
      })
      .nullable()
      .meta({ description: 'The comment of comment.* entries; null otherwise.' }),
    summary: z.string().meta({ description: 'One sentence for people, with names as they are now.' }),
  })
  .meta({ description: 'One user-visible change: one write, however many events it emitted.' });

export const streamedEventSchema = z
  .object({
    id: z
      .string()
      .meta({ description: 'Event id (UUID): the `webhook-id` of its webhook deliveries.', format: 'uuid' }),
    sequence: z.number().int().meta({ description: "The event's position in the stream (commit order)." }),
    event: z.string().meta({ description: 'Event type; tolerate new values.' }),
    timestamp: z.number().int().meta({ description: 'When it happened (Unix seconds).' }),
    data: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The resource as the API returns it: exactly what webhooks deliver.' }),
  })
  .meta({
    description: 'A domain event of the stream: its id and sequence, then the webhook delivery body.',
  });

/** An activity entry as the API sends it (the output of activitySchema). */
export type ActivityJson = z.output<typeof activitySchema>;
/** An event of the stream as the API sends it (the output of streamedEventSchema). */
export type StreamedEventJson = z.output<typeof streamedEventSchema>;
