/** The package's entry: the corpus (synthetic-corpus.ts), its categories, and its life as domain events. */
export * from './synthetic-corpus.js';
export { CATEGORIES, RESOLVER_COUNT } from './categories.js';
export { syntheticTicketEvents, type SyntheticEventContext } from './synthetic-events.js';
