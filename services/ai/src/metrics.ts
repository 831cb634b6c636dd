/**
 * What the assistant tells Prometheus:
 *
 *   tix_ai_corpus_lag_seconds                 from a change (the event's occurred_at) to the corpus having it
 *   tix_ai_suggestions_total{outcome}         suggested | no_confident_match | insufficient_history
 *   tix_ai_provider_failures_total            model server calls that failed (answered from retrieval)
 */
import { defineCounter, defineHistogram } from '@tix/kit';

const LAG_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 30, 300];

const lag = () =>
  defineHistogram({
    name: 'tix_ai_corpus_lag_seconds',
    help: "Seconds from a change (the event's occurred_at) to the assistant's corpus having it.",
    buckets: LAG_BUCKETS,
  });

const suggestions = () =>
  defineCounter({
    name: 'tix_ai_suggestions_total',
    help: 'Suggest-reply requests by outcome (suggested, no_confident_match, insufficient_history).',
    labelNames: ['outcome'] as const,
  });

const providerFailures = () =>
  defineCounter({
    name: 'tix_ai_provider_failures_total',
    help: 'Model server calls that failed (timeout, error, malformed output); the answer came from retrieval.',
  });

export function recordCorpusLag(occurredAt: string): void {
  lag().observe(Math.max(0, Date.now() - Date.parse(occurredAt)) / 1000);
}

export function recordSuggestion(outcome: 'suggested' | 'no_confident_match' | 'insufficient_history'): void {
  suggestions().inc({ outcome });
}

export function recordProviderFailure(): void {
  providerFailures().inc();
}
