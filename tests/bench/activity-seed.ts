/**
 * Seeds the activity service's database (services/activity/prisma/migrations) with a desk's worth of
 * history, straight into its tables: one `INSERT ... SELECT generate_series` per batch of entries,
 * then the ticket_subjects the summaries name, then VACUUM ANALYZE (what autovacuum would have done
 * to a table that grew over months). The `events` stream table is left empty: the feed never reads it.
 *
 * The spread of a real desk: `tickets` tickets over the given projects; actors drawn with a skew (a
 * few busy agents, a long tail; see ACTOR_SKEW), the entry types of TYPE_MIX, and for ticket.updated
 * the 1-3 field changes of CHANGE_MIX; entries evenly spaced over SPAN_DAYS and numbered in that
 * order, as the consumer numbers them in commit order.
 */
import type pg from 'pg';

/** Who an entry says made the change (docs/activity.md: `actor.kind`). */
export interface SeedActor {
  kind: 'user' | 'api_key' | 'ai' | 'system';
  userId: number | null;
  apiKeyId: number | null;
}

export interface ActivitySeedPlan {
  entries: number;
  tickets: number;
  /** Ticket i belongs to projects[i % projects.length]. */
  projects: { id: number; prefix: string }[];
  actors: SeedActor[];
  /** Users that assignment changes move tickets between. */
  assigneeIds: number[];
  batchSize?: number;
}

export interface ActivitySeedResult {
  /** Seeded tickets are ticketIdBase .. ticketIdBase + tickets - 1. */
  ticketIdBase: number;
  entries: number;
  milliseconds: number;
  /** activities with its indexes, after VACUUM. */
  tableMiB: number;
}

/**
 * Seeded ticket ids start here: far above the ids of tickets the bench makes through the API, so a
 * seeded ticket's history and a live one's never mix.
 */
export const SEED_TICKET_ID_BASE = 1_000_000;

/** occurred_at runs over this many days up to a minute ago: inside the 90-day retention with a margin. */
export const SPAN_DAYS = 89.5;

/** Actors are drawn as floor(n * random()^ACTOR_SKEW): of 50, the first makes ~7% of entries, the last ~1.3%. */
const ACTOR_SKEW = 1.5;

/** Entry types after folding (one entry per write), and their shares. */
const TYPE_MIX: [type: string, share: number][] = [
  ['ticket.updated', 0.5],
  ['comment.created', 0.25],
  ['ticket.created', 0.1],
  ['attachment.created', 0.05],
  ['comment.updated', 0.04],
  ['comment.deleted', 0.02],
  ['attachment.deleted', 0.01],
  ['ticket.deleted', 0.01],
  ['ticket.restored', 0.01],
  ['ticket.merged', 0.01],
];

/** The `changes` of ticket.updated entries (1-3 fields, as a PUT, a drag on the board or a bulk edit makes). */
function changeMix(
  assignees: number[],
): [changes: Record<string, { from: unknown; to: unknown }>, share: number][] {
  const [first = null, second = null] = assignees;
  return [
    [{ status: { from: 'open', to: 'work_in_progress' } }, 0.16],
    [{ status: { from: 'work_in_progress', to: 'waiting' } }, 0.08],
    [
      {
        status: { from: 'waiting', to: 'closed' },
        resolution_type: { from: null, to: 'resolved' },
      },
      0.1,
    ],
    [{ priority: { from: 'medium', to: 'high' } }, 0.12],
    [{ assigned_to: { from: null, to: first } }, 0.14],
    [
      {
        status: { from: 'open', to: 'work_in_progress' },
        assigned_to: { from: null, to: second },
      },
      0.1,
    ],
    [{ tags: { from: [], to: ['billing'] } }, 0.08],
    [{ title: { from: 'Export fails', to: 'Export to CSV times out for large projects' } }, 0.05],
    [{ description: { from: 'It broke.', to: 'Steps to reproduce: open the export page, pick CSV.' } }, 0.05],
    [
      {
        priority: { from: 'medium', to: 'critical' },
        status: { from: 'open', to: 'work_in_progress' },
        assigned_to: { from: null, to: first },
      },
      0.05,
    ],
    [{ custom_fields: { from: { severity: 'low' }, to: { severity: 'high' } } }, 0.04],
    [{ assigned_to: { from: first, to: second } }, 0.03],
  ];
}

/** The lower bound of each share's bucket, for width_bucket(random(), starts). */
function bucketStarts(shares: number[]): number[] {
  const total = shares.reduce((sum, share) => sum + share, 0);
  let start = 0;
  return shares.map((share) => {
    const bucket = start;
    start += share / total;
    return bucket;
  });
}

const TITLES = [
  'Cannot log in after password reset',
  'Export to CSV times out for large projects',
  'Invoice shows the wrong VAT rate',
  'Webhook deliveries arrive twice',
  'Mobile app crashes when opening attachments',
  'Search ignores accented characters',
];

const EXCERPT =
  'Thanks for the details. I could reproduce it with the export from the saved view; a fix is on its way ' +
  'and I will update this ticket (reply %s).';

/**
 * One batch of entries, series values $1..$2 (1-based). r is drawn once per row; everything else
 * follows from it, so a row's type, changes and comment fields agree.
 */
const INSERT_ENTRIES = `
  WITH r AS (
    SELECT g,
           gen_random_uuid() AS event_id,
           to_timestamp(($3::float8 + (g - 1) * $4::float8) / 1000) AS occurred_at,
           floor(random() * $5::int)::int AS ticket,
           floor(cardinality($8::text[]) * power(random(), ${ACTOR_SKEW}))::int + 1 AS actor,
           ($11::text[])[width_bucket(random(), $12::float8[])] AS type,
           width_bucket(random(), $14::float8[]) - 1 AS change_set,
           random() < 0.2 AS internal
      FROM generate_series($1::int, $2::int) AS g
  )
  INSERT INTO activities (fold_key, event_id, type, occurred_at, recorded_at, project_id, actor_kind,
    actor_user_id, actor_api_key_id, ticket_id, changes, changed_fields, comment_id, comment_internal,
    comment_excerpt, filename)
  SELECT CASE WHEN type LIKE 'ticket.%' THEN format('ticket:%s:%s', $6::int + ticket, g)
              ELSE 'event:' || event_id END,
         event_id, type, occurred_at,
         occurred_at + interval '5 milliseconds' + random() * interval '40 milliseconds',
         ($7::int[])[ticket % cardinality($7::int[]) + 1],
         ($8::text[])[actor], ($9::int[])[actor], ($10::int[])[actor],
         $6::int + ticket,
         CASE WHEN type = 'ticket.updated' THEN $13::jsonb -> change_set ELSE '{}' END,
         CASE WHEN type = 'ticket.updated'
              THEN ARRAY(SELECT jsonb_object_keys($13::jsonb -> change_set)) ELSE '{}' END,
         CASE WHEN type LIKE 'comment.%' THEN g END,
         CASE WHEN type LIKE 'comment.%' THEN internal END,
         CASE WHEN type IN ('comment.created', 'comment.updated') THEN format($15::text, g) END,
         CASE WHEN type LIKE 'attachment.%' THEN format('screenshot-%s.png', g) END
    FROM r
   ORDER BY g`;

const INSERT_SUBJECTS = `
  INSERT INTO ticket_subjects (id, project_id, ticket_number, title, version)
  SELECT $1::int + t,
         ($2::int[])[t % cardinality($2::int[]) + 1],
         ($3::text[])[t % cardinality($2::int[]) + 1] || '-' || (t / cardinality($2::int[]) + 1),
         ($4::text[])[t % cardinality($4::text[]) + 1],
         1
    FROM generate_series(0, $5::int - 1) AS t`;

/** Seeds `plan.entries` entries into an empty activity log; answers the ticket ids and the time taken. */
export async function seedActivity(pool: pg.Pool, plan: ActivitySeedPlan): Promise<ActivitySeedResult> {
  const started = performance.now();
  const existing = await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM activities');
  if (existing.rows[0]!.count > plan.entries / 100) {
    throw new Error(`the activity log already has ${existing.rows[0]!.count} entries`);
  }
  const changes = changeMix(plan.assigneeIds);
  const spanMs = SPAN_DAYS * 86_400_000;
  const firstAt = Date.now() - 60_000 - spanMs;
  const values = (from: number, to: number) => [
    from,
    to,
    firstAt,
    spanMs / plan.entries,
    plan.tickets,
    SEED_TICKET_ID_BASE,
    plan.projects.map((project) => project.id),
    plan.actors.map((actor) => actor.kind),
    plan.actors.map((actor) => actor.userId),
    plan.actors.map((actor) => actor.apiKeyId),
    TYPE_MIX.map(([type]) => type),
    bucketStarts(TYPE_MIX.map(([, share]) => share)),
    JSON.stringify(changes.map(([change]) => change)),
    bucketStarts(changes.map(([, share]) => share)),
    EXCERPT,
  ];
  const batchSize = plan.batchSize ?? 100_000;
  for (let from = 1; from <= plan.entries; from += batchSize) {
    await pool.query(INSERT_ENTRIES, values(from, Math.min(from + batchSize - 1, plan.entries)));
  }
  await pool.query(INSERT_SUBJECTS, [
    SEED_TICKET_ID_BASE,
    plan.projects.map((project) => project.id),
    plan.projects.map((project) => project.prefix),
    TITLES,
    plan.tickets,
  ]);
  await pool.query('VACUUM (ANALYZE) activities, ticket_subjects');
  const size = await pool.query<{ bytes: string }>("SELECT pg_total_relation_size('activities') AS bytes");
  return {
    ticketIdBase: SEED_TICKET_ID_BASE,
    entries: plan.entries,
    milliseconds: performance.now() - started,
    tableMiB: Math.round(Number(size.rows[0]!.bytes) / 2 ** 20),
  };
}
