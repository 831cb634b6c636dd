/**
 * Records the shadow predictions of new tickets apart from the corpus consumer: a ticket's row is
 * written and its event acknowledged at once (predictions cost far more than the row, and a burst of
 * new tickets must not hold up the corpus), and this worker predicts for every ticket whose
 * `predicted_at` is still null and that is still open, newest first (a backlog's fresh tickets
 * are the ones someone is triaging), then marks it. A ticket first seen already closed needs no
 * triage. Then the executor acts on them where the project's guardrails say auto. Durable: the
 * queue is the table, so a crash or a restart only delays predictions (and actions). Replicas may
 * work the same ticket at once; the predictions are unique per ticket and action type, so the second
 * pass adds nothing, and an action is inserted under the gate with the caps counted again.
 */
import { startPeriodicJob, type Logger, type PeriodicJob } from '@tix/kit';
import { recordPredictions, type PredictionDeps } from './predictions.js';

/** Tickets predicted per pass. */
export const PREDICTION_BATCH = 50;

export interface PredictionWorkerDeps extends PredictionDeps {
  /** Acts on the ticket's new predictions where the guardrails say auto (actions/executor.ts). */
  act?: (ticketId: number) => Promise<unknown>;
}

/** Predicts for up to PREDICTION_BATCH waiting tickets; resolves with how many it did. */
export async function predictPending(deps: PredictionWorkerDeps): Promise<number> {
  const { rows } = await deps.pool.query<{ ticket_id: number }>(
    `SELECT ticket_id FROM ai_documents WHERE predicted_at IS NULL AND NOT deleted AND NOT is_closed
      ORDER BY ticket_id DESC LIMIT ${PREDICTION_BATCH}`,
  );
  for (const { ticket_id: ticketId } of rows) {
    await recordPredictions(deps, ticketId);
    await deps.act?.(ticketId);
    await deps.pool.query('UPDATE ai_documents SET predicted_at = now() WHERE ticket_id = $1', [ticketId]);
  }
  return rows.length;
}

/** Starts the worker: a pass every `intervalMs` (default 200 ms), more at once while a backlog lasts. */
export function startPredictionWorker(
  options: PredictionWorkerDeps & { logger: Logger; intervalMs?: number },
): PeriodicJob<number> {
  return startPeriodicJob({
    name: 'prediction worker',
    intervalMs: options.intervalMs ?? 200,
    firstRunAfterMs: 0,
    logger: options.logger,
    run: async () => {
      let total = 0;
      for (;;) {
        const done = await predictPending(options);
        total += done;
        if (done < PREDICTION_BATCH) return total;
      }
    },
  });
}
