/**
 * What the activity service tells Prometheus:
 *
 *   tix_activity_events_total{outcome}        recorded   a new entry (and stream row, but for ai.*)
 *                                             folded     another event of an already recorded write
 *                                             duplicate  a redelivered event, nothing written
 *                                             ignored    an event that adds nothing to either log
 *                                                        (ai.action_executed, ai.action_reverted)
 *   tix_activity_entries_written_total        new activity entries
 *   tix_activity_consumer_lag_seconds         from the change (occurred_at) to its entry committed
 *   tix_activity_poll_requests_total{log}     polls of /activity/new (activities) and /v1/events (events)
 */
import { defineCounter, defineHistogram } from '@tix/kit';
import type { RecordOutcome } from './log/log-store.js';

/** Lag buckets: the target is p99 under 100 ms; a broker outage shows in the top ones. */
const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300];

const events = () =>
  defineCounter({
    name: 'tix_activity_events_total',
    help: 'Domain events consumed, by outcome (recorded, folded, duplicate, ignored).',
    labelNames: ['outcome'] as const,
  });

const entries = () =>
  defineCounter({ name: 'tix_activity_entries_written_total', help: 'Activity entries written.' });

const lag = () =>
  defineHistogram({
    name: 'tix_activity_consumer_lag_seconds',
    help: 'Seconds from a change (the event occurred_at) to its activity entry committed.',
    buckets: LAG_BUCKETS,
  });

const polls = () =>
  defineCounter({
    name: 'tix_activity_poll_requests_total',
    help: 'Cursor polls, by log (activities: /activity/new; events: /v1/events).',
    labelNames: ['log'] as const,
  });

export function recordConsumed(outcome: RecordOutcome, occurredAt: string): void {
  events().inc({ outcome });
  if (outcome === 'recorded') {
    entries().inc();
    lag().observe(Math.max(0, Date.now() - Date.parse(occurredAt)) / 1000);
  }
}

export function recordPoll(log: 'activities' | 'events'): void {
  polls().inc({ log });
}
