/** What every comment use case works with: its store and the ticket service. */
import type { CommentStore } from './comment-store.js';
import type { TicketsClient } from './ticket-check.js';

export interface CommentDeps {
  store: CommentStore;
  tickets: TicketsClient;
}
