/** A delivery as the workers hold it between its attempts. */
import type { ClaimedDelivery } from './delivery-queue-store.js';
import type { AttemptTarget } from './perform-attempt.js';

export interface Job extends AttemptTarget {
  host: string;
  webhookId: number;
  /** Number of the next attempt. */
  next: number;
  /** Not due before (the retry delay of a failed attempt). */
  notBefore: number;
}

/** The host:port a URL targets (what per-host limits count); a URL that cannot parse gets its own key. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid)';
  }
}

/** A claimed row as a Job: the body as bytes once, the next attempt's number. */
export function toJob(row: ClaimedDelivery): Job {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    url: row.url,
    secret: row.secret,
    previous_secret: row.previous_secret,
    body: Buffer.from(row.body ?? '', 'utf8'),
    host: hostOf(row.url),
    webhookId: row.webhook_id,
    next: row.attempt_count + 1,
    notBefore: 0,
  };
}
