/**
 * One attempt of one delivery, start to finish: check the target again (SSRF policy, pinning the
 * addresses it approved), open the signing secret, sign the stored body with the attempt's
 * timestamp, POST it, and describe what happened as the delivery log records it. The spec's
 * timeout bounds the whole attempt, name resolution included. Never throws.
 */
import type { Logger } from '@tix/kit';
import type { ClaimedDelivery } from './delivery-queue-store.js';
import type { AttemptRecord } from './delivery-log-store.js';
import type { SecretBox } from '../subscriptions/secret-box.js';
import type { HttpSender } from './http-sender.js';
import { isSuccessStatus } from './retry-policy.js';
import { deliveryHeaders } from './signing.js';
import { TargetRefused, vetTarget, type Resolver, type TargetMode } from './target-policy.js';

export interface AttemptDeps {
  sender: HttpSender;
  secrets: SecretBox;
  targetMode: TargetMode;
  resolver: Resolver;
  timeoutMs: number;
  /** Told when a secret cannot be opened (an operator's key problem, not the receiver's). */
  logger?: Logger;
}

export interface AttemptOutcome {
  record: AttemptRecord;
  /** The receiver answered 2xx. */
  ok: boolean;
  /** Cut short by shutdown: not a real attempt, so it is not recorded. */
  aborted: boolean;
}

/** What one attempt needs of a claimed delivery. */
export type AttemptTarget = Pick<
  ClaimedDelivery,
  'id' | 'event_id' | 'event_type' | 'url' | 'secret' | 'previous_secret'
> & {
  body: Buffer;
};

class AttemptTimeout extends Error {}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new AttemptTimeout(`timeout after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function failureText(error: unknown): string {
  if (error instanceof TargetRefused) {
    return `target refused: ${error.message}${error.detail ? `: ${error.detail}` : ''}`;
  }
  if (error instanceof AttemptTimeout) return error.message;
  return `cannot send: ${(error as Error).message}`;
}

/** Performs attempt `number` of `delivery`. */
export async function performAttempt(
  deps: AttemptDeps,
  delivery: AttemptTarget,
  number: number,
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  const attemptedAt = new Date();
  const started = performance.now();
  let responseCode: number | null = null;
  let error: string | null = null;
  let responseBody: string | null = null;
  let responseBodyTruncated = false;
  try {
    const target = await withTimeout(vetTarget(delivery.url, deps.targetMode, deps.resolver), deps.timeoutMs);
    let secret: string;
    let previousSecret: string | null;
    try {
      secret = deps.secrets.open(delivery.secret);
      previousSecret = delivery.previous_secret === null ? null : deps.secrets.open(delivery.previous_secret);
    } catch (error) {
      deps.logger?.error({ err: error, delivery_id: delivery.id }, 'cannot open a signing secret');
      throw error;
    }
    const sent = await deps.sender.send({
      url: target.url,
      addresses: target.addresses,
      headers: deliveryHeaders({
        eventType: delivery.event_type,
        eventId: delivery.event_id,
        secret,
        previousSecret,
        body: delivery.body,
        now: new Date(),
      }),
      body: delivery.body,
      timeoutMs: Math.max(1, Math.round(deps.timeoutMs - (performance.now() - started))),
      attemptTimeoutMs: deps.timeoutMs,
      ...(signal ? { signal } : {}),
    });
    responseCode = sent.responseCode;
    error = sent.error;
    responseBody = sent.responseBody;
    responseBodyTruncated = sent.responseBodyTruncated;
  } catch (caught) {
    error = failureText(caught);
  }
  const ok = responseCode !== null && isSuccessStatus(responseCode);
  if (responseCode !== null && !ok) {
    error =
      responseCode >= 300 && responseCode <= 399
        ? `HTTP ${responseCode} (redirects are not followed)`
        : `HTTP ${responseCode}`;
  }
  return {
    ok,
    aborted: signal?.aborted ?? false,
    record: {
      number,
      response_code: responseCode,
      duration_ms: Math.round(performance.now() - started),
      error,
      attempted_at: attemptedAt.toISOString(),
      response_body: responseBody,
      response_body_truncated: responseBodyTruncated,
    },
  };
}
