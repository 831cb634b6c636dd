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
  // Envelope v1.1 (optional: events written before it have none).
  actor: z
    .object({
      kind: z.enum(['user', 'api_key', 'ai', 'system']),
      user_id: z.number().int().min(1).max(MAX_INT32).nullable(),
      api_key_id: z.number().int().min(1).max(MAX_INT32).nullable(),
      via: z.object({ type: z.string().max(100), id: z.number().int() }).optional(),
    })
    .optional(),
  changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })).optional(),
  defaulted_fields: z.array(z.string().max(200)).optional(),
  write_types: z.array(z.string().max(100)).max(20).optional(),
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
