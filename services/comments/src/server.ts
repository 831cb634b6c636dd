/**
 * The comment service: its store and the ticket service -> use cases -> handlers, relaying its
 * outbox. main.ts runs it; tests start the same composition (testing.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTixService, grpcService } from '@tix/kit';
import { commentHandlers } from './comments/comment-handlers.js';
import { createCommentStore } from './comments/comment-store.js';
import { loadConfig } from './config.js';
import { exportUserCommentsHandler } from './export/export-user-comments.js';

/** The comment service's migrations (Prisma layout), for createTestDatabase and the launcher. */
export const COMMENTS_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

export const commentService = defineTixService({
  name: 'comments',
  config: loadConfig,
  migrations: COMMENTS_MIGRATIONS_DIR,
  peers: ['tickets'],
  outbox: true,
  register: ({ pool, peers }) => ({
    grpc: grpcService('comments', {
      ...commentHandlers({ store: createCommentStore(pool), tickets: peers.tickets }),
      ExportUserComments: exportUserCommentsHandler({ pool }),
    }),
  }),
});
