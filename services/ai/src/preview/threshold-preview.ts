/**
 * The threshold preview (docs/assistant.md, "Previewing a threshold"): what an action type would
 * have done over the last `windowDays` at a threshold, and at the current one, from the project's
 * recorded predictions and their labels (labels.ts); with fewer than MIN_LABELLED labelled ones,
 * from a leave-one-out backtest over the project's resolved tickets instead, marked `source:
 * "backtest"` (except for duplicates, which a backtest cannot label: their preview stays on the
 * recorded sample, however small).
 */
import { type AutonomyActionType } from '@tix/protos';
import type pg from 'pg';
import type { Retriever } from '../retrieval/retriever.js';
import { backtestPredictions } from '../evaluation/evaluate.js';
import { labelledPredictions } from './labels.js';
import { byValue, curveOf, figuresAt, type LabelledPrediction } from './threshold-figures.js';

/** Labelled predictions a preview needs before it trusts the recorded sample. */
export const MIN_LABELLED = 50;
/** The window a preview looks back on unless asked otherwise (days). */
export const PREVIEW_WINDOW_DAYS = 30;
/** Resolved tickets a backtest looks at (each is a retrieval: about 10 ms). */
export const BACKTEST_TICKETS = 300;

export interface PreviewRequest {
  projectId: number;
  actionType: AutonomyActionType;
  threshold: number;
  currentThreshold: number;
  windowDays: number;
  now?: Date;
}

export async function previewThreshold(
  deps: { pool: pg.Pool; retriever: Retriever },
  request: PreviewRequest,
) {
  const to = request.now ?? new Date();
  const from = new Date(to.getTime() - request.windowDays * 86_400_000);
  const recorded = await labelledPredictions(deps.pool, {
    projectId: request.projectId,
    actionType: request.actionType,
    from,
  });
  const labelled = recorded.filter((prediction) => prediction.label !== 'unknown').length;
  const backtest =
    labelled < MIN_LABELLED
      ? await backtestPredictions(deps, request.projectId, request.actionType, BACKTEST_TICKETS)
      : null;
  const source = backtest === null ? 'recorded' : 'backtest';
  const predictions: LabelledPrediction[] = backtest?.predictions ?? recorded;
  const considered = backtest?.considered ?? recorded.length;
  // Errors a week: the window's sample covers windowDays; a backtest's tickets were resolved over
  // any span, so its errors are scaled by how many tickets the project gets a week.
  const weeklyShare =
    backtest === null
      ? 7 / request.windowDays
      : backtest.considered === 0
        ? 0
        : ((await ticketsCreatedSince(deps.pool, request.projectId, from)) * 7) /
          request.windowDays /
          backtest.considered;
  const options = { considered, weeklyShare };
  const current = figuresAt(predictions, request.currentThreshold, options);
  return {
    action_type: request.actionType,
    source,
    window: { from: from.toISOString(), to: to.toISOString(), days: request.windowDays },
    sample: {
      predictions: predictions.length,
      labelled: predictions.filter((prediction) => prediction.label !== 'unknown').length,
      min_labelled: MIN_LABELLED,
    },
    at_threshold: figuresAt(predictions, request.threshold, options),
    current: {
      threshold: current.threshold,
      would_apply: current.would_apply,
      coverage: current.coverage,
      precision: current.precision,
      precision_ci95: current.precision_ci95,
    },
    curve: curveOf(predictions, considered),
    by_value: byValue(predictions, request.threshold),
  };
}

async function ticketsCreatedSince(pool: pg.Pool, projectId: number, from: Date): Promise<number> {
  const { rows } = await pool.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM ai_documents WHERE project_id = $1 AND created_at >= $2',
    [projectId, from],
  );
  return rows[0]?.count ?? 0;
}

export type ThresholdPreview = Awaited<ReturnType<typeof previewThreshold>>;
