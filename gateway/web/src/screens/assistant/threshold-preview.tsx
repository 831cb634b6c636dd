/**
 * What a threshold would have done (GET /ai/autonomy/threshold-preview): the figures at the chosen and
 * the current threshold with precision's 95% Wilson interval, the coverage/precision curve as a table
 * and as a hand-written SVG chart (the interval drawn as a band at both thresholds), and the breakdown
 * by value. A preview computed by backtest (too few labelled decisions) says so, in words and style.
 */
import { useEffect, useId, useState } from 'preact/hooks';
import { defaultGuardrails, PREVIEW_LIMITS, thresholdBound } from '@tix/contract';
import { api, call, fieldErrorsOf, showError } from '../../api/client';
import type { operations } from '../../generated/api';
import { Loading } from '../../ui/empty-state';
import { ACTION_TYPES, actionLabel, percent, type ActionType } from './format';
// The guardrails screen's sheet, for the form and this preview.
import { Options, optionsOf } from '../../ui/field';
import { ColumnHeads } from '../../ui/table';

type PreviewQuery = operations['previewAutonomyThreshold']['parameters']['query'];

async function loadPreview(query: PreviewQuery) {
  return (await call(api.GET('/ai/autonomy/threshold-preview', { params: { query } }))).preview;
}
type Preview = Awaited<ReturnType<typeof loadPreview>>;
type Point = Preview['curve'][number];

const CHART = { width: 520, height: 280, left: 48, right: 16, top: 16, bottom: 40 } as const;
const X_MIN = PREVIEW_LIMITS.minThreshold;
const X_MAX = 1;

const x = (threshold: number) =>
  CHART.left + ((threshold - X_MIN) / (X_MAX - X_MIN)) * (CHART.width - CHART.left - CHART.right);
const y = (share: number) => CHART.top + (1 - share) * (CHART.height - CHART.top - CHART.bottom);

/** An SVG path through the points that have a value (a gap where precision is unknown). */
export function linePath(curve: Point[], value: (point: Point) => number | null): string {
  let path = '';
  let drawing = false;
  for (const point of curve) {
    const share = value(point);
    if (share === null) {
      drawing = false;
      continue;
    }
    path += `${drawing ? 'L' : 'M'}${x(point.threshold).toFixed(1)} ${y(share).toFixed(1)} `;
    drawing = true;
  }
  return path.trim();
}

function interval(ci: readonly number[] | null): string {
  return ci ? `${percent(ci[0])}–${percent(ci[1])}` : 'unknown';
}

function IntervalBand({
  threshold,
  ci,
  kind,
}: {
  threshold: number;
  ci: readonly number[] | null;
  kind: string;
}) {
  if (ci?.length !== 2) return null;
  const [low, high] = ci as [number, number];
  const centre = x(threshold);
  return (
    <g class={`preview-interval preview-interval-${kind}`}>
      <line x1={centre} x2={centre} y1={y(low)} y2={y(high)} />
      <line x1={centre - 6} x2={centre + 6} y1={y(low)} y2={y(low)} />
      <line x1={centre - 6} x2={centre + 6} y1={y(high)} y2={y(high)} />
    </g>
  );
}

export function PreviewChart({ preview }: { preview: Preview }) {
  const titleId = useId();
  const backtest = preview.source === 'backtest';
  const at = preview.at_threshold;
  const ticks = [0.5, 0.6, 0.7, 0.8, 0.9, 1];
  return (
    <figure class={`preview-figure${backtest ? ' preview-backtest' : ''}`}>
      <svg
        class="preview-chart"
        viewBox={`0 0 ${CHART.width} ${CHART.height}`}
        role="img"
        aria-labelledby={`${titleId}-title ${titleId}-desc`}
      >
        <title id={`${titleId}-title`}>
          Coverage and precision by threshold{backtest ? ' (backtest)' : ''}
        </title>
        <desc id={`${titleId}-desc`}>
          At {at.threshold}: coverage {percent(at.coverage)}, precision {percent(at.precision)} (95% interval{' '}
          {interval(at.precision_ci95)}).
        </desc>
        {[0, 0.25, 0.5, 0.75, 1].map((share) => (
          <g key={share} class="preview-grid">
            <line x1={CHART.left} x2={CHART.width - CHART.right} y1={y(share)} y2={y(share)} />
            <text x={CHART.left - 6} y={y(share) + 4} text-anchor="end">
              {percent(share)}
            </text>
          </g>
        ))}
        {ticks.map((tick) => (
          <text
            key={tick}
            class="preview-axis"
            x={x(tick)}
            y={CHART.height - CHART.bottom + 16}
            text-anchor="middle"
          >
            {tick}
          </text>
        ))}
        <text
          class="preview-axis"
          x={(CHART.left + CHART.width) / 2}
          y={CHART.height - 4}
          text-anchor="middle"
        >
          Threshold
        </text>
        <line
          class="preview-marker preview-marker-current"
          x1={x(preview.current.threshold)}
          x2={x(preview.current.threshold)}
          y1={y(1)}
          y2={y(0)}
        />
        <line
          class="preview-marker preview-marker-chosen"
          x1={x(at.threshold)}
          x2={x(at.threshold)}
          y1={y(1)}
          y2={y(0)}
        />
        <path class="preview-line preview-coverage" d={linePath(preview.curve, (point) => point.coverage)} />
        <path
          class="preview-line preview-precision"
          d={linePath(preview.curve, (point) => point.precision)}
        />
        <IntervalBand
          threshold={preview.current.threshold}
          ci={preview.current.precision_ci95}
          kind="current"
        />
        <IntervalBand threshold={at.threshold} ci={at.precision_ci95} kind="chosen" />
      </svg>
      <figcaption>
        <span class="preview-key preview-key-coverage">Coverage</span>{' '}
        <span class="preview-key preview-key-precision">Precision</span>{' '}
        <span class="preview-key preview-key-chosen">Chosen threshold</span>{' '}
        <span class="preview-key preview-key-current">Current threshold</span> · bars: 95% Wilson interval of
        precision
        {backtest && (
          <strong class="preview-backtest-label">
            {' '}
            · Backtest: only {preview.sample.labelled} labelled decisions (fewer than{' '}
            {preview.sample.min_labelled}
            ), so these figures replay the project's resolved tickets
          </strong>
        )}
      </figcaption>
    </figure>
  );
}

function PreviewTables({ preview }: { preview: Preview }) {
  const at = preview.at_threshold;
  const current = preview.current;
  const near = (a: number, b: number) => Math.abs(a - b) < 0.001;
  return (
    <>
      <table class="preview-table preview-summary">
        <caption>
          Last {preview.window.days} days: {preview.sample.predictions} predictions, {preview.sample.labelled}{' '}
          with a known outcome ({preview.source === 'backtest' ? 'backtest' : 'recorded'})
        </caption>
        <ColumnHeads
          columns={['Threshold', 'Would apply', 'Coverage', 'Precision (95% interval)', 'Errors a week']}
        />
        <tbody>
          <tr>
            <th scope="row">Chosen {at.threshold}</th>
            <td>{at.would_apply}</td>
            <td>{percent(at.coverage)}</td>
            <td>
              {percent(at.precision)} ({interval(at.precision_ci95)})
            </td>
            <td>{at.expected_errors_per_week.toFixed(1)}</td>
          </tr>
          <tr>
            <th scope="row">Current {current.threshold}</th>
            <td>{current.would_apply}</td>
            <td>{percent(current.coverage)}</td>
            <td>
              {percent(current.precision)} ({interval(current.precision_ci95)})
            </td>
            <td>–</td>
          </tr>
        </tbody>
      </table>
      <table class="preview-table preview-curve">
        <caption>The curve</caption>
        <ColumnHeads columns={['Threshold', 'Coverage', 'Precision']} />
        <tbody>
          {preview.curve.map((point) => (
            <tr
              key={point.threshold}
              class={near(point.threshold, at.threshold) ? 'preview-row-chosen' : undefined}
              aria-current={near(point.threshold, at.threshold) ? 'true' : undefined}
            >
              <th scope="row">{point.threshold}</th>
              <td>{percent(point.coverage)}</td>
              <td>{percent(point.precision)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {preview.by_value.length > 0 && (
        <table class="preview-table">
          <caption>By value at the chosen threshold</caption>
          <ColumnHeads columns={['Value', 'Would apply', 'Precision']} />
          <tbody>
            {preview.by_value.map((row) => (
              <tr key={row.value}>
                <th scope="row">{row.value}</th>
                <td>{row.would_apply}</td>
                <td>{percent(row.precision)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** The threshold an action type starts with (the guardrails' defaults). */
const defaultThreshold = (type: ActionType) => defaultGuardrails().actions[type].threshold;

export function ThresholdPreview({
  projectId,
  currentThresholds,
}: {
  projectId: number;
  currentThresholds: Partial<Record<ActionType, number>>;
}) {
  const [type, setType] = useState<ActionType>('set_priority');
  const [threshold, setThreshold] = useState<string>(
    String(currentThresholds.set_priority ?? defaultThreshold('set_priority')),
  );
  const [days, setDays] = useState(String(PREVIEW_LIMITS.windowDays));
  const [preview, setPreview] = useState<Preview | null>(null);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [loading, setLoading] = useState(false);
  const id = useId();

  useEffect(() => {
    let current = true;
    setLoading(true);
    loadPreview({
      project_id: projectId,
      action_type: type,
      ...(threshold ? { threshold } : {}),
      ...(days ? { window_days: Number(days) } : {}),
    })
      .then((answer) => {
        if (!current) return;
        setPreview(answer);
        setErrors({});
      })
      .catch((error: unknown) => {
        const fieldErrors = fieldErrorsOf(error);
        if (fieldErrors && current) setErrors(fieldErrors);
        else showError(error);
      })
      .finally(() => {
        if (current) setLoading(false);
      });
    return () => {
      current = false;
    };
  }, [projectId, type, threshold, days]);

  return (
    <section class="preview" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Threshold preview</h2>
      <div class="filters">
        <label>
          Action
          <select
            value={type}
            onChange={(event) => {
              const next = event.currentTarget.value as ActionType;
              setType(next);
              setThreshold(String(currentThresholds[next] ?? defaultThreshold(next)));
            }}
          >
            <Options options={optionsOf(ACTION_TYPES, actionLabel)} />
          </select>
        </label>
        <label>
          Threshold
          <input
            type="number"
            name="threshold"
            min={PREVIEW_LIMITS.minThreshold}
            max={PREVIEW_LIMITS.maxThreshold}
            step={thresholdBound(type).step}
            value={threshold}
            onChange={(event) => setThreshold(event.currentTarget.value)}
            aria-invalid={errors.threshold ? 'true' : undefined}
          />
          {errors.threshold && <span class="field-errors">{errors.threshold.join('; ')}</span>}
        </label>
        <label>
          Days
          <input
            type="number"
            name="window_days"
            min={1}
            max={PREVIEW_LIMITS.maxWindowDays}
            step={1}
            value={days}
            onChange={(event) => setDays(event.currentTarget.value)}
            aria-invalid={errors.window_days ? 'true' : undefined}
          />
          {errors.window_days && <span class="field-errors">{errors.window_days.join('; ')}</span>}
        </label>
      </div>
      {!preview ? (
        <Loading what="the preview" />
      ) : (
        <div
          class="preview-body"
          data-preview-source={preview.source}
          aria-busy={loading ? 'true' : undefined}
        >
          <PreviewChart preview={preview} />
          <PreviewTables preview={preview} />
        </div>
      )}
    </section>
  );
}
