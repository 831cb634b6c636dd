/**
 * What the delivery workers tell Prometheus: every attempt's outcome and how long it took.
 *
 *   tix_webhook_deliveries_total{outcome}  success         the receiver answered 2xx (delivery done)
 *                                          failed_attempt  an attempt failed; a retry is scheduled
 *                                          failed          the last attempt failed (delivery failed)
 *                                          abandoned       the subscription was deleted before an attempt
 *                                          interrupted     cut short by shutdown; given back, resumed later
 *   tix_webhook_attempt_seconds{result}    success | failure, name resolution and signing included
 */
import { defineCounter, defineHistogram } from '@tix/kit';

export type DeliveryOutcome = 'success' | 'failed_attempt' | 'failed' | 'abandoned' | 'interrupted';

/** Attempt latency buckets: receivers are slower than our own services; the spec's timeout is 10 s. */
const ATTEMPT_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const deliveries = () =>
  defineCounter({
    name: 'tix_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (success, failed_attempt, failed, abandoned, interrupted).',
    labelNames: ['outcome'] as const,
  });

const attemptSeconds = () =>
  defineHistogram({
    name: 'tix_webhook_attempt_seconds',
    help: 'Duration of one webhook delivery attempt, by result (success: 2xx; failure: anything else).',
    labelNames: ['result'] as const,
    buckets: ATTEMPT_BUCKETS,
  });

/** Counts one outcome; `durationMs` when a request was really attempted. */
export function recordDeliveryOutcome(outcome: DeliveryOutcome, durationMs?: number): void {
  deliveries().inc({ outcome });
  if (durationMs !== undefined) {
    attemptSeconds().observe({ result: outcome === 'success' ? 'success' : 'failure' }, durationMs / 1000);
  }
}
