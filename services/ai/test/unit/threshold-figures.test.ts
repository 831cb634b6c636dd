import { expect } from 'chai';
import { seededRandom } from '@tix/support-corpus';
import {
  byValue,
  CURVE_THRESHOLDS,
  curveOf,
  figuresAt,
  wilsonInterval,
  type LabelledPrediction,
} from '../../src/preview/threshold-figures.js';

const labelled = (
  confidence: number,
  label: LabelledPrediction['label'],
  value = 'high',
): LabelledPrediction => ({
  confidence,
  label,
  value,
});

describe('threshold figures', () => {
  it('gives the Wilson interval of known samples, and none without trials', () => {
    expect(wilsonInterval(8, 10)).to.deep.equal([0.49, 0.943]);
    expect(wilsonInterval(0, 5)).to.deep.equal([0, 0.434]);
    expect(wilsonInterval(5, 5)).to.deep.equal([0.566, 1]);
    expect(wilsonInterval(0, 0)).to.equal(null);
  });

  it('keeps every interval inside 0..1 and around the observed share, narrowing as samples grow', () => {
    const random = seededRandom(7);
    for (let run = 0; run < 500; run++) {
      const trials = random.int(1, 400);
      const successes = random.int(0, trials);
      const [low, high] = wilsonInterval(successes, trials)!;
      const share = successes / trials;
      expect(low)
        .to.be.at.least(0)
        .and.at.most(share + 1e-3);
      expect(high)
        .to.be.at.most(1)
        .and.at.least(share - 1e-3);
      const [wideLow, wideHigh] = wilsonInterval(successes, trials)!;
      const [narrowLow, narrowHigh] = wilsonInterval(successes * 10, trials * 10)!;
      expect(narrowHigh - narrowLow).to.be.at.most(wideHigh - wideLow + 1e-3);
    }
  });

  it('counts what a threshold lets through, its precision over the labelled, and the errors to expect', () => {
    const predictions = [
      labelled(0.95, 'correct'),
      labelled(0.9, 'correct'),
      labelled(0.85, 'incorrect', 'low'),
      labelled(0.82, 'unknown'),
      labelled(0.6, 'incorrect'),
    ];
    const figures = figuresAt(predictions, 0.8, { considered: 10, weeklyShare: 7 / 14 });
    expect(figures).to.deep.equal({
      threshold: 0.8,
      would_apply: 4,
      coverage: 0.4,
      precision: 0.667,
      precision_ci95: wilsonInterval(2, 3),
      expected_errors: 1,
      expected_errors_per_week: 0.5,
    });
    expect(figuresAt(predictions, 0.99, { considered: 10, weeklyShare: 7 / 14 })).to.include({
      would_apply: 0,
      precision: null,
      precision_ci95: null,
      expected_errors: 0,
    });
  });

  it('draws the curve from 0.5 to 0.99, coverage never growing with the threshold', () => {
    const random = seededRandom(3);
    const predictions = Array.from({ length: 300 }, () =>
      labelled(random.next(), random.pick(['correct', 'incorrect', 'unknown'] as const)),
    );
    const curve = curveOf(predictions, 300);
    expect(curve.map((point) => point.threshold)).to.deep.equal(CURVE_THRESHOLDS);
    expect(CURVE_THRESHOLDS.at(0)).to.equal(0.5);
    expect(CURVE_THRESHOLDS.at(-1)).to.equal(0.99);
    curve.slice(1).forEach((point, i) => expect(point.coverage).to.be.at.most(curve[i]!.coverage));
  });

  it('breaks the figures down by predicted value, the most applied first', () => {
    const predictions = [
      labelled(0.9, 'correct', 'high'),
      labelled(0.9, 'incorrect', 'high'),
      labelled(0.9, 'correct', 'low'),
      labelled(0.95, 'correct', 'high'),
      labelled(0.5, 'correct', 'urgent'),
    ];
    expect(byValue(predictions, 0.8)).to.deep.equal([
      { value: 'high', would_apply: 3, precision: 0.667 },
      { value: 'low', would_apply: 1, precision: 1 },
    ]);
  });
});
