/**
 * What a threshold would have done, from labelled predictions (docs/assistant.md): how many
 * predictions it lets through (would_apply, coverage), how many of those were right (precision,
 * with its 95 % Wilson interval: an honest range for small samples, never outside 0..1), and the
 * errors to expect. Pure arithmetic over whatever labelled the predictions: recorded outcomes, or a
 * backtest.
 */

/** What became of a prediction: right, wrong, or not known (yet). */
export type Label = 'correct' | 'incorrect' | 'unknown';

export interface LabelledPrediction {
  confidence: number;
  label: Label;
  /** The predicted value as a key for the per-value breakdown (`high`, `7`, `billing,login`). */
  value: string;
}

export interface ThresholdFigures {
  threshold: number;
  /** Predictions at or above the threshold. */
  would_apply: number;
  /** would_apply over every prediction considered. */
  coverage: number;
  /** Correct over labelled, among those at or above the threshold; null with none labelled. */
  precision: number | null;
  precision_ci95: [number, number] | null;
  /** Errors among would_apply at that precision (the unlabelled assumed to go as the labelled). */
  expected_errors: number;
  expected_errors_per_week: number;
}

export interface CurvePoint {
  threshold: number;
  coverage: number;
  precision: number | null;
}

export interface ValueFigures {
  value: string;
  would_apply: number;
  precision: number | null;
}

/** The curve's thresholds: 0.5 to 0.95 in steps of 0.05, then 0.99. */
export const CURVE_THRESHOLDS: readonly number[] = [
  ...Array.from({ length: 10 }, (_, i) => Math.round((0.5 + 0.05 * i) * 100) / 100),
  0.99,
];

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * The 95 % Wilson score interval of `successes` out of `trials` (null for no trials):
 * (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n).
 */
export function wilsonInterval(successes: number, trials: number, z = 1.96): [number, number] | null {
  if (trials === 0) return null;
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  return [round(Math.max(0, centre - half)), round(Math.min(1, centre + half))];
}

interface Counts {
  applied: number;
  correct: number;
  labelled: number;
}

function countAt(predictions: readonly LabelledPrediction[], threshold: number): Counts {
  const counts = { applied: 0, correct: 0, labelled: 0 };
  for (const prediction of predictions) {
    if (prediction.confidence < threshold) continue;
    counts.applied += 1;
    if (prediction.label === 'unknown') continue;
    counts.labelled += 1;
    if (prediction.label === 'correct') counts.correct += 1;
  }
  return counts;
}

const precisionOf = (counts: Counts) =>
  counts.labelled === 0 ? null : round(counts.correct / counts.labelled);

/**
 * The figures at `threshold` over `predictions`, with coverage over `considered` (every prediction
 * of the window, or every ticket of a backtest) and errors per week as the sample's expected errors
 * times `weeklyShare` (how many of such samples a week brings: 7 / days for a window's).
 */
export function figuresAt(
  predictions: readonly LabelledPrediction[],
  threshold: number,
  options: { considered: number; weeklyShare: number },
): ThresholdFigures {
  const counts = countAt(predictions, threshold);
  const precision = precisionOf(counts);
  const expectedErrors = precision === null ? 0 : Math.round(counts.applied * (1 - precision));
  return {
    threshold,
    would_apply: counts.applied,
    coverage: options.considered === 0 ? 0 : round(counts.applied / options.considered),
    precision,
    precision_ci95: wilsonInterval(counts.correct, counts.labelled),
    expected_errors: expectedErrors,
    expected_errors_per_week: round(expectedErrors * options.weeklyShare, 1),
  };
}

/** Coverage and precision at each of CURVE_THRESHOLDS. */
export function curveOf(predictions: readonly LabelledPrediction[], considered: number): CurvePoint[] {
  return CURVE_THRESHOLDS.map((threshold) => {
    const counts = countAt(predictions, threshold);
    return {
      threshold,
      coverage: considered === 0 ? 0 : round(counts.applied / considered),
      precision: precisionOf(counts),
    };
  });
}

/** Per predicted value, at `threshold`: how many would apply and how many of them were right. */
export function byValue(predictions: readonly LabelledPrediction[], threshold: number): ValueFigures[] {
  const groups = new Map<string, LabelledPrediction[]>();
  for (const prediction of predictions) {
    if (prediction.confidence < threshold) continue;
    groups.set(prediction.value, [...(groups.get(prediction.value) ?? []), prediction]);
  }
  return [...groups.entries()]
    .map(([value, group]) => {
      const counts = countAt(group, threshold);
      return { value, would_apply: counts.applied, precision: precisionOf(counts) };
    })
    .sort((a, b) => b.would_apply - a.would_apply || a.value.localeCompare(b.value));
}
