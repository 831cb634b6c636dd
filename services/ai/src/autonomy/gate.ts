/**
 * The kill switch's side of every autonomous action (docs/assistant.md, "The kill switch"): an
 * action is inserted only in a transaction that holds FOR SHARE locks on the global switch row and
 * the project's, having seen neither active. Kill takes its row FOR UPDATE, so it waits for every
 * gate in flight, and a gate that starts after a kill committed sees it: once ActivateKillSwitch
 * returns, no new action starts.
 */
import type pg from 'pg';
import { inTransaction } from '@tix/kit';

/** The project_id of the global switch's row (projects are numbered from 1). */
export const GLOBAL_SWITCH = 0;

export type KillScope = 'global' | 'project';

export type GateResult<T> = { passed: true; value: T } | { passed: false; killed: KillScope };

/** Creates the global row and the project's when missing, so that both can be locked. */
export const ENSURE_SWITCH_ROWS_SQL = `INSERT INTO ai_kill_switches (project_id) VALUES (${GLOBAL_SWITCH}), ($1)
  ON CONFLICT (project_id) DO NOTHING`;

/**
 * Runs `work` in a transaction holding FOR SHARE on the global and the project's kill switch rows,
 * unless one of them is active (then nothing runs: `{ passed: false, killed }`). `work` inserts the
 * action in that same transaction (the executor's job); the locks are held until it commits.
 */
export function withAutonomyGate<T>(
  pool: pg.Pool,
  projectId: number,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<GateResult<T>> {
  return inTransaction(pool, async (client) => {
    await client.query(ENSURE_SWITCH_ROWS_SQL, [projectId]);
    // In id order, as every locker takes them (kill takes one row only), so no deadlock.
    const { rows } = await client.query<{ project_id: number; active: boolean }>(
      `SELECT project_id, active FROM ai_kill_switches WHERE project_id IN (${GLOBAL_SWITCH}, $1)
        ORDER BY project_id FOR SHARE`,
      [projectId],
    );
    const killed = rows.find((row) => row.active);
    if (killed !== undefined)
      return { passed: false, killed: killed.project_id === GLOBAL_SWITCH ? 'global' : 'project' };
    return { passed: true, value: await work(client) };
  });
}
