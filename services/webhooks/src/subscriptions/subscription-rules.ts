/**
 * The rules of a subscription's fields (spec "Webhooks", create body): which event types may be
 * named, what a caller-given secret may look like, and how a missing one is generated. The URL's
 * rules are the target policy's (delivery/target-policy.ts). No I/O.
 */
import { randomBytes } from 'node:crypto';
import { SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_LIMITS } from '@tix/protos';

/** Live subscriptions one project may have (each event is fanned out to all of them). */
export const MAX_WEBHOOKS_PER_PROJECT = 100;

export const SUBSCRIPTION_MESSAGES = {
  eventsEmpty: 'Events must name at least one event type',
  secret: `Secret must be ${WEBHOOK_LIMITS.secretMin} to ${WEBHOOK_LIMITS.secretMax} printable ASCII characters without spaces`,
  projectFull: `A project can have at most ${MAX_WEBHOOKS_PER_PROJECT} webhooks`,
} as const;

/** Printable ASCII without the space: a secret survives copy-paste into any config file or header. */
const SECRET_PATTERN = new RegExp(`^[\\x21-\\x7e]{${WEBHOOK_LIMITS.secretMin},${WEBHOOK_LIMITS.secretMax}}$`);

/** A fresh secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks format). */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The problem with a caller-given secret, or null when it is acceptable. */
export function secretProblem(secret: string): string | null {
  return SECRET_PATTERN.test(secret) ? null : SUBSCRIPTION_MESSAGES.secret;
}

/**
 * The subscribed types, duplicates removed (first occurrence order), or the problem: none given, or
 * names outside the spec's enum (all of them named).
 */
export function checkEvents(events: readonly string[]): { events: string[] } | { problem: string } {
  if (events.length === 0) return { problem: SUBSCRIPTION_MESSAGES.eventsEmpty };
  const allowed: readonly string[] = SUBSCRIBABLE_EVENT_TYPES;
  const unique = [...new Set(events)];
  const unknown = unique.filter((event) => !allowed.includes(event));
  if (unknown.length > 0) {
    const names = unknown.map((name) =>
      JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}...` : name),
    );
    return {
      problem: `Unknown event types: ${names.join(', ')}. Allowed: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`,
    };
  }
  return { events: unique };
}
