/**
 * Bulk seeding straight into the ticket service's tables (services/tickets/prisma/migrations): one
 * `INSERT ... SELECT generate_series` per batch, then project_counters set so that creates continue
 * the numbering, then VACUUM ANALYZE so both targets start from the same, planned, visible data.
 *
 * The data is spread like a real project: most tickets closed, medium the commonest priority, a
 * fifth unassigned, some tagged, one ticket every five minutes over the past year (ids grow with
 * created_at). Lane ranks are increasing fractional-indexing keys per lane (see lane-rank.ts), so the
 * service can place new tickets before, between or after them.
 */
import type pg from 'pg';
import type { BenchEnvironment } from './environment.js';
import { seededLaneRankSql } from './lane-rank.js';

export interface SeedPlan {
  projectId: number;
  ticketTypeId: number;
  /** Status slugs in workflow order; the last one of the default workflow is `closed`. */
  statuses: { slug: string; is_closed: boolean }[];
  createdBy: number;
  assigneeIds: number[];
  tickets: number;
  batchSize?: number;
  /** false: leave VACUUM ANALYZE to the caller (seedProjects runs it once after every project). */
  vacuum?: boolean;
}

export interface SeedResult {
  /** Seeded ids are exactly firstId..lastId. */
  firstId: number;
  lastId: number;
  milliseconds: number;
}

/** The plan that seeds `tickets` tickets into the bench environment's project, by its user and assignees. */
export function seedPlanOf(environment: BenchEnvironment, tickets: number): SeedPlan {
  return {
    projectId: environment.project.id,
    ticketTypeId: environment.ticketTypeId,
    statuses: environment.project.statuses,
    createdBy: environment.userId,
    assigneeIds: environment.assigneeIds,
    tickets,
  };
}

/**
 * Which status each of ten consecutive tickets gets: for the default workflow 20% open, 10% in
 * progress, 10% waiting, 60% closed; for any other workflow an even spread.
 */
function statusPattern(statuses: SeedPlan['statuses']): number[] {
  const slugs = statuses.map((status) => status.slug).join(',');
  if (slugs === 'open,work_in_progress,waiting,closed') return [0, 0, 1, 2, 3, 3, 3, 3, 3, 3];
  return statuses.map((_, index) => index);
}

/**
 * For slot p of the pattern: its status, how many earlier slots of the period have that status (its
 * rank inside the period's share of the lane), and how many slots per period that status has.
 */
function laneIndexTables(pattern: number[], statusCount: number) {
  const perPeriod = Array.from({ length: statusCount }, () => 0);
  const rankInPeriod = pattern.map((status) => {
    const rank = perPeriod[status]!;
    perPeriod[status] = rank + 1;
    return rank;
  });
  return { rankInPeriod, perPeriod };
}

const PRIORITY_PATTERN = [
  'low',
  'medium',
  'medium',
  'high',
  'medium',
  'critical',
  'medium',
  'low',
  'high',
  'medium',
];
const TITLES = [
  'Cannot log in after password reset',
  'Export to CSV times out for large projects',
  'Invoice shows the wrong VAT rate',
  'Webhook deliveries arrive twice',
  'Mobile app crashes when opening attachments',
  'Search ignores accented characters',
  'Request: dark mode for the dashboard',
  'Board does not refresh after moving a card',
];
const DESCRIPTIONS = [
  'Steps to reproduce: open the project, apply the filter from the saved view, then reload the page. ' +
    'Expected the list to keep its order; instead it jumps back to the first page. Seen on two browsers.',
  'The customer writes that the export started an hour ago and still shows the spinner. They need the ' +
    'numbers for the quarterly report tomorrow morning.',
  'Happens only for accounts created before the migration. Logs show a timeout talking to the mail ' +
    'provider; retrying by hand works.',
];

/**
 * Words the scale bench searches with `q`: the rare one is in one ticket of RARE_WORD_EVERY (a few
 * per project even at a million), the common one in one of COMMON_WORD_EVERY. Neither appears in
 * any other seeded text, so the match counts are known.
 */
export const RARE_WORD = 'zeppelin';
export const RARE_WORD_EVERY = 20_000;
export const COMMON_WORD = 'refund';
export const COMMON_WORD_EVERY = 100;
/** Tags: two common ones (billing a third, mobile+urgent a seventh) and RARE_TAGS rare ones. */
export const COMMON_TAG = 'mobile';
const RARE_TAGS = 500;

/** The INSERT of one batch: tickets with project_ref_id (and series value) from $1 to $2. */
function insertBatchSql(plan: SeedPlan, pattern: number[]): string {
  const { rankInPeriod, perPeriod } = laneIndexTables(pattern, plan.statuses.length);
  const period = pattern.length;
  // g is 1-based; slot = (g - 1) % period; lane index = full periods before g * share + rank in period.
  // Priority and assignee also move with g / period, so they are not tied to the status slot.
  const slot = `((g - 1) % ${period})`;
  const statusIndex = `(ARRAY[${pattern.join(',')}])[${slot} + 1]`;
  const laneIndex =
    `((g - 1) / ${period}) * (ARRAY[${perPeriod.join(',')}])[${statusIndex} + 1]` +
    ` + (ARRAY[${rankInPeriod.join(',')}])[${slot} + 1]`;
  const closed = plan.statuses.map((status) => String(status.is_closed)).join(',');
  const slugs = plan.statuses.map((status) => `'${status.slug.replace(/'/g, "''")}'`).join(',');
  const titles = TITLES.map((title) => `'${title.replace(/'/g, "''")}'`).join(',');
  const descriptions = DESCRIPTIONS.map((text) => `'${text.replace(/'/g, "''")}'`).join(',');
  const priorities = PRIORITY_PATTERN.map((priority) => `'${priority}'`).join(',');
  const assignees = plan.assigneeIds.length > 0 ? plan.assigneeIds.join(',') : 'NULL';
  return `
    INSERT INTO tickets (project_id, ticket_type_id, project_ref_id, title, description, status, priority,
      assigned_to, created_by, custom_fields, source_type, resolution_type, tags, version, lane_rank,
      created_at, updated_at)
    SELECT ${plan.projectId}, ${plan.ticketTypeId}, g,
      (ARRAY[${titles}])[g % ${TITLES.length} + 1] || ' (#' || g || ')'
        || CASE WHEN g % ${RARE_WORD_EVERY} = 7 THEN ' ${RARE_WORD}'
                WHEN g % ${COMMON_WORD_EVERY} = 3 THEN ' ${COMMON_WORD}' ELSE '' END,
      CASE WHEN g % 4 = 0 THEN NULL ELSE (ARRAY[${descriptions}])[g % ${DESCRIPTIONS.length} + 1] END,
      (ARRAY[${slugs}])[${statusIndex} + 1],
      ((ARRAY[${priorities}])[(g * 7 + g / ${period}) % ${PRIORITY_PATTERN.length} + 1])::ticket_priority,
      CASE WHEN (g / ${period}) % 5 = 0 THEN NULL
        ELSE (ARRAY[${assignees}]::int[])[(g + g / ${period}) % ${Math.max(plan.assigneeIds.length, 1)} + 1] END,
      ${plan.createdBy}, '{}'::jsonb, 'api',
      CASE WHEN (ARRAY[${closed}])[${statusIndex} + 1] THEN 'resolved'::resolution_type END,
      CASE WHEN g % 3 = 0 THEN ARRAY['billing'] WHEN g % 7 = 0 THEN ARRAY['${COMMON_TAG}', 'urgent']
        WHEN g % 11 = 0 THEN ARRAY['customer-' || (g / 11) % ${RARE_TAGS}] ELSE ARRAY[]::text[] END,
      1, ${seededLaneRankSql(laneIndex, plan.tickets)},
      now() - (${plan.tickets} - g) * interval '5 minutes',
      now() - (${plan.tickets} - g) * interval '5 minutes'
    FROM generate_series($1::int, $2::int) AS g`;
}

/** Seeds `plan.tickets` tickets into an empty project and returns their id range and the time taken. */
export async function seedTickets(pool: pg.Pool, plan: SeedPlan): Promise<SeedResult> {
  const started = performance.now();
  const existing = await pool.query<{ count: string }>('SELECT count(*) FROM tickets WHERE project_id = $1', [
    plan.projectId,
  ]);
  if (Number(existing.rows[0]!.count) !== 0) throw new Error(`project ${plan.projectId} already has tickets`);
  const sql = insertBatchSql(plan, statusPattern(plan.statuses));
  const batchSize = plan.batchSize ?? 10_000;
  for (let from = 1; from <= plan.tickets; from += batchSize) {
    await pool.query(sql, [from, Math.min(from + batchSize - 1, plan.tickets)]);
  }
  await pool.query(
    `INSERT INTO project_counters (project_id, last_ref_id) VALUES ($1, $2)
     ON CONFLICT (project_id) DO UPDATE SET last_ref_id = EXCLUDED.last_ref_id`,
    [plan.projectId, plan.tickets],
  );
  if (plan.vacuum !== false) await pool.query('VACUUM (ANALYZE) tickets');
  const range = await pool.query<{ first: number; last: number; count: string }>(
    'SELECT min(id) AS first, max(id) AS last, count(*) FROM tickets WHERE project_id = $1',
    [plan.projectId],
  );
  const { first, last, count } = range.rows[0]!;
  if (Number(count) !== plan.tickets || last - first + 1 !== plan.tickets) {
    throw new Error(`seeded ids are not one contiguous range (${first}..${last}, ${count} rows)`);
  }
  return { firstId: first, lastId: last, milliseconds: performance.now() - started };
}

/**
 * The scale bench's data: `plan.tickets` spread evenly over `projects` projects. The first is the
 * measured project (its ids come first and stay one contiguous range); the others take project ids
 * after `otherProjectIdsFrom` and exist only in the tickets table, so the indexes and the planner see
 * a table of the full size while each query still filters to one project, as in production.
 */
export async function seedProjects(
  pool: pg.Pool,
  plan: SeedPlan,
  projects: number,
  otherProjectIdsFrom: number,
): Promise<SeedResult> {
  const started = performance.now();
  const perProject = Math.floor(plan.tickets / projects);
  const measured = await seedTickets(pool, {
    ...plan,
    tickets: plan.tickets - perProject * (projects - 1),
    vacuum: false,
  });
  for (let index = 1; index < projects; index += 1) {
    await seedTickets(pool, {
      ...plan,
      projectId: otherProjectIdsFrom + index,
      tickets: perProject,
      vacuum: false,
    });
  }
  await pool.query('VACUUM (ANALYZE) tickets');
  return { ...measured, milliseconds: performance.now() - started };
}

/**
 * Removes the tickets the create measurements added (ids after the seeded range), so every round of
 * list and board reads the same 100,000 tickets. Counters are left alone: numbering keeps going up.
 */
export async function removeCreatedTickets(
  pool: pg.Pool,
  projectId: number,
  lastSeededId: number,
): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM tickets WHERE project_id = $1 AND id > $2', [
    projectId,
    lastSeededId,
  ]);
  await pool.query('VACUUM (ANALYZE) tickets');
  return rowCount ?? 0;
}
