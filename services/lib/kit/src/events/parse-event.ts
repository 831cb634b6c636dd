/**
 * What an event consumer accepts off its queue (`decode: parseDomainEvent` in broker.consume): a
 * DomainEvent (protos/src/events.ts) whose every envelope field is well-formed. Anything else is
 * poison: it can never be processed, so it goes to the dead-letter queue instead of being retried.
 * Unknown event types are fine (a consumer simply has nothing to do for them).
 */
import { z } from 'zod';
import { MAX_INT32, type DomainEvent } from '@tix/protos';

const DomainEventSchema = z.object({
  id: z.uuid(),
  type: z
    .string()
    .regex(/^[a-z0-9_]+(\.[a-z0-9_]+)+$/)
    .max(100),
  occurred_at: z.iso.datetime({ offset: true }),
  source: z.string().max(100),
  project_id: z.number().int().min(1).max(MAX_INT32).optional(),
  data: z.record(z.string(), z.unknown()),
});

/** The event in `content` (a JSON message body), or null when it is not a well-formed DomainEvent. */
export function parseDomainEvent(content: Buffer | string): DomainEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(typeof content === 'string' ? content : content.toString('utf8'));
  } catch {
    return null;
  }
  const result = DomainEventSchema.safeParse(json);
  return result.success ? (result.data as DomainEvent) : null;
}
