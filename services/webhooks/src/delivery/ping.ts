/**
 * POST /webhooks/{id}/ping: one signed `ping` delivery to the subscription's URL, now, through the
 * same path as every attempt (target policy, signing with the current and any overlapping secret,
 * the spec's timeout, no redirects), answered with its outcome. Works on a paused subscription (to
 * test a receiver before resuming). It is no domain event: nothing is queued, retried or logged.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '@tix/kit';
import { deliveryBody, WEBHOOK_PING_EVENT, type Principal } from '@tix/protos';
import { reachableBy, WEBHOOK_NOT_FOUND_MESSAGE } from '../subscriptions/manage-subscriptions.js';
import type { SubscriptionStore } from '../subscriptions/subscription-store.js';
import { bodyExcerpt, type BodyExcerpt } from './body-excerpt.js';
import type { HttpSender } from './http-sender.js';
import { performAttempt, type AttemptDeps } from './perform-attempt.js';

export interface PingDeps {
  subscriptions: SubscriptionStore;
  /** Attempt settings; the sender is made per ping (ping is rare, and holds no keep-alive socket). */
  attempts: Omit<AttemptDeps, 'sender'>;
  newSender: () => HttpSender;
}

export interface PingOutcome {
  eventId: string;
  ok: boolean;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  responseBodyTruncated: boolean;
  requestBody: BodyExcerpt;
}

/** The body of a ping: `{ event: "ping", timestamp, data: { webhook_id, project_id } }`. */
export function pingBody(webhookId: number, projectId: number, now: Date): string {
  return deliveryBody({
    type: WEBHOOK_PING_EVENT,
    occurred_at: now.toISOString(),
    data: { webhook_id: webhookId, project_id: projectId },
  });
}

export async function pingWebhook(
  deps: PingDeps,
  input: { projectId: number; id: number },
  principal: Principal | null,
): Promise<PingOutcome> {
  const hook = await deps.subscriptions.findWithSecrets(input.projectId, reachableBy(principal), input.id);
  if (!hook) throw AppError.notFound(WEBHOOK_NOT_FOUND_MESSAGE);
  const eventId = randomUUID();
  const body = pingBody(hook.id, hook.project_id, new Date());
  const sender = deps.newSender();
  try {
    const outcome = await performAttempt(
      { ...deps.attempts, sender },
      {
        id: eventId,
        event_id: eventId,
        event_type: WEBHOOK_PING_EVENT,
        url: hook.url,
        secret: hook.secret,
        previous_secret: hook.previous_secret,
        body: Buffer.from(body, 'utf8'),
      },
      1,
    );
    return {
      eventId,
      ok: outcome.ok,
      responseCode: outcome.record.response_code,
      durationMs: outcome.record.duration_ms,
      error: outcome.record.error,
      responseBody: outcome.record.response_body ?? null,
      responseBodyTruncated: outcome.record.response_body_truncated ?? false,
      requestBody: bodyExcerpt(body),
    };
  } finally {
    sender.close();
  }
}
