/**
 * A real comment service for other packages' integration tests (the gateway's, end-to-end helpers):
 * a fresh migrated database plus the gRPC server on a free port, removed again by stop(). It needs a
 * running ticket service (which needs a lookup service).
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
import { createTestDatabase, testLogger } from '@tix/kit/testing';
import { COMMENTS_MIGRATIONS_DIR, startCommentServer, type RunningCommentServer } from './server.js';

export { COMMENTS_MIGRATIONS_DIR, startCommentServer } from './server.js';
export type { RunningCommentServer, StartCommentServerOptions } from './server.js';

export interface TestCommentServerOptions {
  /** "host:port" of the ticket service to use. */
  ticketsAddress: string;
  /** Database name label (default "comments"). */
  label?: string;
  logger?: Logger;
  /** When given, the outbox relay publishes to this broker (e.g. createTestVhost(...).url). */
  amqpUrl?: string;
}

export interface TestCommentServer extends RunningCommentServer {
  /** The fresh database it serves (query it directly to arrange or inspect state, e.g. outbox_events). */
  databaseUrl: string;
  /** Stops the server and drops its database. */
  stop(): Promise<void>;
}

/** Starts a comment service on 127.0.0.1 (free port) over a fresh, migrated database. */
export async function startTestCommentServer(options: TestCommentServerOptions): Promise<TestCommentServer> {
  const database = await createTestDatabase(options.label ?? 'comments', COMMENTS_MIGRATIONS_DIR);
  try {
    const server = await startCommentServer({
      databaseUrl: database.url,
      ticketsAddress: options.ticketsAddress,
      port: 0,
      logger: options.logger ?? testLogger('comments'),
      ...(options.amqpUrl ? { amqpUrl: options.amqpUrl } : {}),
    });
    return {
      ...server,
      databaseUrl: database.url,
      stop: () => server.stop(1_000).finally(() => database.drop()),
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}
