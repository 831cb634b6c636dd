/**
 * The comment service: its store and the ticket service -> use cases -> handlers, relaying its
 * outbox. main.ts runs it; tests start the same composition (testing.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, defineTixService, grpcService } from '@tix/kit';
import { commentHandlers } from './comments/comment-handlers.js';
import { createCommentStore } from './comments/comment-store.js';
import { loadConfig } from './config.js';

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
      // WORK IN PROGRESS (issue 12): answered UNIMPLEMENTED until their handlers land.
      ExportUserComments: async () => {
        throw new AppError('not_implemented', 'ExportUserComments is not served yet');
      },
    }),
  }),
});
