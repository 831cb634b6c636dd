/**
 * A real comment service for other packages' integration tests (the gateway's, end-to-end helpers):
 * the service as main.ts runs it, over a fresh migrated database on a free port, removed again by
 * stop(). It needs a running ticket service (which needs a lookup service).
 *
 *   import { startTestLookupServer } from '@tix/lookup-service/testing';
 *   import { startTestTicketServer } from '@tix/ticket-service/testing';
 *   import { startTestCommentServer } from '@tix/comment-service/testing';
 *   const lookup = await startTestLookupServer();
 *   const tickets = await startTestTicketServer({ lookupAddress: lookup.address });
 *   const comments = await startTestCommentServer({ ticketsAddress: tickets.address });
 *   const client = createServiceClient('comments', comments.address, { deadlineMs: 5_000 });
 *   ...
 *   client.close(); await comments.stop(); await tickets.stop(); await lookup.stop();
 */
import type { Logger } from '@tix/kit';
import { startTestService } from '@tix/kit/testing';
import { commentService } from './server.js';

export { COMMENTS_MIGRATIONS_DIR } from './server.js';

export interface TestCommentServerOptions {
  /** "host:port" of the ticket service to use. */
  ticketsAddress: string;
  /** Database name label (default "comments"). */
  label?: string;
  logger?: Logger;
  /** When given, the outbox relay publishes to this broker (e.g. createTestVhost(...).url). */
  amqpUrl?: string;
}

export type TestCommentServer = Awaited<ReturnType<typeof startTestCommentServer>>;

/** Starts a comment service on 127.0.0.1 (free port) over a fresh, migrated database. */
export function startTestCommentServer(options: TestCommentServerOptions) {
  const { ticketsAddress, ...rest } = options;
  return startTestService(commentService, { ...rest, config: { peers: { tickets: ticketsAddress } } });
}
