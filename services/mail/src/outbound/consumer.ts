/**
 * The consumer of `mail.comments` (comment.created; kit durableQueue with its FLEET entry, so
 * comments written while the mail service is down wait in the queue). Each event is acknowledged
 * only after its outbox row is committed (queueReply); a redelivery is a no-op (unique comment_id).
 * A peer or the database being unavailable retries the message in place; a malformed event goes to
 * the dead-letter queue.
 */
import {
  AppError,
  durableQueue,
  isTransientDatabaseError,
  startDomainEventConsumer,
  type Consumer,
  type Logger,
} from '@tix/kit';
import { FLEET, type DomainEvent } from '@tix/protos';
import { queueReply, type CommentEventData, type ReplyDeps } from './reply.js';

export const MAIL_COMMENTS_QUEUE = durableQueue('mail.comments', FLEET.mail.queues['mail.comments']);

/** Failures that pass: the database, or a peer that is down, slow or failing inside. */
export function isTransientReplyError(error: unknown): boolean {
  if (error instanceof AppError) return ['unavailable', 'timeout', 'internal'].includes(error.kind);
  return isTransientDatabaseError(error);
}

export function startReplyConsumer(options: {
  amqpUrl: string;
  prefetch: number;
  logger: Logger;
  reply: ReplyDeps;
}): Consumer {
  return startDomainEventConsumer({
    url: options.amqpUrl,
    logger: options.logger,
    name: 'mail reply consumer',
    queue: MAIL_COMMENTS_QUEUE,
    prefetch: options.prefetch,
    isTransient: isTransientReplyError,
    handle: async (event) => {
      if (event.type !== 'comment.created') return;
      await queueReply(options.reply, event as DomainEvent<CommentEventData>);
    },
  });
}
