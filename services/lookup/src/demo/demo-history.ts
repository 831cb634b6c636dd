/**
 * The support desk's past: resolved tickets from the assistant's synthetic corpus (the same seed
 * every time), each filed by one demo user, answered publicly by another and closed as resolved.
 * They come before the hand-written demo tickets, so the assistant has history to answer from: the
 * open tickets of the demo board (a reset email that never arrives, a CSV export that mangles
 * accents) get suggested replies with their sources and shadow predictions from a fresh seed.
 */
import { syntheticTickets, type SyntheticTicket } from '@tix/support-corpus';
import type { DemoTicket } from './demo-data.js';

export const DEMO_HISTORY_SIZE = 60;
const DEMO_HISTORY_SEED = 2026;

/** The demo users who may write tickets; the corpus's resolver indexes (RESOLVER_COUNT) point into them. */
export const DEMO_WRITERS = ['agent@example.com', 'lead@example.com', 'admin@example.com'] as const;

/** The question type's product field, by category. */
const PRODUCTS: Record<string, string> = { mobile: 'mobile', api: 'api' };

function historyTicket(ticket: SyntheticTicket): DemoTicket {
  const resolver = DEMO_WRITERS[ticket.resolverIndex]!;
  // The reporter is never the resolver: a reply by the ticket's own creator resolves nothing.
  const reporter = DEMO_WRITERS[(ticket.resolverIndex + 1 + (ticket.index % 2)) % DEMO_WRITERS.length]!;
  return {
    projectSlug: 'support',
    typeSlug: 'question',
    title: ticket.title,
    description: ticket.description,
    priority: ticket.priority,
    status: 'closed',
    resolution: 'resolved',
    reporter,
    assignee: resolver,
    tags: ticket.tags,
    customFields: { product: PRODUCTS[ticket.category] ?? 'web' },
    comments: [
      ...(ticket.customerComment === undefined
        ? []
        : [{ by: reporter, content: ticket.customerComment, internal: false }]),
      { by: resolver, content: ticket.reply, internal: false },
    ],
  };
}

/** The resolved history of the demo's support project, oldest first. */
export const DEMO_HISTORY: readonly DemoTicket[] = syntheticTickets({
  count: DEMO_HISTORY_SIZE,
  seed: DEMO_HISTORY_SEED,
}).map(historyTicket);
