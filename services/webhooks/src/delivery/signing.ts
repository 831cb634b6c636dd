/**
 * What a receiver verifies. The body is serialised once and these exact bytes are signed and sent.
 * Two schemes, both HMAC-SHA256 (docs/webhooks.md shows how to verify each):
 * - the spec's `X-Webhook-Signature`: lowercase hex of HMAC(secret as UTF-8 bytes, raw body);
 * - Standard Webhooks: `webhook-signature: v1,<base64 HMAC(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>`,
 *   where key is the base64-decoded part of a `whsec_<base64>` secret and the UTF-8 bytes of any
 *   other secret. `webhook-id` is the event id (the same on every retry and redelivery: receivers
 *   deduplicate on it); `webhook-timestamp` is the attempt's time, so receivers can refuse replays.
 */
import { createHmac } from 'node:crypto';

/** The body every delivery sends (protos deliveryBody, shared with the event stream). */
export { deliveryBody } from '@tix/protos';

export const USER_AGENT = 'Tix-Webhooks/1';

const WHSEC_PREFIX = 'whsec_';

/** The spec's X-Webhook-Signature: lowercase hex HMAC-SHA256 of the raw body keyed with the secret. */
export function hexSignature(secret: string, body: Buffer | string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

/** The Standard Webhooks key of a secret: whsec_<base64> decodes; anything else is its UTF-8 bytes. */
export function standardWebhooksKey(secret: string): Buffer {
  if (secret.startsWith(WHSEC_PREFIX)) {
    const encoded = secret.slice(WHSEC_PREFIX.length);
    const decoded = Buffer.from(encoded, 'base64');
    if (decoded.length > 0 && decoded.toString('base64') === encoded) return decoded;
  }
  return Buffer.from(secret, 'utf8');
}

/** The Standard Webhooks `webhook-signature` value (`v1,<base64>`). */
export function standardSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: Buffer | string,
): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret))
    .update(`${id}.${timestamp}.`)
    .update(body)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * Every header of one attempt. `now` is the attempt's time. During a rotation's overlap
 * `previousSecret` is given: `webhook-signature` then carries both signatures (the current secret's
 * first, space separated, as Standard Webhooks allows), while the spec's single-valued
 * `X-Webhook-Signature` uses the current secret only (docs/decisions.md says why).
 */
export function deliveryHeaders(input: {
  eventType: string;
  eventId: string;
  secret: string;
  previousSecret?: string | null;
  body: Buffer;
  now: Date;
}): Record<string, string> {
  const timestamp = Math.floor(input.now.getTime() / 1000);
  const signatures = [input.secret, ...(input.previousSecret ? [input.previousSecret] : [])].map((secret) =>
    standardSignature(secret, input.eventId, timestamp, input.body),
  );
  return {
    'Content-Type': 'application/json',
    'Content-Length': String(input.body.length),
    'User-Agent': USER_AGENT,
    'X-Webhook-Event': input.eventType,
    'X-Webhook-Signature': hexSignature(input.secret, input.body),
    'webhook-id': input.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  };
}
