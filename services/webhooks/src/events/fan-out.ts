/**
 * What consuming one domain event means: serialise its delivery body once (the bytes every
 * attempt will sign and send), then fan it out in one statement (fan-out-store.ts). Resolves only
 * once that is committed, which is when the consumer may acknowledge the message.
 */
import type { Logger } from '@tix/kit';
import type { DomainEvent } from '@tix/protos';
import { deliveryBody } from '../delivery/signing.js';
import type { FanOutStore } from './fan-out-store.js';

/** The consumer's `process`: fan out, then wake the local workers when deliveries were queued. */
export function createEventFanOut(deps: {
  store: FanOutStore;
  onQueued: () => void;
  logger: Logger;
}): (event: DomainEvent) => Promise<void> {
  return async (event) => {
    const result = await deps.store.fanOut({
      eventId: event.id,
      eventType: event.type,
      projectId: event.project_id,
      body: deliveryBody(event),
    });
    if (result.duplicate) {
      deps.logger.debug({ event_id: event.id }, 'event already fanned out; ignored');
      return;
    }
    if (result.queued > 0) deps.onQueued();
  };
}
